"""The export's format is versioned by name (docs/books.md, `export --help`), never by a column
in every row, and its help says how to read the exact amounts."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from orderdash.cli.options import parse_command_line
from orderdash.core.books.export import EXPORT_VERSION, export_lines
from orderdash.core.books.orders import read_order
from orderdash.core.books.period import Period
from orderdash.core.model import jsontext

FIXTURE = Path(__file__).parents[1] / "fixtures" / "get_order_example.json"
DOCS = Path(__file__).parents[2] / "docs/books.md"


def _every_time() -> tuple[Period, Any]:
    """A period holding every time, and the documented example order."""
    order = jsontext.loads(FIXTURE.read_text(encoding="utf-8"))["data"]
    return Period(datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC), UTC), order


def test_no_row_carries_the_formats_version() -> None:
    period, order = _every_time()
    orders = [read_order(order)]
    for table in ("orders", "payments"):
        lines = list(export_lines(orders, period, table=table, fmt="csv"))
        rows = list(csv.reader(io.StringIO("".join(lines))))
        assert len(rows) >= 2 and "version" not in rows[0]
        assert rows[0][0] == ("token" if table == "orders" else "order")
        first = next(export_lines(orders, period, table=table, fmt="jsonl"))
        assert "version" not in json.loads(first)  # the first line is a row, as every line
    # the amounts are the service's decimal text, as sent
    text = "".join(export_lines(orders, period, table="orders", fmt="csv"))
    (row,) = list(csv.DictReader(io.StringIO(text)))
    assert row["amount"] == format(order["amount"], "f")


def test_the_help_and_the_docs_name_the_format_and_say_to_import_amounts_as_text(capsys) -> None:
    from orderdash.cli.options_books import EXPORT_FORMAT

    assert EXPORT_FORMAT == EXPORT_VERSION
    with pytest.raises(SystemExit):
        parse_command_line(["export", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"Export format {EXPORT_VERSION}" in said and "dtype=str" in said
    docs = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert f"Export format {EXPORT_VERSION}" in docs and "dtype=str" in docs
