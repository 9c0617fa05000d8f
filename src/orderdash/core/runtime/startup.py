"""Start-up without the cyclic garbage collector.

Importing textual, pydantic and httpx and building the dashboard makes objects by the hundred
thousand, and the collector ran ~265 times meanwhile: ~70 ms of a ~500 ms start (measured by
wrapping bench/child_app.py with gc callbacks). `orderdash` pauses it first thing
(`cli.main`); a long-running command resumes it once it is up (the dashboard after its first
paint, `watch --jsonl` and `simulate` once started), first freezing what start-up made out of
every later collection (`gc.freeze`): those objects live as long as the process anyway, and
each full collection then walks only what came after. One-shot commands (`get`, `rates`) exit
before garbage could matter, and `main` turns the collector back on when it returns.

At exit CPython collects again, a full walk over every object still alive (most of them made
by the start-up), while it tears the modules down: ~30 ms of `orderdash get`'s ~250 ms, whether
the collector is on or off. `main` has the objects frozen at exit (`freeze_at_exit`), so that
walk skips them; the process is ending and its memory goes back to the system all the same.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import types
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
else:
    # importlib.abc costs ~25 ms of the start; the import system asks a loader for PEP 451's
    # create_module/exec_module only, not for that base class
    Loader = object

_paused = False
_freezes_at_exit = False


def pause() -> bool:
    """Stop the collector for the start-up; False when it was off already (left as it is)."""
    global _paused
    if not gc.isenabled():
        return False
    gc.disable()
    _paused = True
    return True


def freeze_at_exit() -> None:
    """Freeze every object at interpreter exit (hooked once per process, however often `main`
    runs). Only the collector's walk is skipped: other exit hooks (logging's flush and close of
    the log file) and the flush of stdout run as before; what the walk would have freed goes
    back to the system with the process."""
    global _freezes_at_exit
    if not _freezes_at_exit:
        _freezes_at_exit = True
        atexit.register(gc.freeze)


def resume() -> None:
    """Up and running: freeze what start-up made and collect again. Only undoes `pause`."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def end(paused: bool) -> None:
    """Leaving `main`: the collector back on if it is still paused (no freeze: the caller may
    go on, as a test calling `main` does)."""
    global _paused
    if paused and _paused:
        _paused = False
        gc.enable()


#: pydantic looks for plugins in every installed distribution's entry points when it builds
#: its first model (~10 ms of every start, more the more packages are installed). orderdash
#: uses none, and a plugin would see every value validated, the settings' secrets included.
PYDANTIC_NO_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")
#: pydantic's module that finds plugins.
_PLUGIN_LOADER = "pydantic.plugin._loader"


class _NoPluginsFound(Loader):
    """Imports pydantic's plugin finder as a module whose one function finds none."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: types.ModuleType | None = None, /
    ) -> ModuleSpec | None:
        if name != _PLUGIN_LOADER:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, self, origin="orderdash: no pydantic plugins")

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # an ordinary module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["get_plugins"] = tuple


_NO_PLUGINS_FOUND = _NoPluginsFound()


def no_pydantic_plugins() -> None:
    """No pydantic plugins (unless the environment names some to disable, pydantic's own
    switch). With all disabled, pydantic still imports its plugin finder when it builds its
    first model, and that module imports `importlib.metadata` (and zipfile, csv, email's
    parser) at its top: ~6 ms and ~0.75 MiB of every start, to answer "none". Its one function
    (pydantic 2.14: `get_plugins`, called by `plugin._schema_validator` only) is given that
    answer instead, by an import hook: nothing of pydantic loads before pydantic is used."""
    os.environ.setdefault(*PYDANTIC_NO_PLUGINS)
    if os.environ[PYDANTIC_NO_PLUGINS[0]] not in ("__all__", "1", "true"):
        return
    if _PLUGIN_LOADER not in sys.modules and _NO_PLUGINS_FOUND not in sys.meta_path:
        sys.meta_path.insert(0, _NO_PLUGINS_FOUND)
