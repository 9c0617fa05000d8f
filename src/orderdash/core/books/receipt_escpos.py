"""A receipt as ESC/POS bytes, and the bytes sent to a printer, through python-escpos (the
`receipt` extra: `pip install 'orderdash[receipt]'`).

The bytes are made once, in memory (escpos' `Dummy`): the printer's initialise command (ESC @),
the receipt's lines through escpos' code-page encoder (`magic`: each character in a code page
the printer has, the page switched with ESC t where needed), a feed and a cut (GS V). Those
bytes are what is digested and journaled, and what is sent: to a device file or a file
(escpos' `File`) or to a network printer (raw TCP, port 9100 on most, IPv4 or IPv6: escpos'
`Network` speaks IPv4 only). A reprint is the original's bytes with one line more before the
feed and the cut.

A printer that is off, refusing or unreachable is one line (`PrinterFailed`), within
`PRINTER_SECONDS`: a device that takes nothing (a USB printer out of paper blocks its writer)
is left to its thread, never waited on longer.
"""

from __future__ import annotations

import hashlib
import re
import socket
import threading
from dataclasses import dataclass
from typing import Protocol, cast

from orderdash.core.model.errors import OrderdashError, UsageError
from orderdash.core.safetext import clean

#: Seconds a printer has to take a receipt: connect and send.
PRINTER_SECONDS = 5.0
EXTRA_MISSING = "printing a receipt needs the receipt extra: pip install 'orderdash[receipt]'"
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})")


class ReceiptExtraMissing(UsageError):
    """python-escpos is not installed."""


class PrinterFailed(OrderdashError):
    """The printer did not take the receipt (off, refusing, unreachable, not answering)."""


class _Device(Protocol):
    """Where the bytes go: opened, given the bytes as made, closed."""

    def open(self, raise_not_found: bool = True) -> None: ...

    def close(self) -> None: ...

    def _raw(self, msg: bytes) -> None: ...


class _Escpos(_Device, Protocol):
    """What is used of an escpos printer (the package has no types)."""

    def hw(self, hw: str) -> None: ...

    def text(self, txt: str) -> None: ...

    def cut(self, mode: str = "FULL", feed: bool = True) -> None: ...


class _Dummy(_Escpos, Protocol):
    @property
    def output(self) -> bytes: ...


def escpos_bytes(lines: list[str], *, extra: str | None = None) -> bytes:
    """`lines` as one receipt: initialise, the lines, `extra` (a reprint's line) after them,
    a feed and a cut. ReceiptExtraMissing without python-escpos."""
    try:
        from escpos.printer import Dummy  # the extra: loaded when a receipt is printed
    except ImportError:
        raise ReceiptExtraMissing(EXTRA_MISSING) from None
    paper = cast("_Dummy", Dummy())
    paper.hw("INIT")
    for line in lines:
        paper.text(f"{line}\n")
    if extra is not None:
        paper.text(f"{extra}\n")
    paper.cut()
    return paper.output


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Printer:
    """Where receipts go: a network printer (`host`, `port`) or a device file or file
    (`path`)."""

    path: str = ""
    host: str = ""
    port: int = 0

    @classmethod
    def named(cls, setting: str) -> Printer:
        """The `receipt_printer` setting: `host:port` (a name or address without a `/`, then
        a port), else a device file or a file path."""
        value = setting.strip()
        found = _HOST_PORT.fullmatch(value)
        if found is not None and "/" not in value:
            port = int(found.group(2))
            if not 0 < port < 65536:
                raise UsageError(f"receipt_printer: port {port} is not one (1 to 65535)")
            return cls(host=found.group(1).strip("[]"), port=port)
        if not value:
            raise UsageError("receipt_printer is empty: a device, host:port or a file")
        return cls(path=value)

    def __str__(self) -> str:
        if not self.host:
            return clean(self.path, limit=120)
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


class _Network:
    """A network printer: the bytes on a TCP connection to it, by name, IPv4 or IPv6."""

    def __init__(self, host: str, port: int, seconds: float) -> None:
        self._address, self._seconds = (host, port), seconds
        self._socket: socket.socket | None = None

    def open(self, raise_not_found: bool = True) -> None:
        self._socket = socket.create_connection(self._address, timeout=self._seconds)

    def _raw(self, msg: bytes) -> None:
        assert self._socket is not None
        self._socket.sendall(msg)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()


def _device(printer: Printer, seconds: float) -> _Device:
    try:
        from escpos.printer import File
    except ImportError:
        raise ReceiptExtraMissing(EXTRA_MISSING) from None
    if printer.host:
        return _Network(printer.host, printer.port, seconds)
    return cast("_Device", File(printer.path))


def send(data: bytes, printer: Printer, *, seconds: float = PRINTER_SECONDS) -> None:
    """Send `data` (made by `escpos_bytes`) to `printer` as made, within `seconds`:
    PrinterFailed (one line) when it does not take them."""
    device = _device(printer, seconds)
    failed: list[str] = []

    def run() -> None:
        try:
            device.open()
            try:
                # the bytes as made and digested, not made again on the device
                device._raw(data)
            finally:
                device.close()
        except Exception as error:  # the device's errors: OSError, escpos' own
            failed.append(" ".join(str(error).split()) or type(error).__name__)

    worker = threading.Thread(target=run, name="receipt-printer", daemon=True)
    worker.start()
    worker.join(seconds + 1)
    if worker.is_alive():
        raise PrinterFailed(f"the printer {printer} did not take the receipt within {seconds:g} s")
    if failed:
        raise PrinterFailed(
            f"the printer {printer} did not take the receipt: {clean(failed[0], limit=160)}"
        )
