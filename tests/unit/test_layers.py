"""The import rules of the layers, read from the source with `ast` (every import counts: at the
top, inside a function, under `TYPE_CHECKING`), and checked again on what a real import loads.

- no module of `src/orderdash` takes part in an import cycle;
- the core never imports textual, rich, the TUI or the simulator;
- the TUI never imports the simulator (the demo is wired in the CLI), nor the CLI;
- the callback receiver's web server imports neither the TUI nor the CLI;
- private Textual names (`textual._*`, `textual.widgets._*`) only in `tui/compat/`.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

import orderdash

PACKAGE_ROOT = Path(orderdash.__file__).parent


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package at `root`."""
    modules = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported_names(module: str, path: Path) -> set[str]:
    """Every module name an import statement of `path` names (absolute, relative resolved)."""
    names = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            names.add(source)
            # `from package import module` names the module too
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    modules = module_files(root)

    def own(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    if root == PACKAGE_ROOT:
        imports = all_imports()
    else:
        imports = {module: imported_names(module, path) for module, path in modules.items()}
    graph = {}
    for module, names in imports.items():
        targets = {own(name) for name in names}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def all_imports() -> dict[str, set[str]]:
    return {module: set(names) for module, names in package_imports().items()}


@functools.cache
def package_imports() -> dict[str, frozenset[str]]:
    """The package's imports, read once a test process: its source does not change during a
    run, and each read parses every module (about 0.7 s of CPU; ten tests here read them)."""
    return {
        module: frozenset(imported_names(module, path))
        for module, path in module_files(PACKAGE_ROOT).items()
    }


def test_the_cycle_finder_sees_a_cycle_even_under_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import C\n"
    )
    (package / "c.py").write_text("def f():\n    import pkg.a\n")
    (package / "d.py").write_text("import pkg.a\n")
    assert cycles(import_graph(package)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_no_module_takes_part_in_an_import_cycle() -> None:
    graph = import_graph(PACKAGE_ROOT)
    assert "orderdash.core.service.client" in graph
    assert cycles(graph) == []


def names_any(name: str, forbidden: tuple[str, ...]) -> bool:
    """`name` is one of `forbidden` or inside one (`textual.app`, not `textualize`)."""
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize(
    ("layer", "forbidden", "least"),
    [
        (
            "orderdash.core",
            ("textual", "rich", "orderdash.tui", "orderdash.simulator", "orderdash.headless"),
            4,
        ),
        ("orderdash.tui", ("orderdash.simulator", "orderdash.cli"), 4),
        ("orderdash.simulator", ("textual", "rich", "orderdash.tui"), 4),
        ("orderdash.callback_server", ("textual", "rich", "orderdash.tui", "orderdash.cli"), 3),
    ],
)
def test_layer_contract(layer: str, forbidden: tuple[str, ...], least: int) -> None:
    found = {
        module: sorted(n for n in names if names_any(n, forbidden))
        for module, names in all_imports().items()
        if names_any(module, (layer,))
    }
    assert len(found) >= least  # the layer's modules were read
    assert not {module: bad for module, bad in found.items() if bad}


def test_private_textual_names_only_in_compat() -> None:
    private = {
        module: sorted(n for n in names if n.startswith("textual") and "._" in f".{n}")
        for module, names in all_imports().items()
        if not module.startswith("orderdash.tui.compat")
    }
    assert not {m: n for m, n in private.items() if n}
    # the check does see them where they are
    compat = all_imports()["orderdash.tui.compat.toast"]
    assert "textual.widgets._toast" in compat


def test_the_app_module_loads_neither_the_simulator_nor_its_server() -> None:
    code = (
        "import sys\nimport orderdash.tui.app\n"
        "print('\\n'.join(m for m in sys.modules if m.split('.')[0] in "
        "('starlette', 'uvicorn') or m.startswith('orderdash.simulator')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.split() == []
    assert "orderdash.tui.app" in all_imports()


#: Names under which a module holds the App (or its Protocol): never typed `Any`.
APP_NAMES = ("app", "_app", "host", "_host")


def app_typed_any(source: str) -> list[str]:
    """Where `source` types a reference to the App as `Any`: a parameter, an attribute or a
    property named like the App (`APP_NAMES`) annotated `Any`, or `cast(Any, ...app...)`."""

    def is_any(node: ast.expr | None) -> bool:
        return node is not None and any(
            (isinstance(n, ast.Name) and n.id == "Any")
            or (isinstance(n, ast.Attribute) and n.attr == "Any")
            or (isinstance(n, ast.Constant) and isinstance(n.value, str) and "Any" in n.value)
            for n in ast.walk(node)
        )

    def names_app(name: str) -> bool:
        return name in APP_NAMES or name.endswith("_app")

    def holds_app(value: ast.expr | None) -> bool:
        """`value` is the App under its name (`app`, `self.app`, `self._app`)."""
        if isinstance(value, ast.Name):
            return names_app(value.id)
        return isinstance(value, ast.Attribute) and names_app(value.attr)

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.arg) and names_app(node.arg) and is_any(node.annotation):
            found.append(f"parameter {node.arg} (line {node.lineno})")
        elif isinstance(node, ast.AnnAssign) and is_any(node.annotation):
            target = node.target
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if names_app(name) or holds_app(node.value):
                found.append(f"attribute {name} (line {node.lineno})")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if names_app(node.name) and is_any(node.returns):
                found.append(f"function {node.name} (line {node.lineno})")
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "cast"
            and node.args
            and is_any(node.args[0])
            and any("app" in ast.unparse(arg) for arg in node.args[1:])
        ):
            found.append(f"cast to Any (line {node.lineno})")
    return found


