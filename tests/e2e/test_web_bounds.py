"""`orderdash display --web` cannot be made to eat the machine: a key guards it on loopback too,
the terminal size a browser asks for is clamped, the display processes are capped (the next
connection is told the display is busy), a process ends with its connection whatever it was
writing, and `/static/` lists nothing.

No browser here: raw sockets play the hostile local user (loopback only). The measurement
opens 50 websockets asking for a 3000x3000 terminal that never read a byte, counts the display
processes all along (at most the cap), closes them, and times how long the processes outlive
their sockets (at most 5 s, the bound the display promises). Everything the test started is
killed at the end, whatever happened.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from orderdash.core.customer.catalogue import catalogue
from orderdash.tui.web import MAX_COLUMNS, MAX_ROWS, clamped_size
from support.browser import Display, free_port, wait_for

HOSTILE = 50
CAP = 4
#: How long a display process may outlive its connection (the issue's bound).
OUTLIVE = 5.0


def descendants(root: int) -> set[int]:
    """Every process under `root` (from /proc: the display processes and their shells)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rpartition(")")[2].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def display_processes(root: int) -> set[int]:
    """The `orderdash display --channel` processes under `root` (not the shells)."""
    found = set()
    for pid in descendants(root):
        with contextlib.suppress(OSError):
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"--channel" in argv and b"-c" not in argv:
                found.add(pid)
    return found


def handshake(display: Display, query: str) -> tuple[socket.socket, bytes]:
    """A websocket opened by hand that will never read a byte of what it is sent."""
    raw = socket.create_connection((display.host, display.port), timeout=10)
    # a small receive buffer: the server's writes back up at once
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.sendall(
        f"GET /ws?{query} HTTP/1.1\r\nHost: {display.host}:{display.port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode()
    )
    return raw, raw.recv(200)


@pytest.fixture
def display(runtime_dir: Path) -> Iterator[Display]:
    started = Display("127.0.0.1", free_port(), runtime_dir)
    seen: set[int] = set()
    started.seen = seen  # type: ignore[attr-defined]
    try:
        yield started
    finally:
        seen |= descendants(started.process.pid)
        started.stop()
        for pid in seen:  # only what this test started
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_size_is_clamped_to_what_a_screen_can_have() -> None:
    assert clamped_size("3000", "3000") == (MAX_COLUMNS, MAX_ROWS)
    assert clamped_size(10**12, -5) == (MAX_COLUMNS, 5)
    assert clamped_size("1e9", None) == (80, 24)
    assert clamped_size(True, 3.5) == (80, 24)
    assert clamped_size("120", 40) == (120, 40)
    # an 8K screen at the page's 16 px font fits
    assert MAX_COLUMNS >= 7680 // 10 and MAX_ROWS >= 4320 // 20


def test_loopback_wants_the_key_and_static_lists_nothing(display: Display) -> None:
    assert display.key and len(display.key) >= 20
    assert "?key=" + display.key in "".join(display.log)  # the printed address carries it
    for path in ("", "?key=wrong", "static/js/textual.js", "static/"):
        assert get(display.bare_url + path)[0] == 403, path
    raw, answer = handshake(display, "width=80&height=24")
    raw.close()
    assert answer.startswith(b"HTTP/1.1 403")
    assert get(display.url)[0] == 200
    key = f"?key={display.key}"
    for listing in ("static/", "static/js/", "static/css/"):
        status, body = get(display.bare_url + listing + key)
        assert status in (403, 404) and "textual.js" not in body, listing
    assert get(display.bare_url + "static/js/textual.js" + key)[0] == 200


def test_hostile_websockets_leave_at_most_the_cap_and_end_with_their_sockets(
    display: Display,
) -> None:
    """50 websockets (3000x3000, never reading): at most CAP processes at any time, the rest
    told the display is busy, each process gone within OUTLIVE s of its socket closing."""
    root = display.process.pid
    seen: set[int] = display.seen  # type: ignore[attr-defined]
    busy_words = catalogue("en").text("web_display_busy")
    accepted: list[socket.socket] = []
    refused = 0
    most = 0
    try:
        for _ in range(HOSTILE):
            raw, answer = handshake(display, f"width=3000&height=3000&key={display.key}")
            if answer.startswith(b"HTTP/1.1 101"):
                accepted.append(raw)
            else:
                assert answer.startswith(b"HTTP/1.1 503"), answer
                rest = answer
                with contextlib.suppress(OSError):
                    rest += raw.recv(2000)
                assert busy_words.encode() in rest
                refused += 1
                raw.close()
            time.sleep(0.05)
            now = display_processes(root)
            seen |= descendants(root)
            most = max(most, len(now))
            # stop early rather than let a broken server eat the machine
            assert len(now) <= CAP, f"{len(now)} display processes with a cap of {CAP}"
        assert len(accepted) == CAP and refused == HOSTILE - CAP
        # the processes exist, at the clamped size, and are stuck writing to nobody
        running = wait_for(lambda: display_processes(root), what="the display processes")
        for pid in running:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert f"COLUMNS={MAX_COLUMNS}".encode() in environ
            assert f"ROWS={MAX_ROWS}".encode() in environ
            assert b"ORDERDASH_DISPLAY_WEB_KEY" not in b"\0".join(environ)
        time.sleep(3)  # long enough for each first frame to fill its pipe
        seen |= descendants(root)
        assert len(display_processes(root)) <= CAP
    finally:
        for raw in accepted:
            raw.close()
    closed_at = time.monotonic()
    while descendants(root) and time.monotonic() - closed_at < 30:
        time.sleep(0.1)
    outlived = time.monotonic() - closed_at
    assert not descendants(root), "display processes outlived their sockets by 30 s"
    assert outlived <= OUTLIVE, f"display processes outlived their sockets by {outlived:.1f} s"
    print(f"most processes at once: {most}; outlived their sockets by {outlived:.1f} s")

    # room again: a new connection is served (once the server has counted the ended sessions
    # out, a moment after their processes are gone)
    def served() -> bool:
        raw, answer = handshake(display, f"width=80&height=24&key={display.key}")
        raw.close()
        return answer.startswith(b"HTTP/1.1 101")

    assert wait_for(served, timeout=10, what="a connection served after the others ended")


