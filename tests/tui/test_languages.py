"""The customer's languages: every catalogue complete and consistent, every state of the
customer panel in every language at 80x24 with the whole banner on screen, the amounts in the
server's digits whatever the language, and the `language` setting."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from textual.app import App, ComposeResult

from conftest import screen_text, wait_until
from orderdash.core.customer.catalogue import (
    LANGUAGES,
    PLACEHOLDER,
    catalogue,
    load_texts,
    resolve_language,
)
from orderdash.core.customer.face import CustomerFace
from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.customer import CustomerPanel, headline

ENGLISH = load_texts("en")
#: A 13-decimal amount and a grouped fiat amount: the server's digits, in every language.
AMOUNT = "0.0001287012345"
FIAT = "1,234.50"


def test_the_package_ships_every_catalogue() -> None:
    shipped = {
        path.name
        for path in resources.files("orderdash.core.customer").joinpath("locales").iterdir()
    }
    assert shipped == {f"{language}.json" for language in LANGUAGES}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_has_every_key_and_the_same_placeholders(language: str) -> None:
    texts = load_texts(language)
    assert texts.keys() == ENGLISH.keys()
    for key, english in ENGLISH.items():
        assert set(PLACEHOLDER.findall(texts[key])) == set(PLACEHOLDER.findall(english)), key
        # nothing but named placeholders in braces, no markup-looking brackets
        assert "{" not in PLACEHOLDER.sub("", texts[key]) and "[" not in texts[key], key
        assert texts[key].strip() == texts[key] and texts[key], key


def test_catalogue_files_are_flat_utf8_json() -> None:
    for language in LANGUAGES:
        raw = resources.files("orderdash.core.customer").joinpath("locales", f"{language}.json")
        data = json.loads(raw.read_text("utf-8"))
        assert all(isinstance(v, str) for v in data.values())


def test_placeholders_take_values_literally() -> None:
    words = catalogue("de")
    assert words.text("headline_unknown", label="{amount} [b]x[/b]") == "Status: {amount} [b]x[/b]"
    assert (
        words.text("headline_overpaid", amount=f"{AMOUNT} BTC") == f"Zu viel bezahlt: {AMOUNT} BTC"
    )


def faces() -> dict[str, CustomerFace]:
    base: dict[str, object] = {
        "coin": "BTC",
        "currency": "EUR",
        "address": "bc1qsz87un9wvphmyy2z0rh9ssq0fmm9028g79aguj",
        "company": "Demo Shop",
        "order_id": "1008",
        "fiat_amount": FIAT,
        "deadline": 1_800_003_000.0,
        "rate_renews_at": 1_800_000_042.0,
    }
    payable = {
        **base,
        "payable": True,
        "qr_text": "BITCOIN:BC1QSZ87UN9WVPHMYY2Z0RH9SSQ0FMM9028G79AGUJ?amount=0.00012871",
        "coin_amount": "0.00012871",
        "asked": AMOUNT,
        "unit": "satoshi",
    }
    return {
        "coin not chosen": CustomerFace(phase="COIN_NOT_CHOSEN", **base),
        "awaiting": CustomerFace(phase="AWAITING", amount_label="label_amount_due", **payable),
        "partly paid": CustomerFace(
            phase="PARTLY_PAID",
            amount_label="label_still_due",
            headline_amount="0.00012871 BTC",
            payments=1,
            connection_problem=True,
            **payable,
        ),
        "unclear": CustomerFace(phase="UNCLEAR", payments=1, **base),
        "unclear amount": CustomerFace(phase="UNCLEAR", **base),
        "confirming": CustomerFace(
            phase="CONFIRMING",
            amount_label="label_received",
            coin_amount=AMOUNT,
            payments=1,
            **base,
        ),
        "paid": CustomerFace(phase="CONFIRMED", payments=1, **base),
        "overpaid": CustomerFace(
            phase="OVERPAID",
            amount_label="label_paid_too_much",
            coin_amount=AMOUNT,
            headline_amount=f"{AMOUNT} BTC",
            payments=2,
            **base,
        ),
        "underpaid": CustomerFace(phase="UNDERPAID", payments=1, **base),
        "expired": CustomerFace(phase="EXPIRED", **base),
        "expired after a partial payment": CustomerFace(phase="EXPIRED", payments=1, **base),
        "checkout": CustomerFace(
            phase="COIN_NOT_CHOSEN",
            payable=True,
            checkout=True,
            amount_label="label_amount_due",
            qr_text="https://pay.example/invoice?token=abc123",
            **{**base, "coin": "", "address": "", "deadline": None, "rate_renews_at": None},
        ),
        "cannot check": CustomerFace(
            phase="UNKNOWN", trouble="unreachable", company="Demo Shop", order_id="1008"
        ),
        "not found": CustomerFace(
            phase="UNKNOWN", trouble="not_found", company="Demo Shop", order_id="1008"
        ),
        "canceled": CustomerFace(phase="CANCELED", **base),
        "unknown": CustomerFace(phase="UNKNOWN", label="ON_HOLD [b]by bank[/b]", **base),
    }


class PanelApp(App[None]):
    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def compose(self) -> ComposeResult:
        yield CustomerPanel(language=self.language)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_every_state_in_every_language_fits_80x24(language: str) -> None:
    app = PanelApp(language)
    words = catalogue(language)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one(CustomerPanel)
        for name, face in faces().items():
            panel.show(face)
            panel.tick(1_800_000_000.0)
            await pilot.pause()
            banner = panel.query_one("#pos-banner")
            rows = screen_text(app).splitlines()
            region = banner.region
            seen = " ".join(
                rows[y][region.x : region.right] for y in range(region.y, region.bottom)
            )
            wanted = headline(face, words)
            # the whole headline on screen: no word cut at the edge or lost below the banner
            assert squeeze(seen) == squeeze(wanted), (language, name, seen)
            text = screen_text(app)
            if face.coin_amount:
                # the server's digits whatever the language
                assert face.coin_amount in text, (language, name)

            def content(selector: str) -> str:
                return str(panel.query_one(selector).render())

            heading = words.text("pay_to" if face.payable else "address")
            assert content("#pos-address").startswith(heading), (language, name)
            assert words.text("order_line", id="1008") in content("#pos-merchant")
            if face.checkout:
                # no coin yet: the fiat amount, large and as text
                assert f"{FIAT} EUR" in text, (language, name)
            if face.payable and not face.checkout:
                # the rounding note with the service's own digits
                note = words.text("rounded_up_satoshi", asked=AMOUNT)
                assert note in content("#pos-primary"), (language, name)
                assert words.text(face.amount_label) == content("#pos-due-label")
                times = content("#pos-times")
                assert words.text("expires_in", time="50:00") in times, (language, name)
                assert words.text("rate_renews", time="0:42") in times, (language, name)
            if name == "partly paid":
                assert words.text("connection_problem") in content("#pos-times"), language


def test_language_auto_follows_lang() -> None:
    assert resolve_language("auto", {"LANG": "de_DE.UTF-8"}) == "de"
    assert resolve_language("auto", {"LC_ALL": "pt_BR.UTF-8", "LANG": "fr_FR.UTF-8"}) == "pt"
    assert resolve_language("auto", {"LANG": "C.UTF-8"}) == "en"
    assert resolve_language("auto", {"LANG": "sv_SE.UTF-8"}) == "en"
    assert resolve_language("ja", {"LANG": "de_DE.UTF-8"}) == "ja"


def test_language_setting_is_checked() -> None:
    settings, _ = load_settings({}, {"ORDERDASH_LANGUAGE": "nl", "ORDERDASH_CONFIG": "/dev/null"})
    assert settings.language == "nl"
    with pytest.raises(ConfigError, match="language"):
        load_settings({}, {"ORDERDASH_LANGUAGE": "klingon", "ORDERDASH_CONFIG": "/dev/null"})


async def test_pos_speaks_the_language_setting(sim_server: SimulatorServer) -> None:
    """What `ORDERDASH_LANGUAGE=de orderdash pos TOKEN` shows: every customer-facing word."""
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    settings, _ = load_settings(
        {"base_url": sim_server.base_url, "poll_interval": 0.2, "persist_watchlist": False},
        {"ORDERDASH_LANGUAGE": "de", "ORDERDASH_CONFIG": "/dev/null"},
    )
    app = make_app(settings, token=token, open_pos=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, PosScreen) and "Zum Bezahlen scannen" in screen_text(app)
            ),
        )
        text = screen_text(app)
        for german in ("Zu zahlen", "Zahlen an", "Läuft ab in", "Bestellung"):
            assert german in text
        for english in ("Scan to pay", "Amount due", "Pay to", "Expires in", "order "):
            assert english not in text
        sim_server.sim.add_transaction(token)
        await wait_until(pilot, lambda: "Zahlung erhalten, wird bestätigt" in screen_text(app))