def test_the_app_finder_sees_each_kind_of_any() -> None:
    source = (
        "from typing import Any, cast\n"
        "class A:\n"
        "    app: Any\n"
        "    def __init__(self, app: Any, *, _host: 'Any | None' = None) -> None:\n"
        "        self._app: Any = app\n"
        "        self._owner: typing.Any = self.app\n"
        "        self._value: Any = value\n"
        "    @property\n"
        "    def _app(self) -> 'Any':\n"
        "        return cast(Any, self.app)\n"
        "def fine(app: 'App[None]', value: Any) -> Any: ...\n"
    )
    assert sorted(where.split(" (")[0] for where in app_typed_any(source)) == [
        "attribute _app",
        "attribute _owner",
        "attribute app",
        "cast to Any",
        "function _app",
        "parameter _host",
        "parameter app",
    ]


def test_no_tui_module_holds_the_app_typed_any() -> None:
    """The screens and helpers see the App typed (`tui/host.py`), or through the session: an
    `Any` would hide a back-reference from the cycle check above."""
    tui = PACKAGE_ROOT / "tui"
    found = {
        str(path.relative_to(PACKAGE_ROOT)): where
        for path in sorted(tui.rglob("*.py"))
        if (where := app_typed_any(path.read_text(encoding="utf-8")))
    }
    assert len(list(tui.rglob("*.py"))) > 20  # the TUI's modules were read
    assert found == {}


