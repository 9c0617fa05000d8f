"""The books' commands' own options (`close`, `attention`, `export`, `resolve`, `stats`); each
command also takes the connection options (`options.py`, which puts both together)."""

from __future__ import annotations

import argparse


def add_period_options(parser: argparse.ArgumentParser, *, day: bool) -> None:
    group = parser.add_argument_group("period")
    if day:
        group.add_argument(
            "--day",
            metavar="YYYY-MM-DD",
            help="that day, midnight to midnight in the store's time zone (default: today)",
        )
    group.add_argument(
        "--since",
        metavar="TIME",
        required=not day,
        help="from this ISO-8601 time (with an offset, or in the store's time zone)",
    )
    group.add_argument(
        "--until", metavar="TIME", required=not day, help="until this ISO-8601 time (excluded)"
    )
    group.add_argument(
        "--tz",
        metavar="ZONE",
        help="the store's time zone, an IANA name such as Europe/Berlin (the timezone "
        "setting; default: this machine's)",
    )


def close_arguments(close: argparse.ArgumentParser) -> None:
    add_period_options(close, day=True)
    tills = close.add_mutually_exclusive_group()
    tills.add_argument(
        "--till", metavar="NAME", help="one till's shift: the orders that till charged"
    )
    tills.add_argument(
        "--all-tills",
        action="store_true",
        help="the whole shop: every order of the account (the default)",
    )
    output = close.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--csv", action="store_true", help="print the report as CSV")
    close.add_argument(
        "--dry-run", action="store_true", help="build the report and show it, without closing"
    )
    close.add_argument(
        "--verify",
        action="store_true",
        help="check every close of the till (--till; the shop's by default) in the ledger: "
        "each against its digest and the chain of digests; exit 7 naming the first that does "
        "not match (nothing is read from the service)",
    )


def attention_arguments(attention: argparse.ArgumentParser) -> None:
    attention.add_argument(
        "--days",
        type=int,
        default=7,
        metavar="N",
        help="the orders created in the last N days, 1 to 31 (7)",
    )
    attention.add_argument(
        "--json", action="store_true", help="print one JSON object (version 1), exact digits"
    )


def export_arguments(export: argparse.ArgumentParser) -> None:
    add_period_options(export, day=False)
    export.add_argument(
        "--table",
        choices=("orders", "payments", "settlement"),
        required=True,
        help="one row per order created in the period, or per payment made in it; settlement: "
        "the close's payments and the parts of its difference, rows that sum to the close",
    )
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="(csv)")
    export.add_argument(
        "--till",
        metavar="NAME",
        help="settlement: one till's shift (the orders that till charged; default: the shop)",
    )
    export.add_argument(
        "--profile",
        choices=("koinly",),
        help="settlement: Koinly's universal CSV layout, one income row per payment",
    )
    export.add_argument(
        "--output",
        metavar="FILE",
        help="write to FILE (never over one that exists) instead of standard output; a CSV "
        "settlement's header goes to FILE.digest beside it",
    )
    export.epilog = EXPORT_EPILOG


#: The export format's version (`core/books/export.py` EXPORT_VERSION; a test holds the two
#: together: this module stays argparse only) and how to read its amounts.
EXPORT_FORMAT = 2
EXPORT_EPILOG = (
    f"Export format {EXPORT_FORMAT} (docs/books.md, Exports): the columns are named in the CSV's "
    "header and are the keys of each JSON line; the version is in no row. Amounts are exact "
    "decimal text, the service's own digits (18 decimals for ETH): import them as text, not "
    "numbers (a spreadsheet's text columns; pandas: dtype=str), and sum them as decimals "
    "(Python's Decimal), never as floats. The settlement has its own format (version 1, in "
    "its header): a JSON first line, or FILE.digest beside a CSV."
)


def resolve_arguments(resolve: argparse.ArgumentParser) -> None:
    resolve.add_argument("token", help="order token")
    resolve.add_argument(
        "--as",
        dest="kind",
        required=True,
        choices=("settled", "refunded", "written-off", "asked-customer"),
        help="how the order was resolved",
    )
    resolve.add_argument("--reason", required=True, metavar="TEXT", help="why, in one line")
    resolve.add_argument(
        "--refund-at",
        metavar="payment|today|RATE",
        help="work out the refund: the excess (or late payment) in coin at the payment's rate, "
        "today's rate (the rate endpoint), or a typed rate (fiat for one coin)",
    )
    resolve.add_argument(
        "--fee", metavar="AMOUNT", help="network fee in coin taken off the refund (digits)"
    )
    resolve.add_argument(
        "--operator", metavar="NAME", help="who resolves it (the operator setting; login name)"
    )
    resolve.add_argument("--json", action="store_true", help="print the resolution as JSON")


#: The customer display's languages (`core/customer/catalogue.py` LANGUAGES; a test holds the
#: two together: this module stays argparse only).
RECEIPT_LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ja")


def receipt_arguments(receipt: argparse.ArgumentParser) -> None:
    receipt.add_argument("token", help="order token")
    receipt.add_argument(
        "--width",
        type=int,
        choices=(32, 42, 48),
        help="the paper's width in columns: 32 (58 mm), 42 or 48 (80 mm) (42)",
    )
    receipt.add_argument(
        "--language",
        choices=RECEIPT_LANGUAGES,
        help="the customer's language (the language setting; English where it is auto and LANG "
        "names none shipped)",
    )
    receipt.add_argument(
        "--tz",
        metavar="ZONE",
        help="the store's time zone, an IANA name such as Europe/Berlin (the timezone setting)",
    )
    receipt.add_argument(
        "--escpos",
        metavar="FILE",
        help="write the receipt as ESC/POS bytes to FILE instead of the receipt_printer (the "
        "receipt extra)",
    )
    receipt.add_argument(
        "--reprint",
        action="store_true",
        help="print a copy of the receipt printed before, marked REPRINT",
    )


def stats_arguments(stats: argparse.ArgumentParser) -> None:
    span = stats.add_mutually_exclusive_group()
    span.add_argument(
        "--day",
        metavar="YYYY-MM-DD",
        help="that day, midnight to midnight in the store's time zone, hour by hour (default: "
        "today)",
    )
    span.add_argument("--week", action="store_true", help="the seven days ending today, day by day")
    stats.add_argument(
        "--tz",
        metavar="ZONE",
        help="the store's time zone, an IANA name such as Europe/Berlin (the timezone "
        "setting; default: this machine's)",
    )
    stats.add_argument(
        "--json", action="store_true", help="print one JSON object (version 1), exact digits"
    )
