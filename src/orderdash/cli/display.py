"""`orderdash display`: the customer display, following the channel a dashboard on this
machine writes the order on screen to; in this terminal, or (`--web`, the web extra) served to
browsers."""

from __future__ import annotations

import argparse
import os

from orderdash.cli.settings import settings_overrides
from orderdash.core.customer.catalogue import resolve_language
from orderdash.core.customer.channel import ChannelError, channel_path, runtime_problem
from orderdash.core.model.errors import UsageError
from orderdash.core.runtime import startup
from orderdash.core.runtime.logs import configure_logging
from orderdash.core.settings.sources import load_settings
from orderdash.tui.customer_display import DisplayApp


def run_display(args: argparse.Namespace) -> int:
    """The customer display, in this terminal or (`--web`) served to browsers."""
    env: dict[str, str] = dict(os.environ)
    if args.config:
        env["ORDERDASH_CONFIG"] = args.config
    # the display never reads the token file: it has nothing to ask the service
    settings, _ = load_settings(settings_overrides(args), env, with_token=False)
    try:
        path = channel_path(settings.display_channel)
    except ChannelError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        # no channel to follow: said in one line, not a traceback
        raise UsageError(
            f"no usable runtime directory for the customer display ({runtime_problem(error)}); "
            "set XDG_RUNTIME_DIR to a directory of your own (mode 700)"
        ) from None
    language = resolve_language(settings.language, os.environ)
    if args.web:
        # the web server's modules (aiohttp, textual-serve) for --web only
        from orderdash.tui.web import serve_display

        # each browser connection runs `orderdash display` with these (the config file and
        # the environment travel with the process)
        options = {"--language": language, "--pos-primary": settings.pos_primary}
        if settings.display_title:
            options["--title"] = settings.display_title
        if args.config:
            options["--config"] = args.config
        key = settings.display_web_key
        return serve_display(
            args.host,
            args.port,
            settings.display_channel,
            options,
            key=key.get_secret_value() if key is not None else None,
            max_processes=settings.display_web_max,
        )
    # what it refuses to show is logged: to the log file or nowhere, never over the screen
    configure_logging(settings.log_file)
    startup.resume()  # runs for hours
    DisplayApp(
        path, language=language, title=settings.display_title, primary=settings.pos_primary
    ).run()
    return 0
