"""Reaching the operator's desktop: the system clipboard and the web browser.

A terminal's clipboard sequence (OSC 52) is dropped silently by many terminals and by tmux's
default settings, so a copy is only called "copied" when a clipboard tool took it. Opening a
link with no browser to open it in (no display, or over SSH) would do nothing visible, or start
a text browser inside the dashboard's terminal: the link is then shown as text instead.
Both tools are run off the event loop (a thread worker) with a timeout, and neither is given
the secrets' environment variables (`child_environment`). `webbrowser` starts the browser with
this process's whole environment, so the browser is opened from a short-lived Python of its
own, started with the environment cleaned (changing this process's environment around the call
would race with every other thread).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping

from orderdash.core.settings.sources import child_environment

#: How long a clipboard tool may take before the copy counts as failed.
CLIPBOARD_TIMEOUT = 2.0
#: How long the browser's opener may take (it returns once the browser has the link).
BROWSER_TIMEOUT = 20.0
#: The opener: `webbrowser.open(argv[1])` in a new interpreter; exit status 0 when a browser
#: took the link.
_OPEN_IN_BROWSER = (
    "import sys, webbrowser; sys.exit(0 if webbrowser.open(sys.argv[1], new=2) else 1)"
)
#: (program, its arguments to read the clipboard's text from stdin, the variable it needs)
CLIPBOARD_TOOLS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("wl-copy", (), "WAYLAND_DISPLAY"),
    ("xclip", ("-selection", "clipboard"), "DISPLAY"),
    ("xsel", ("--clipboard", "--input"), "DISPLAY"),
    ("pbcopy", (), None),
)


def clipboard_tool(
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str] | None:
    """The command that puts its stdin on the system clipboard here, or None."""
    for program, arguments, needs in CLIPBOARD_TOOLS:
        if needs is not None and not env.get(needs):
            continue
        path = which(program)
        if path is not None:
            return [path, *arguments]
    return None


def copy_with(command: list[str], text: str, timeout: float = CLIPBOARD_TIMEOUT) -> bool:
    """Run the clipboard tool on `text` (blocking: call it from a thread); True if it took it.
    Its output goes nowhere: xclip stays in the background serving the selection, and a pipe
    it kept open would hold this call until the timeout."""
    try:
        data = text.encode("utf-8")
    except UnicodeError:
        return False
    return _ran(command, timeout, data)


def browser_available(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> bool:
    """A graphical browser can open here: one is named (BROWSER), or a desktop is (macOS,
    Windows, an X or Wayland display), and not over SSH, where it would open on the far
    machine if anywhere."""
    if env.get("BROWSER"):
        return True
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str, timeout: float = BROWSER_TIMEOUT) -> bool:
    """Open `url` in the browser (blocking: call it from a thread); False when none took it."""
    return _ran([sys.executable, "-I", "-c", _OPEN_IN_BROWSER, url], timeout)


def _ran(command: list[str], timeout: float, data: bytes | None = None) -> bool:
    """Run a desktop tool with `data` on its stdin (nothing: none), its output nowhere and the
    environment of a child (no secret); True when it ran and said yes."""
    try:
        done = subprocess.run(
            command,
            input=data,
            stdin=subprocess.DEVNULL if data is None else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
            env=child_environment(),
        )
    except (OSError, subprocess.SubprocessError, UnicodeError):
        return False
    return done.returncode == 0