def test_a_full_display_says_so_politely(display: Display) -> None:
    sockets = []
    try:
        for _ in range(CAP):
            raw, answer = handshake(display, f"width=80&height=24&key={display.key}")
            sockets.append(raw)
            assert answer.startswith(b"HTTP/1.1 101")
        status, page = get(display.url)
        assert status == 503 and catalogue("en").text("web_display_busy") in page
        assert 'http-equiv="refresh"' in page  # the page tries again by itself
    finally:
        for raw in sockets:
            raw.close()
    wait_for(lambda: get(display.url)[0] == 200, timeout=15, what="room again")


def test_a_configured_key_is_checked_and_kept_out_of_sight() -> None:
    from pydantic import ValidationError

    from orderdash.core.settings.model import Settings

    for bad in ("short", "x" * 129, "has space 0123456789", "k" * 15 + "?"):
        with pytest.raises(ValidationError):
            Settings(display_web_key=bad)
    settings = Settings(display_web_key="kiosk-key-0123456789abcdef", display_web_max=2)
    assert "kiosk-key" not in repr(settings) and settings.display_web_max == 2
    with pytest.raises(ValidationError):
        Settings(display_web_max=0)


async def test_a_resize_is_clamped_too() -> None:
    from textual_serve.download_manager import DownloadManager

    from orderdash.tui.web import DisplayProcess

    async def nothing(*_args: object) -> None:
        return None

    process = DisplayProcess(
        "true",
        write_bytes=nothing,
        write_str=nothing,
        close=nothing,
        download_manager=DownloadManager(),
    )
    sent: list[dict[str, object]] = []

    async def send_meta(data: dict[str, object]) -> bool:
        sent.append(data)
        return True

    process.send_meta = send_meta  # type: ignore[method-assign]
    await process.set_terminal_size(3000, 3000)
    await process.set_terminal_size("40", {"x": 1})  # type: ignore[arg-type]
    assert [(m["width"], m["height"]) for m in sent] == [(MAX_COLUMNS, MAX_ROWS), (40, 24)]


async def test_a_process_blocked_on_a_full_pipe_is_killed_when_its_connection_ends() -> None:
    """The stuck process of the report: it writes more than anyone reads and never reads the
    request to quit. `stop` (the connection ended) kills it, its shell with it."""
    import asyncio
    import shlex
    import sys

    from textual_serve.download_manager import DownloadManager

    from orderdash.tui.web import QUIT_GRACE, DisplayProcess

    # textual's packets (b"D", a 4-byte length, the data), as fast as they can be written
    stuck = (
        "import sys; out = sys.stdout.buffer; out.write(b'__GANGLION__\\n'); out.flush(); "
        "packet = b'D' + (65536).to_bytes(4, 'big') + b'x' * 65536; "
        "[out.write(packet) for _ in iter(int, 1)]"
    )

    async def nothing(*_args: object) -> None:
        return None

    async def never(*_args: object) -> None:
        # a browser that reads nothing: the websocket's send never completes
        await asyncio.Event().wait()

    process = DisplayProcess(
        f"{shlex.quote(sys.executable)} -c {shlex.quote(stuck)}",
        write_bytes=never,
        write_str=nothing,
        close=nothing,
        download_manager=DownloadManager(),
    )
    await process.start(3000, 3000)
    child = process._process
    assert child is not None
    for _ in range(100):  # the pipe fills: the child blocks in write()
        await asyncio.sleep(0.1)
        group = descendants(child.pid) | {child.pid}
        if any("pipe_write" in waiting_in(pid) for pid in group):
            break
    else:
        raise AssertionError("the child never blocked on its full pipe")
    started = time.monotonic()
    await process.stop()
    took = time.monotonic() - started
    assert child.returncode is not None
    assert took <= QUIT_GRACE + 3, took
    await asyncio.sleep(0.2)
    assert not any(alive(pid) for pid in group), group


def waiting_in(pid: int) -> str:
    """The kernel function `pid` sleeps in ("anon_pipe_write": blocked writing to a pipe)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """`pid` runs (a zombie waiting for its parent to reap it does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"