#: Lines a module may have: one job a file. Past `NAMED_JOB_LINES` a module names its one job in
#: `MODULE_JOBS`, with a cap that fits that job (at most `MAX_MODULE_LINES`); some parts have a
#: lower cap (the App and the dashboard screen hand their work on; the service's client is split
#: by job, httpx's way). No module comes within `CAP_MARGIN` lines of its cap: one that does
#: grows by squeezing lines, not by being split along its jobs.
MAX_MODULE_LINES = 600
NAMED_JOB_LINES = 400
CAP_MARGIN = 10
SIZE_LIMITS = {
    "tui/app.py": 300,
    # the dashboard screen: composes its panes, routes the watcher's reports, and its own keys
    "tui/screens/dashboard.py": 350,
    "core/service/": 400,
}
MODULE_JOBS: dict[str, tuple[int, str]] = {
    "cli/options.py": (600, "the command line's parser, every command's options"),
    "cli/render.py": (600, "what the one-shot commands print, as text or JSON"),
    "core/ledger/store.py": (600, "the book on a database (SQLite, PostgreSQL) and its schema"),
    "core/settings/model.py": (500, "every setting: its type, default, bounds and checks"),
    "core/notify/sender.py": (600, "sending notifications from one thread, with retries"),
    "core/polling/scheduler.py": (600, "which order to read next, within the request budgets"),
    "core/polling/watcher.py": (600, "running the scheduler's reads and reporting each"),
    "core/qr/image.py": (600, "the service's QR image back to its exact module grid"),
    "core/service/client.py": (450, "the order API's client: one method per endpoint"),
    "core/watching/session.py": (600, "every change to what is watched, kept in step"),
    "core/watching/state.py": (
        600,
        "the dashboard's state: the watch list, its undo and the watcher's reports",
    ),
    "simulator/state.py": (600, "the simulated service's state behind one lock"),
    "tui/screens/charge.py": (600, "the new charge screen, from the amount to the coin"),
    "tui/widgets/customer.py": (600, "what the customer sees of an order, as one widget"),
    "tui/widgets/order_detail.py": (600, "the order detail pane"),
    "tui/widgets/qr.py": (600, "a QR code drawn in half blocks, with its text"),
    "tui/widgets/transactions.py": (600, "the transactions table, updated by id"),
    "tui/widgets/watch_list.py": (600, "the watch list's table, its filters and its order"),
}


def module_cap(name: str) -> int:
    """The lines `name` (a path in the package) may have."""
    if name in MODULE_JOBS:
        return MODULE_JOBS[name][0]
    prefixes = (n for prefix, n in SIZE_LIMITS.items() if name.startswith(prefix))
    return next(prefixes, MAX_MODULE_LINES)


def module_lines() -> dict[str, int]:
    return {
        path.relative_to(PACKAGE_ROOT).as_posix(): len(
            path.read_text(encoding="utf-8").splitlines()
        )
        for path in sorted(PACKAGE_ROOT.rglob("*.py"))
    }


def test_no_module_outgrows_its_job() -> None:
    over = [
        f"{name}: {lines} lines (at most {module_cap(name)})"
        for name, lines in module_lines().items()
        if lines > module_cap(name)
    ]
    assert over == []


#: The core's floors, from the ground up, as import-linter's layers contract: a folder of the
#: core (or a module at its top) imports only folders on the floors below its own, and the
#: folders of one floor import none of each other. Every import counts (at the top, inside a
#: function, under `TYPE_CHECKING`).
CORE_FLOORS: tuple[tuple[str, ...], ...] = (
    ("safetext", "jsontypes"),
    ("model",),  # the wire models, what a read returns, the errors, exact JSON
    ("runtime",),  # the process: the log file, the start-up switches, the collector
    ("service", "domain"),  # the transport; what an order means
    ("ledger", "polling", "qr"),
    ("books", "customer", "receiver"),  # receiver: the service's callbacks, as hints
    ("watching",),
    ("notify",),
    ("settings",),  # they name every feature's options
    ("doctor",),  # the checks before a shop opens: of every part, with its settings
    ("usecases",),
)


def folder_imports(imports: dict[str, set[str]], package: str) -> dict[tuple[str, str], set[str]]:
    """(importing folder, imported folder) -> the modules importing so, between the folders of
    `package` (a module at its top counts as a folder of its own)."""
    depth = len(package.split("."))
    found: dict[tuple[str, str], set[str]] = {}
    for module, names in imports.items():
        parts = module.split(".")
        if not module.startswith(package + ".") or len(parts) <= depth:
            continue
        for name in names:
            target = name.split(".")
            if name.startswith(package + ".") and target[depth] != parts[depth]:
                found.setdefault((parts[depth], target[depth]), set()).add(module)
    return found


