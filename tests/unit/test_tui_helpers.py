"""The helpers the App builds (`tui/`) are given what they use: none holds the App or reaches
into it for the session, the client, the ledger or another helper; what each asks of Textual
(a toast, a dialog, a worker) it names in a small Protocol, and every member of those is
Textual's App's own, never one orderdash's App adds."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from textual.app import App

TUI = Path(__file__).resolve().parents[2] / "src" / "orderdash" / "tui"

HELPERS = (
    "account.py",
    "account_switch.py",
    "alarms.py",
    "charges.py",
    "counter.py",
    "desk.py",
    "first_paint.py",
    "overlays.py",
    "watchlist_sync.py",
)


def reaches_for_the_app(source: str) -> list[str]:
    """Each place `source` holds the App or reads it: a parameter or a name `app`, an attribute
    `_app` or `_host`, the App's module or its Protocol imported."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.arg) and node.arg in ("app", "host"):
            found.append(f"line {node.lineno}: parameter {node.arg}")
        elif isinstance(node, ast.Name) and node.id == "app":
            found.append(f"line {node.lineno}: app")
        elif isinstance(node, ast.Attribute) and node.attr in ("_app", "_host"):
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "orderdash.tui.app":
            found.append(f"line {node.lineno}: imports the App")
        elif isinstance(node, ast.ImportFrom) and any(
            alias.name in ("DashboardHost", "OrderDashApp") for alias in node.names
        ):
            found.append(f"line {node.lineno}: imports the App's Protocol")
    return found


def protocol_members(source: str) -> dict[str, list[str]]:
    """The members each Protocol class of `source` names (its methods and attributes)."""
    members: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        if not any(isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases):
            continue
        names = [
            item.name if isinstance(item, ast.FunctionDef) else item.target.id
            for item in node.body
            if isinstance(item, ast.FunctionDef)
            or (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name))
        ]
        members[node.name] = [name for name in names if name != "__call__"]
    return members


def test_the_finder_sees_each_way_of_holding_the_app() -> None:
    source = (
        "from orderdash.tui.host import DashboardHost\n"
        "class Helper:\n"
        "    def __init__(self, app: object) -> None:\n"
        "        self._app = app\n"
        "    def act(self) -> None:\n"
        "        self._host.session.watch([])\n"
    )
    assert len(reaches_for_the_app(source)) == 5
    assert reaches_for_the_app("class Helper:\n    def __init__(self, ui: object): ...\n") == []


@pytest.mark.parametrize("name", HELPERS)
def test_a_helper_holds_what_it_uses_not_the_app(name: str) -> None:
    assert reaches_for_the_app((TUI / name).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("name", [*HELPERS, "ui.py"])
def test_what_a_helper_asks_of_textual_is_textuals_own(name: str) -> None:
    for protocol, members in protocol_members((TUI / name).read_text(encoding="utf-8")).items():
        added = [member for member in members if not hasattr(App, member)]
        assert added == [], f"{name}: {protocol} names what Textual's App lacks: {added}"
