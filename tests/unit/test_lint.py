"""The code base stays ruff-clean and type-checks (rules in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_check_is_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is part of the test extra"
    result = subprocess.run(
        [ruff, "check", "--output-format", "concise", "src", "tests", "scripts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.heavy
def test_mypy_finds_no_error_in_src() -> None:
    # ~10 s of CPU from a fresh clone (no .mypy_cache: CI's case), well under a second after
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],  # files, plugins and flags: pyproject.toml
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
