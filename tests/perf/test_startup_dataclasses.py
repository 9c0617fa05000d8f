"""What our dataclasses cost the dashboard's start-up."""

from __future__ import annotations

import textwrap

from conftest import run_python

#: The methods `@dataclass` generates for our classes loaded by `orderdash tui` before its first
#: paint (91 when this was written, 198 before issue 16). Raise it knowingly, not by habit.
MAX_GENERATED_METHODS = 100


def test_start_up_compiles_few_dataclass_methods() -> None:
    """CPython 3.11 compiles every method `@dataclass` generates (`__init__`, `__repr__`,
    `__eq__`, `__hash__`, a frozen class's `__setattr__`/`__delattr__`) apart, from source, as
    the class is made: ~0.1 ms of CPU and ~2 KiB each, all before the first paint, on the one
    thread that paints. So a Textual message is a plain class (an event, equal only to itself),
    a state holder compares by identity (`eq=False`), and a value keeps `eq` where it is
    compared or hashed and `repr` where a test's failure shows it."""
    code = textwrap.dedent(
        """
        import sys
        import orderdash.cli, orderdash.tui.app

        def generated(f):
            f = getattr(f, "__wrapped__", f)  # __repr__ is wrapped against recursion
            return getattr(getattr(f, "__code__", None), "co_filename", "") == "<string>"

        classes = [
            c
            for name, module in list(sys.modules.items())
            if name.startswith("orderdash")
            for c in vars(module).values()
            if isinstance(c, type) and c.__module__ == name and "__dataclass_fields__" in vars(c)
        ]
        print(len(classes), sum(generated(f) for c in classes for f in vars(c).values()))
        """
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    classes, generated = map(int, result.stdout.split())
    assert classes > 20  # the walk found the start-up's dataclasses
    assert generated <= MAX_GENERATED_METHODS
