"""The command table: every command the parser knows runs from a public function of its own
module (named as a string, imported when the command runs: a misspelt name would only show
when someone ran that command)."""

from __future__ import annotations

import importlib

from orderdash.cli import COMMANDS, RUNS


def test_every_command_of_the_parser_has_a_run() -> None:
    assert set(COMMANDS) <= set(RUNS)
    assert set(RUNS) - set(COMMANDS) == {"close --verify"}


def test_each_run_is_a_public_function_of_a_command_module() -> None:
    for name, run in RUNS.items():
        module = importlib.import_module(f"orderdash.cli.{run.module}")
        function = getattr(module, run.function, None)
        assert callable(function), name
        assert not run.function.startswith("_"), name
        assert function.__module__ == module.__name__, name  # its own, not one imported there
