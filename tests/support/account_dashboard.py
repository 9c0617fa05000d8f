"""The dashboard in account mode as the tests start it: the access token, the account's
polling made quick; and the `n` dialog brought to its question."""

from __future__ import annotations

from pydantic import SecretStr

from conftest import make_settings, screen_text, wait_until
from orderdash.core.domain.status import is_open
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app

ACCESS = "access-Qq8-dashboard-account"


def account_app(
    server: SimulatorServer, *, access: str = ACCESS, tokens: tuple[str, ...] = (), **settings
) -> OrderDashApp:
    values = {
        "poll_interval": 0.2,
        "refresh_interval": 60.0,
        "account_interval": 0.3,
        "access_token": SecretStr(access),
        "customer_id": "4711",
        **settings,
    }
    return make_app(make_settings(server.base_url, bearer=None, **values), tokens=tokens)


def open_tokens(server: SimulatorServer) -> set[str]:
    return {o["token"] for o in server.sim.list_orders() if is_open(o["status"])}


async def type_amount(pilot, app: OrderDashApp, text: str) -> None:  # noqa: ANN001
    from textual.widgets import Input

    field = app.screen.query_one("#charge-amount", Input)
    field.value = ""
    await pilot.press(*text, "enter")


async def ask_to_charge(pilot, app: OrderDashApp, server: SimulatorServer, amount: str) -> None:  # noqa: ANN001
    """The account's orders on the list, `n`, `amount` typed: the dialog asks for the yes."""
    from orderdash.tui.screens.charge import ChargeScreen

    await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server))
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
    await type_amount(pilot, app, amount)
    await wait_until(pilot, lambda: f"Charge {amount}" in screen_text(app))
