"""The settlement in Koinly's universal CSV layout (`orderdash export --table settlement
--profile koinly`): one income row per payment the close counts in `received`.

The layout is Koinly's own, its columns in their order, as its help pages describe the
universal template and its dates ("YYYY-MM-DD HH:MM UTC", always in UTC):
https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data
(earlier https://help.koinly.io/en/articles/3662999-how-can-i-import-my-own-custom-csv-file);
the tag that makes a deposit income ("Income", a static income tag):
https://support.koinly.io/en/articles/9490023-what-are-tags
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime

from orderdash.core.books.export import write_csv

KOINLY_COLUMNS: tuple[str, ...] = (
    "Date",
    "Sent Amount",
    "Sent Currency",
    "Received Amount",
    "Received Currency",
    "Fee Amount",
    "Fee Currency",
    "Net Worth Amount",
    "Net Worth Currency",
    "Label",
    "Description",
    "TxHash",
)
KOINLY_NUMERIC = frozenset({"Sent Amount", "Received Amount", "Fee Amount", "Net Worth Amount"})
#: Koinly's date format: UTC, to the minute, the zone named.
KOINLY_DATE = "%Y-%m-%d %H:%M UTC"
#: The tag Koinly counts a deposit's worth as income by.
KOINLY_INCOME = "Income"


def koinly_row(row: Mapping[str, object]) -> dict[str, str]:
    """A payment row of the settlement (`settlement.settlement_rows`) as Koinly's: received in
    coin, its worth in fiat at the payment's rate, the order named in the description."""
    at = datetime.fromisoformat(str(row["at"])).astimezone(UTC)
    return {
        "Date": at.strftime(KOINLY_DATE),
        "Sent Amount": "",
        "Sent Currency": "",
        "Received Amount": str(row["amount"]),
        "Received Currency": str(row["coin"]),
        "Fee Amount": "",
        "Fee Currency": "",
        "Net Worth Amount": str(row["fiat"]),
        "Net Worth Currency": str(row["currency"]),
        "Label": KOINLY_INCOME,
        "Description": f"order {row['order']}",
        "TxHash": str(row["hash"]),
    }


def koinly_lines(rows: Iterable[Mapping[str, object]]) -> Iterator[str]:
    """The settlement's payment rows as Koinly's CSV (its adjustments are no transactions)."""
    income = (koinly_row(row) for row in rows if row["row"] == "payment")
    return write_csv(income, KOINLY_COLUMNS, KOINLY_NUMERIC)
