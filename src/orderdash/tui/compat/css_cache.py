"""Textual 8.2.8 parses the TCSS of the app and of every widget class it meets at each start:
26 sources, ~14 KB of text, ~20 ms of the dashboard's first paint (bench/child_app.py, counted
around `Stylesheet._parse_rules`), the same text every time. Its own cache lives as long as one
stylesheet.

The parsed rules are kept in the user's cache directory and read back at the next start
(~2 ms), like Python's byte-code cache: each entry is keyed by everything the parse depends on
(the text, where it was read from, its flags and scope, the CSS variables it substitutes) and
the file by the Textual code that parses and the classes it builds (their files' sizes and
times), so a change in any of them parses again. Every hit is unpickled afresh, so no two
stylesheets share rule objects.

The file is pickled: it is read only when the user owns it and nobody else may write to it
(made 0600 in a 0700 directory), and anything wrong with it (missing, foreign, too big,
truncated, from another Textual) means parsing as without it. An app writes it once it is up
(`save_in_background`), only when something was parsed, with what this process parsed or read.

Test: tests/test_compat.py::test_the_parsed_css_is_read_back_the_same_at_the_next_start.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import stat
import sys
import threading
from pathlib import Path
from typing import Any

from textual.css.stylesheet import Stylesheet

log = logging.getLogger(__name__)

#: Bumped when what an entry holds changes.
FORMAT = 1
#: A cache file larger than this is not ours to read (ours is ~60 KB).
MAX_BYTES = 4 * 1024 * 1024
#: The modules whose code parses TCSS or defines what the parsed rules are made of.
_PARSER_MODULES = (
    "textual",
    "textual.color",
    "textual.geometry",
    "textual.css._styles_builder",
    "textual.css.constants",
    "textual.css.model",
    "textual.css.parse",
    "textual.css.scalar",
    "textual.css.styles",
    "textual.css.tokenize",
    "textual.css.tokenizer",
    "textual.css.types",
)

_ORIGINAL_PARSE_RULES = Stylesheet._parse_rules

_lock = threading.Lock()
#: The file's entries once read (None: not read yet), and every entry this process used.
_stored: dict[tuple[Any, ...], bytes] | None = None
_used: dict[tuple[Any, ...], bytes] = {}
_unsaved = False
#: The last variables seen and their digest (stylesheets replace the dict when they change).
_variables_digest: tuple[dict[str, str], str] | None = None


def cache_path() -> Path:
    """This Textual's and this Python's cache file in the user's cache directory."""
    from platformdirs import user_cache_path

    parser = hashlib.sha256()
    for name in _PARSER_MODULES:
        module = sys.modules.get(name)
        source = getattr(module, "__file__", None)
        if source is None:
            parser.update(f"{name}:missing;".encode())
            continue
        try:
            info = os.stat(source)
        except OSError:
            parser.update(f"{name}:unreadable;".encode())
            continue
        parser.update(f"{name}:{source}:{info.st_size}:{info.st_mtime_ns};".encode())
    python = "".join(map(str, sys.version_info[:2]))
    name = f"css-{FORMAT}-py{python}-{parser.hexdigest()[:16]}.pickle"
    return user_cache_path("orderdash") / name


def _read(path: Path) -> dict[tuple[Any, ...], bytes]:
    if not hasattr(os, "getuid"):
        return {}  # no owner to check: no cache
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.getuid()
            or info.st_mode & 0o022
            or info.st_size > MAX_BYTES
        ):
            log.debug("css cache %s ignored: not the user's own file", path)
            return {}
        try:
            entries = pickle.loads(handle.read(MAX_BYTES + 1))
        except Exception:  # a truncated or foreign file: parse as without it
            log.debug("css cache %s ignored: unreadable", path, exc_info=True)
            return {}
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, tuple) and isinstance(v, bytes)}


def _digest(variables: dict[str, str]) -> str:
    global _variables_digest
    if _variables_digest is None or _variables_digest[0] is not variables:
        text = repr(sorted(variables.items())).encode()
        _variables_digest = (variables, hashlib.sha256(text).hexdigest())
    return _variables_digest[1]


def _parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    global _stored, _unsaved
    own_key = (css, read_from, is_default_rules, tie_breaker, scope)
    if own_key in self._parse_cache:  # Textual's own cache: the same objects, as before
        return _ORIGINAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
    key = (*own_key, _digest(self._variables))
    with _lock:
        if _stored is None:
            _stored = _read(cache_path())
        stored = _stored.get(key)
    if stored is not None:
        try:
            rules = pickle.loads(stored)
        except Exception:
            log.debug("css cache entry for %s unreadable", read_from, exc_info=True)
        else:
            with _lock:
                _used[key] = stored
            self._parse_cache[own_key] = rules
            return rules
    rules = _ORIGINAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
    if key in _used:  # kept already (another stylesheet of this process parsed it)
        return rules
    try:
        entry = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a rule Textual builds that cannot be pickled: parsed each time
        log.debug("css cache cannot keep %s", read_from, exc_info=True)
        return rules
    with _lock:
        _used[key] = entry
        _unsaved = True
    return rules


def save() -> None:
    """Write what this process parsed or read, if it parsed anything (atomically, 0600)."""
    global _unsaved
    with _lock:
        if not _unsaved or not hasattr(os, "getuid"):
            return
        entries = dict(_used)
        _unsaved = False
    import tempfile  # only to write: it loads shutil and the compression modules

    path = cache_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".css-", dir=path.parent)
        try:
            with os.fdopen(descriptor, "wb") as handle:  # mkstemp makes it 0600
                pickle.dump(entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        log.debug("css cache %s not written", path, exc_info=True)


def save_in_background() -> None:
    """`save` off the event loop; the interpreter waits for it at exit (a few ms at most)."""
    with _lock:
        if not _unsaved:
            return
    threading.Thread(target=save, name="orderdash-css-cache", daemon=False).start()


def install() -> None:
    if Stylesheet._parse_rules is _ORIGINAL_PARSE_RULES:
        Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]
