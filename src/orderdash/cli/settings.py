"""The settings the command line gives: each option that names a setting (`SETTING_OPTIONS`,
with the parser), layered over the settings file and the environment (`core/settings/sources.py`
does the layering), and the commands the `readonly` setting refuses.

Loaded by the command that runs, never by `--help`: it loads the settings' modules (pydantic).
"""

from __future__ import annotations

import argparse
import os
import sys

from orderdash.cli.options import SETTING_OPTIONS
from orderdash.core.model.errors import UsageError
from orderdash.core.notify.rules import url_secrets
from orderdash.core.runtime.logs import configure_logging
from orderdash.core.settings.model import Settings
from orderdash.core.settings.sources import load_settings


def settings_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The settings the command line names: each option given (not None)."""
    given = {name: getattr(args, name, None) for name in SETTING_OPTIONS}
    given["profile"] = getattr(args, "hosts", None)  # `--hosts`: `export --profile` is a layout
    return {name: value for name, value in given.items() if value is not None}


def settings_from_args(args: argparse.Namespace, **extra: object) -> tuple[Settings, list[str]]:
    """The settings, and the warnings (already printed) that a full-screen app shows again."""
    env: dict[str, str] = dict(os.environ)
    if getattr(args, "config", None):
        env["ORDERDASH_CONFIG"] = args.config
    settings, warnings = load_settings({**settings_overrides(args), **extra}, env)
    for warning in warnings:
        print(f"orderdash: warning: {warning}", file=sys.stderr)
    if settings.readonly:
        _refuse_in_readonly(args)
    # the log file, or nowhere: never the terminal (the dashboard owns it, --jsonl owns stdout)
    secrets = [settings.bearer_token, settings.access_token, *url_secrets(settings.notify)]
    configure_logging(settings.log_file, secrets=secrets)
    return settings, warnings


def _refuse_in_readonly(args: argparse.Namespace) -> None:
    """A command that makes something, or puts an order before a customer, is refused with
    the `readonly` setting: before anything is sent or written."""
    command = getattr(args, "command", None)
    if command == "charge":
        raise UsageError("read-only (the readonly setting): charge makes no order")
    if command == "pos":
        raise UsageError("read-only (the readonly setting): no point of sale for a customer")
    if command == "resolve":
        raise UsageError("read-only (the readonly setting): resolve writes nothing down")
    looks_only = getattr(args, "dry_run", False) or getattr(args, "verify", False)
    if command == "close" and not looks_only:
        raise UsageError(
            "read-only (the readonly setting): close --dry-run shows the report, closing nothing"
        )
