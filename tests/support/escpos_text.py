"""ESC/POS bytes read back as text, the way a printer would print them: the initialise
command, code-page switches (ESC t n, each page decoded with Python's codec of the same name),
feeds and the cut are taken out; what is left is decoded in the page in force."""

from __future__ import annotations

import codecs

from escpos.printer import Dummy

ESC, GS = 0x1B, 0x1D
INIT = b"\x1b@"
#: The cut python-escpos sends (GS V 0: a full cut).
CUT = b"\x1dV\x00"


def _pages() -> dict[int, str]:
    """Each code page's number (the default profile's, as python-escpos sends it) and the
    Python codec of its name."""
    pages: dict[int, str] = {}
    for name, number in Dummy().magic.encoder.codepages.items():
        try:
            codecs.lookup(name.lower().replace("_", "-"))
        except LookupError:
            continue
        pages[int(number)] = name.lower().replace("_", "-")
    return pages


def printed_text(data: bytes) -> tuple[str, list[bytes]]:
    """The text `data` prints, and the control sequences in it, in order."""
    pages = _pages()
    page = "cp437"  # a printer's page after ESC @
    text: list[str] = []
    controls: list[bytes] = []
    run = bytearray()
    i = 0

    def flush() -> None:
        text.append(run.decode(page))
        run.clear()

    while i < len(data):
        byte = data[i]
        if byte in (ESC, GS):
            flush()
            command = data[i + 1 : i + 2]
            size = 2 if (byte, command) == (ESC, b"@") else 3
            sequence = data[i : i + size]
            if (byte, command) == (ESC, b"t"):
                page = pages[sequence[2]]
            controls.append(bytes(sequence))
            i += size
            continue
        run.append(byte)
        i += 1
    flush()
    return "".join(text), controls
