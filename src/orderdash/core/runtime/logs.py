"""The optional log file: request outcomes and timings, secrets redacted, bounded in size.

- One file (`--log FILE`, setting `log_file`, `ORDERDASH_LOG_FILE`), rotated at `MAX_BYTES` with
  `BACKUP_COUNT` old files kept, every one of them created with mode 0600.
- The client logs one line per request: the endpoint kind, the order token, the HTTP status or
  the error class, the elapsed milliseconds (and the one-line error message).
- Every record that reaches the file passes `RedactSecrets`, which replaces each secret (the
  bearer token, in its plain, percent-encoded and escaped forms) in the message, its arguments,
  the exception text and the stack; the formatter redacts the finished line once more.
- Nothing is ever written to the terminal: while the dashboard runs a stray line on stderr would
  tear the screen, and `watch --jsonl` owns stdout. Without a log file the root logger gets a
  `NullHandler`, so not even Python's last-resort handler prints anything.

Standard library only: `orderdash get` loads this module too; the file's handler is in
`logfile.py`, loaded only when there is a log file (with `logging.handlers`, ~3 ms of a start).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from pydantic import SecretStr

from orderdash.core.model.errors import ConfigError
from orderdash.core.safetext import without_secret

#: The logger every module of the project logs under (`logging.getLogger(__name__)`).
LOGGER_NAME = "orderdash"
MAX_BYTES = 1024 * 1024
BACKUP_COUNT = 3
REDACTED = "[redacted]"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def secret_forms(secret: str) -> list[str]:
    """The ways `secret` can appear in text: as is, percent-encoded, JSON- and repr-escaped."""
    forms = {
        secret,
        quote(secret, safe=""),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
    }
    # longest first, so a form that contains another is replaced whole
    return sorted((form for form in forms if form), key=len, reverse=True)


def _plain(secret: str | SecretStr | None) -> str | None:
    if isinstance(secret, SecretStr):
        secret = secret.get_secret_value()
    return secret or None


class RedactSecrets(logging.Filter):
    """Replaces every known secret in a record, wherever it sits: message, args, exception text.

    Put it on the handler (a logger's own filters do not see records from its children).
    """

    def __init__(self, secrets: Iterable[str | SecretStr | None] = ()) -> None:
        super().__init__()
        self._forms: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | SecretStr | None) -> None:
        value = _plain(secret)
        if value is None:
            return
        forms = set(self._forms) | set(secret_forms(value))
        self._forms = sorted(forms, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for form in self._forms:
            text = without_secret(text, form, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._forms:
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string must not lose the record
            message = f"{record.msg!r} % {record.args!r}"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class RedactingFormatter(logging.Formatter):
    """The finished line redacted once more: what the filter cannot reach (a custom format)."""

    def __init__(self, redactor: RedactSecrets, fmt: str = FORMAT) -> None:
        super().__init__(fmt)
        self._redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self._redactor.redact(super().format(record))


class LogSetup:
    """What `configure_logging` installed; `close()` takes it all away again (tests)."""

    def __init__(self, handler: logging.Handler, redactor: RedactSecrets, path: Path | None):
        self.handler = handler
        self.redactor = redactor
        self.path = path
        self._level = logging.getLogger(LOGGER_NAME).level

    def add_secret(self, secret: str | SecretStr | None) -> None:
        self.redactor.add(secret)

    def close(self) -> None:
        global _current
        logging.getLogger().removeHandler(self.handler)
        logging.getLogger(LOGGER_NAME).setLevel(self._level)
        self.handler.close()
        if _current is self:
            _current = None


_current: LogSetup | None = None


def configure_logging(
    log_file: str | os.PathLike[str] | None,
    secrets: Iterable[str | SecretStr | None] = (),
    *,
    max_bytes: int = MAX_BYTES,
    backup_count: int = BACKUP_COUNT,
) -> LogSetup:
    """Send log records to `log_file` (or nowhere), never to the terminal.

    The handler sits on the root logger, so warnings of the libraries underneath (asyncio,
    uvicorn in the demo) land in the file too, redacted like the rest; the project's own loggers
    log from INFO up when there is a file. Calling it again replaces the previous setup.
    """
    global _current
    if _current is not None:
        _current.close()
    redactor = RedactSecrets(secrets)
    path: Path | None = None
    handler: logging.Handler
    if log_file:
        from orderdash.core.runtime.logfile import PrivateRotatingFileHandler

        path = Path(log_file).expanduser()
        try:
            handler = PrivateRotatingFileHandler(
                path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
            )
        except OSError as exc:
            raise ConfigError(f"cannot open the log file {path}: {exc.strerror}") from None
        handler.setLevel(logging.INFO)
    else:
        handler = logging.NullHandler()
    handler.addFilter(redactor)
    handler.setFormatter(RedactingFormatter(redactor))
    setup = LogSetup(handler, redactor, path)
    logging.getLogger().addHandler(handler)
    if path is not None:
        logging.getLogger(LOGGER_NAME).setLevel(logging.INFO)
    _current = setup
    return setup


def current() -> LogSetup | None:
    return _current


def ensure_configured(
    log_file: str | os.PathLike[str] | None, secrets: Iterable[str | SecretStr | None] = ()
) -> LogSetup:
    """`configure_logging` unless done already (then only the secrets are added)."""
    if _current is None:
        return configure_logging(log_file, secrets)
    for secret in secrets:
        _current.add_secret(secret)
    return _current


__all__ = [
    "BACKUP_COUNT",
    "LOGGER_NAME",
    "MAX_BYTES",
    "LogSetup",
    "REDACTED",
    "RedactSecrets",
    "RedactingFormatter",
    "configure_logging",
    "current",
    "ensure_configured",
    "secret_forms",
]