def floor_breaches(
    edges: dict[tuple[str, str], set[str]], floors: tuple[tuple[str, ...], ...]
) -> list[str]:
    """Each import of a folder on its own floor or one above it, and each folder on no floor."""
    floor_of = {folder: level for level, floor in enumerate(floors) for folder in floor}
    breaches = []
    for (source, target), modules in sorted(edges.items()):
        for folder in (source, target):
            if folder not in floor_of:
                breaches.append(f"{folder} is on no floor")
        if source in floor_of and target in floor_of and floor_of[target] >= floor_of[source]:
            breaches.append(f"{source} -> {target} ({', '.join(sorted(modules))})")
    return sorted(set(breaches))


def test_the_floor_check_sees_an_import_upwards_or_sideways() -> None:
    imports = {
        "pkg.low.a": {"pkg.side"},
        "pkg.side": {"pkg.low.a", "os"},
        "pkg.top.b": {"pkg.low.a", "pkg.top.c", "pkg.new.d"},
        "pkg": {"pkg.top.b"},
    }
    edges = folder_imports(imports, "pkg")
    assert set(edges) == {("low", "side"), ("side", "low"), ("top", "low"), ("top", "new")}
    assert floor_breaches(edges, (("low", "side"), ("top",))) == [
        "low -> side (pkg.low.a)",
        "new is on no floor",
        "side -> low (pkg.side)",
    ]
    assert floor_breaches({("top", "low"): {"pkg.top.b"}}, (("low",), ("top",))) == []
    assert floor_breaches({("low", "top"): {"pkg.low.a"}}, (("low",), ("top",))) == [
        "low -> top (pkg.low.a)"
    ]


def test_each_folder_of_the_core_imports_only_the_floors_below_it() -> None:
    edges = folder_imports(all_imports(), "orderdash.core")
    assert ("settings", "model") in edges  # the core's folders were read
    assert floor_breaches(edges, CORE_FLOORS) == []
    folders = {folder for edge in edges for folder in edge}
    assert cycles({f: {b for (a, b) in edges if a == f} for f in folders}) == []


def test_a_long_module_names_its_one_job() -> None:
    lines = module_lines()
    unnamed = [
        f"{name}: {n} lines and no job in MODULE_JOBS"
        for name, n in lines.items()
        if n > NAMED_JOB_LINES and name not in MODULE_JOBS
    ]
    assert unnamed == []
    # a job named for a module that is no longer there is stale (moved, split or renamed)
    assert sorted(set(MODULE_JOBS) - set(lines)) == []
    for name, (cap, job) in MODULE_JOBS.items():
        assert job.strip() and cap <= MAX_MODULE_LINES, name


def test_no_module_is_squeezed_under_its_cap() -> None:
    close = [
        f"{name}: {n} lines, within {CAP_MARGIN} of its cap {module_cap(name)}"
        for name, n in module_lines().items()
        if module_cap(name) - n <= CAP_MARGIN
    ]
    assert close == []


def test_the_cli_and_the_tui_reach_the_books_only_through_the_use_cases() -> None:
    """The use cases (`core/usecases`) are the books' one door for the commands and the
    dashboard: no CLI or TUI module imports `core/books` itself, at the top, inside a function
    or under `TYPE_CHECKING`."""
    books = ("orderdash.core.books",)
    through = {
        module: sorted(n for n in names if names_any(n, books))
        for module, names in all_imports().items()
        if names_any(module, ("orderdash.cli", "orderdash.tui"))
    }
    assert "orderdash.cli.books" in through and "orderdash.tui.books" in through  # read
    assert any(
        names_any(n, ("orderdash.core.usecases",)) for n in all_imports()["orderdash.cli.books"]
    )
    assert {module: names for module, names in through.items() if names} == {}
