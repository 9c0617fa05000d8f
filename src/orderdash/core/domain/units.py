"""What a wallet can send: the amount due rounded up to the coin's smallest unit.

The service may ask for more decimals than a coin has (`0.000128701234567890123456` BTC).
No wallet can send that: Bitcoin Core refuses a payment URI with more than 8 decimals,
Electrum truncates to whole satoshis and bitcoinjs-based wallets round a float, both of which
underpay. So the figure the customer is asked to send, in the payment URI and in large type
on the point-of-sale screen, is the amount due rounded up (never down: nobody may underpay
because of our rounding) to the smallest unit, written as plain decimal text. The server's own
digits stay on screen beside it whenever rounding changed the figure.

Only coins whose unit is known here get an amount in a payment URI; this table is the one
place that knows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, localcontext

from orderdash.core.domain.text import amount_text

#: Decimals of the smallest unit of each coin that gets a payment URI (by coinBaseName).
UNIT_DECIMALS: dict[str, int] = {"btc": 8, "ltc": 8, "bch": 8, "doge": 8, "eth": 18}
#: What the smallest unit is called, where customers know the word.
UNIT_NAMES: dict[str, str] = {"btc": "satoshi", "bch": "satoshi", "eth": "wei"}


@dataclass(frozen=True, eq=False, repr=False)
class Sendable:
    """An amount due as a wallet can send it."""

    #: The server's figure, every digit.
    asked: Decimal
    #: The smallest multiple of the coin's unit that is not less than `asked`.
    amount: Decimal
    #: The figure as plain decimal text: no exponent, at most the unit's decimals.
    text: str
    #: "the satoshi", "0.00000001 LTC": what the amount was rounded up to.
    unit: str

    @property
    def rounded(self) -> bool:
        """Rounding changed the value (not merely dropped trailing zeros)."""
        return self.amount != self.asked

    @property
    def note(self) -> str:
        """Small type beside the figure when it is not the server's: says both."""
        if not self.rounded:
            return ""
        return f"rounded up to {self.unit}; the service asks {amount_text(self.asked)}"


def unit_decimals(coin_base_name: str | None) -> int | None:
    """Decimals of the coin's smallest unit, or None when this project does not know it."""
    return UNIT_DECIMALS.get((coin_base_name or "").strip().lower())


def sendable(coin_base_name: str | None, asked: Decimal | None) -> Sendable | None:
    """`asked` rounded up to the coin's smallest unit; None for an unknown coin or an amount
    that is not a positive finite number."""
    decimals = unit_decimals(coin_base_name)
    if decimals is None or asked is None or not asked.is_finite() or asked <= 0:
        return None
    code = (coin_base_name or "").strip().lower()
    quantum = Decimal(1).scaleb(-decimals)
    exponent = asked.as_tuple().exponent
    assert isinstance(exponent, int)  # finite
    if exponent >= -decimals:
        # already sendable: the server's own digits, as sent
        amount, text = asked, amount_text(asked)
    else:
        with localcontext() as context:
            # enough digits for the whole part and every decimal kept, whatever the size
            context.prec = max(context.prec, asked.adjusted() + decimals + 2)
            amount = asked.quantize(quantum, rounding=ROUND_CEILING)
        text = amount_text(amount)
    name = UNIT_NAMES.get(code)
    unit = f"the {name}" if name else f"{amount_text(quantum)} {code.upper()}"
    return Sendable(asked=asked, amount=amount, text=text, unit=unit)
