"""The core never imports textual or rich, and importing the CLI module loads nothing heavy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orderdash.core

CORE_ROOT = Path(orderdash.core.__file__).parent
CORE_MODULES = sorted(
    "orderdash.core." + ".".join(path.relative_to(CORE_ROOT).with_suffix("").parts)
    for path in CORE_ROOT.rglob("*.py")
    if path.stem != "__init__"
)


def imported_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(result.stdout.split())


def test_core_modules_are_found() -> None:
    assert {
        "orderdash.core.service.client",
        "orderdash.core.model.wire",
        "orderdash.core.settings.model",
    } <= set(CORE_MODULES)


def test_core_imports_without_textual_or_rich() -> None:
    modules = imported_after("\n".join(f"import {name}" for name in CORE_MODULES))
    assert set(CORE_MODULES) <= modules
    leaked = {m for m in modules if m.split(".")[0] in {"textual", "rich"}}
    assert not leaked, f"core pulled in {sorted(leaked)[:5]}"


def test_cli_module_import_is_light() -> None:
    modules = imported_after("import orderdash.cli")
    heavy = {m.split(".")[0] for m in modules} & {
        "textual",
        "rich",
        "qrcode",
        "starlette",
        "uvicorn",
        "httpx",
        "pydantic",
    }
    assert not heavy
