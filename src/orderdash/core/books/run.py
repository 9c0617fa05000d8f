"""The books as the commands and the dashboard run them: the book (`ledger_book`) and the
budgets' gates. The use cases that run on them are `core/usecases`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from orderdash.core.ledger import Book
from orderdash.core.ledger.open import open_book as open_ledger
from orderdash.core.polling.account import CommandBudget
from orderdash.core.polling.scheduler import DEFAULT_LIMIT_HOLD

if TYPE_CHECKING:
    from typing import Protocol, TypedDict

    from orderdash.core.ledger.open import LedgerSettings
    from orderdash.core.polling.budget import Budget

    # for the type checker only: no class made when the books are opened
    class Shares(TypedDict):
        """This till's share of the getOrder budgets (`Settings.budgets`)."""

        budget_per_minute: int
        budget_per_hour: int

    class BooksSettings(LedgerSettings, Protocol):
        """What the books take from the settings (which sit above them): the ledger's, and the
        budgets every command paces its reads with."""

        @property
        def budgets(self) -> Shares: ...
        @property
        def rate_budget_per_minute(self) -> int: ...
        @property
        def rate_budget_per_hour(self) -> int: ...


def gates(settings: BooksSettings) -> tuple[CommandBudget, CommandBudget]:
    """The getOrder budget and the private budget, as every command paces them."""
    share = settings.budgets
    orders = CommandBudget(share["budget_per_minute"], share["budget_per_hour"])
    private = CommandBudget(settings.rate_budget_per_minute, settings.rate_budget_per_hour)
    return orders, private


#: What opens the shop's book for the settings, given to whoever opens it (the commands'
#: `main`, `make_app`): None there is `ledger_book`; the tests and the screenshots give theirs.
BookOpener = Callable[["BooksSettings"], Book]


def ledger_book(settings: BooksSettings) -> Book:
    """The shop's book for these settings, the ledger they name (`core/ledger/open.py`), for
    the commands and the dashboard alike; blocking (the dashboard calls it in a thread)."""
    return open_ledger(settings)


class BudgetGate:
    """A gate (`gather.Gate`) on a budget someone else spends too (the dashboard's getOrder
    budget, which its watcher keeps): the close's reads and the charge lookups take their turn
    in it and leave `reserve` of its burst to the orders on screen, and a refusal for the
    service's limit holds it for everyone."""

    def __init__(
        self,
        budget: Budget,
        *,
        reserve: float = 0.5,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._budget = budget
        self._reserve = reserve
        self._monotonic = monotonic

    async def take_turn(self) -> None:
        """Return once the budget, `reserve` kept back, lets one more request start; count it."""
        while True:
            now = self._monotonic()
            free = self._budget.next_free(now, reserve=self._reserve)
            if free <= now:
                self._budget.spend(now)
                return
            await asyncio.sleep(min(free - now, 60.0))

    def refused_for_limit(self, retry_after: float | None) -> None:
        """The service refused a request for its limit: hold the budget for everyone."""
        hold = DEFAULT_LIMIT_HOLD if retry_after is None else retry_after
        self._budget.hold(self._monotonic() + hold)
