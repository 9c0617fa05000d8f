"""The settings the command line gives: each option that names a setting, layered over the
settings file and the environment (`core/settings/sources.py` does the layering), and the
commands the `readonly` setting refuses.

Light on purpose, as `options`: the settings' modules load when `_load_settings` runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

#: Options that map one to one onto settings of the same name.
SETTING_OPTIONS = (
    "base_url",
    "bearer_token_file",
    "access_token_file",
    "customer_id",
    "timeout",
    "allow_insecure_http",
    "poll_interval",
    "refresh_interval",
    "bell",
    "readonly",
    "qr_content",
    "qr_uppercase",
    "pos_primary",
    "log_file",
    "account_interval",
    "create_url",
    "currency",
    "budget_per_minute",
    "budget_per_hour",
    "rate_budget_per_minute",
    "rate_budget_per_hour",
    "language",
    "display_channel",
    "display_title",
    "operator",
)


def _settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    given = {name: getattr(args, name, None) for name in SETTING_OPTIONS}
    return {name: value for name, value in given.items() if value is not None}


def _load_settings(args: argparse.Namespace, **extra: Any) -> tuple[Any, list[str]]:
    """The settings, and the warnings (already printed) that a full-screen app shows again."""
    from orderdash.core.settings.sources import load_settings

    env: dict[str, str] = dict(os.environ)
    if getattr(args, "config", None):
        env["ORDERDASH_CONFIG"] = args.config
    settings, warnings = load_settings({**_settings_overrides(args), **extra}, env)
    for warning in warnings:
        print(f"orderdash: warning: {warning}", file=sys.stderr)
    if settings.readonly:
        _refuse_in_readonly(args)
    from orderdash.core.notify.rules import url_secrets
    from orderdash.core.runtime.logs import configure_logging

    # the log file, or nowhere: never the terminal (the dashboard owns it, --jsonl owns stdout)
    secrets = [settings.bearer_token, settings.access_token, *url_secrets(settings.notify)]
    configure_logging(settings.log_file, secrets=secrets)
    return settings, warnings


def _refuse_in_readonly(args: argparse.Namespace) -> None:
    """A command that makes something, or puts an order before a customer, is refused with
    the `readonly` setting: before anything is sent or written."""
    from orderdash.core.model.errors import UsageError

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
