"""What `orderdash get` and `orderdash rates` print: one order as read."""

from __future__ import annotations

from dataclasses import dataclass

from orderdash.cli.render import warnings_said
from orderdash.core.jsontypes import JSONValue
from orderdash.core.model.results import Fetched
from orderdash.core.safetext import clean


@dataclass(frozen=True, slots=True)
class OrderRead:
    """One order as read (`get`, `rates`), and the token the command line asked for."""

    fetched: Fetched
    asked: str
    exit_code: int = 0

    def notes(self) -> list[str]:
        answered = self.fetched.order.token
        if answered == self.asked:
            return []
        # the service may normalise tokens, so this is not refused; but it must not pass unseen
        return warnings_said(
            [
                f"the service answered for order token {clean(answered, limit=80)!r}, "
                f"not {clean(self.asked, limit=80)!r} as asked"
            ]
        )

    def json(self) -> JSONValue:
        return self.fetched.raw

    def text(self) -> list[str]:
        # the text's formatting only for the text: `get --json` loads none of it
        from orderdash.core.domain.summary import order_summary

        return order_summary(self.fetched.order, self.fetched.received_at)

    def empty(self) -> str | None:
        return None
