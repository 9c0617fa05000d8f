"""What the customer sees of one order, as plain data: the point-of-sale screen and the customer
display both render a `CustomerFace` (one widget, `tui/widgets/customer.py`), and a dashboard
publishes it on the local channel for `orderdash display` (`channel.py`).

It holds no token and nothing of the operator's: the payment state, the amounts as the
server's digits (as text), what the QR encodes, the deadline as wall-clock epoch seconds.
Read back from the channel it is untrusted input: every field is bounded and validated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from orderdash.core.domain.expiry import Confidence
from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.domain.text import amount_text
from orderdash.core.model.wire import Order
from orderdash.core.qr.image import (
    QRImageError,
    QRImageUnavailable,
    cached_matrix_from_data_uri,
)
from orderdash.core.qr.matrix import QRMatrix, same_code
from orderdash.core.qr.payload import QRPayload
from orderdash.core.safetext import clean

PhaseName = Literal[
    "COIN_NOT_CHOSEN",
    "AWAITING",
    "PARTLY_PAID",
    "UNCLEAR",
    "CONFIRMING",
    "CONFIRMED",
    "OVERPAID",
    "UNDERPAID",
    "EXPIRED",
    "CANCELED",
    "PAID_SHORT",
    "UNKNOWN",
]
AmountLabel = Literal[
    "", "label_amount_due", "label_still_due", "label_paid_too_much", "label_received"
]
NoteKey = Literal[
    "", "note_no_address", "note_no_server_image", "note_no_uri_standard",
    "note_server_image_unusable", "note_decoding_server_image", "note_type_amount",
    "note_server_image_unchecked",
]  # fmt: skip
#: Why the customer is shown words instead of a QR: the service has not answered for a rate
#: period ("unreachable", or at once when nothing was ever read), or says the order does not
#: exist ("not_found"), or what the display read does not hang together ("inconsistent":
#: `consistency.py`).
Trouble = Literal["", "unreachable", "not_found", "inconsistent"]
#: The longest checkout link put in a code (a QR holds about 2,900 characters at level M).
MAX_CHECKOUT_URL = 1000
#: An amount as the server wrote it (grouped or not), or the em dash for none.
_AMOUNT = re.compile(r"(-?[0-9][0-9,]*(\.[0-9]+)?|\u2014)?")
#: A QR symbol is 21 to 177 modules a side, plus a quiet zone of a few on each side.
MAX_QR_SIDE = 177 + 2 * 8
_MODULE_ROW = re.compile(r"[01]+")


def _printable(value: str) -> str:
    if not value.isprintable():
        raise ValueError("holds control characters")
    return value


class CustomerFace(BaseModel):
    """One order as the customer sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    phase: PhaseName
    #: The server's status label (shown only for a state not known here).
    label: str = Field("", max_length=60)
    coin: str = Field("", max_length=12)
    currency: str = Field("", max_length=12)
    payable: bool = False
    amount_label: AmountLabel = ""
    #: The large figure in coin: what to send (rounded up to the coin's unit) when payable.
    coin_amount: str = Field("", max_length=200)
    fiat_amount: str = Field("", max_length=200)
    #: The server's own digits when `coin_amount` was rounded up, and what it was rounded to.
    asked: str = Field("", max_length=200)
    unit: str = Field("", max_length=40)
    #: The amount the banner names (partly paid: still to send; overpaid: the excess).
    headline_amount: str = Field("", max_length=220)
    #: What the QR encodes. The customer display draws only this, encoded by itself.
    qr_text: str = Field("", max_length=4000)
    #: The service's own image as module rows, on the till's own screen only (never
    #: published: `for_display`); `qr_text` is then the address it was checked to encode
    #: (`image_text`), or "" when it is not that.
    qr_modules: tuple[str, ...] = Field((), max_length=MAX_QR_SIDE)
    qr_caption: str = Field("", max_length=600)
    qr_note: NoteKey = ""
    address: str = Field("", max_length=200)
    company: str = Field("", max_length=60)
    order_id: str = Field("", max_length=40)
    #: Epoch seconds; `deadline_about`: the unit of the server's figure was assumed.
    deadline: float | None = Field(None, ge=0, le=10**11)
    deadline_about: bool = False
    rate_renews_at: float | None = Field(None, ge=0, le=10**11)
    connection_problem: bool = False
    #: Payments seen so far: the display flashes the banner when it grows.
    payments: int = Field(0, ge=0, le=10**9)
    #: Words instead of the QR and the amounts: the payment cannot be checked now.
    trouble: Trouble = ""
    #: The QR is the service's checkout page (`qr_text`): the customer chooses a coin there.
    checkout: bool = False
    #: The QR asks for what is still due on a part-paid order (`qr_text`, our payment URI
    #: with the shortfall), and says so under it: "Still due X (≈ Y)".
    remaining: bool = False
    #: A simulated order (`orderdash demo`): every screen that shows it says DEMO, so nobody
    #: pays a simulated address.
    demo: bool = False

    @field_validator(
        "label", "coin", "currency", "unit", "headline_amount", "qr_text", "qr_caption",
        "address", "company", "order_id",
    )  # fmt: skip
    @classmethod
    def _text(cls, value: str) -> str:
        return _printable(value)

    @field_validator("coin_amount", "fiat_amount", "asked")
    @classmethod
    def _amount(cls, value: str) -> str:
        if not _AMOUNT.fullmatch(value):
            raise ValueError("not an amount")
        return value

    @model_validator(mode="after")
    def _qr(self) -> CustomerFace:
        rows = self.qr_modules
        if rows and not (
            21 <= len(rows) <= MAX_QR_SIDE
            and all(len(row) == len(rows) and _MODULE_ROW.fullmatch(row) for row in rows)
        ):
            raise ValueError("qr_modules is not a square of 0 and 1")
        if self.payable and not (self.qr_text or rows or self.qr_note):
            raise ValueError("payable without a code")
        if self.checkout and checkout_url(self.qr_text) != self.qr_text:
            raise ValueError("checkout without an http(s) link")
        if self.trouble and (self.payable or self.qr_text or rows):
            raise ValueError("a code that cannot be checked")
        if self.remaining and not (
            self.payable and self.phase == "PARTLY_PAID" and self.qr_text and not rows
        ):
            raise ValueError("a remaining-amount code on an order not part-paid")
        return self

    @property
    def phase_enum(self) -> Phase:
        return Phase[self.phase]

    @property
    def rounded(self) -> bool:
        return bool(self.asked)


def checkout_url(url: str) -> str:
    """`url` if it is an http(s) link fit to put in a code for a customer, else ""."""
    if not isinstance(url, str) or not url.isprintable() or len(url) > MAX_CHECKOUT_URL:
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.netloc or " " in url:
        return ""
    return url


def trouble_face(trouble: Trouble, order: Order | None = None) -> CustomerFace:
    """Words for the customer, no QR and no amount: `order` (if any) names the shop."""
    return CustomerFace(
        phase="UNKNOWN",
        trouble=trouble,
        company=clean(order.company_name, limit=60) if order is not None else "",
        order_id=clean(order.id, limit=40) if order is not None else "",
        payments=len(order.transactions) if order is not None else 0,
    )


def customer_face(
    order: Order,
    state: PaymentState,
    payload: QRPayload,
    *,
    rate_renews_at: float | None = None,
    connection_problem: bool = False,
    trouble: Trouble = "",
    payment_url: str = "",
) -> CustomerFace:
    """The customer's view of `order`; `rate_renews_at` is wall-clock epoch seconds.

    `trouble`: the order cannot be checked now. Not found, the customer is told so whatever
    the state; unreachable, only an order still to be paid loses its QR (a paid order stays
    paid). `payment_url`: the service's checkout page, the QR while no coin is chosen. A
    `payload` of kind "remaining" (`remaining_payload`) is shown only while the order is
    part-paid, under the same rules as the main code.
    """
    if trouble == "not_found" or (trouble == "unreachable" and state.takes_payment):
        return trouble_face(trouble, order)
    if state.phase is Phase.COIN_NOT_CHOSEN:
        return _checkout_face(order, state, checkout_url(payment_url), connection_problem)
    if state.payable:
        coin, fiat = state.due_coin, state.due_fiat
        label = "label_still_due" if state.phase is Phase.PARTLY_PAID else "label_amount_due"
    elif state.excess_coin is not None:
        coin, fiat, label = state.excess_coin, state.excess_fiat, "label_paid_too_much"
    elif state.latest is not None:
        # the server's running total of what arrived
        coin, fiat = state.latest.amount.total, state.latest.amount_fiat.total
        label = "label_received"
    else:
        coin = fiat = None
        label = ""
    coin_text = amount_text(coin) if coin is not None else ""
    asked = unit = ""
    send = state.send
    if send is not None:
        coin_text = send.text
        if send.rounded:
            asked, unit = amount_text(send.asked), send.unit.removeprefix("the ")
    headline_amount = ""
    if state.phase is Phase.PARTLY_PAID:
        headline_amount = state.send_text
    elif state.phase is Phase.OVERPAID:
        headline_amount = f"{amount_text(state.excess_coin)} {state.coin}".strip()

    qr_text, note, caption = "", "", payload.caption
    modules: tuple[str, ...] = ()
    remaining = payload.kind == "remaining" and state.phase is Phase.PARTLY_PAID
    if state.payable:
        note = payload.note_key
        if payload.server_image:
            # decoded in a worker by the screen that shows it, never here (see payment_qr.py)
            matrix = cached_matrix_from_data_uri.peek(payload.server_image)
            if matrix is None or isinstance(matrix, QRImageError):
                qr_text = caption = clean(order.address or "")
                if isinstance(matrix, QRImageUnavailable):  # Pillow is not installed
                    note = "note_server_image_unchecked"
                elif isinstance(matrix, QRImageError):
                    note = "note_server_image_unusable"
                else:
                    note = "note_decoding_server_image"
            else:
                modules = tuple("".join("1" if m else "0" for m in row) for row in matrix.modules)
                qr_text = image_text(matrix, clean(order.address or ""))
        else:
            qr_text = payload.text or ""
            if payload.kind == "address" and not note and coin_text:
                # no amount standard (a token such as USDT): the wallet needs the figure typed
                note = "note_type_amount"
        if qr_text and caption == qr_text:
            caption = ""
    deadline, deadline_about = _deadline(state)
    return CustomerFace(
        phase=state.phase.name,
        label=state.label,
        coin=state.coin,
        currency=state.currency,
        payable=state.payable,
        amount_label=label,
        coin_amount=coin_text,
        fiat_amount=amount_text(fiat, group=True) if fiat is not None else "",
        asked=asked,
        unit=clean(unit, limit=40),
        headline_amount=clean(headline_amount, limit=220),
        qr_text=clean(qr_text, limit=4000),
        qr_modules=modules,
        qr_caption=clean(caption, limit=600),
        qr_note=note if note else "",
        address=clean(order.address or "", limit=200),
        company=clean(order.company_name, limit=60),
        order_id=clean(order.id, limit=40),
        deadline=deadline,
        deadline_about=deadline_about,
        rate_renews_at=rate_renews_at,
        connection_problem=connection_problem,
        payments=len(order.transactions),
        remaining=remaining and bool(qr_text),
    )


#: The longest address checked against the service's image (`image_text`): addresses are
#: 20 to 100 characters (`core/qr/payload.py`).
MAX_CHECKED_ADDRESS = 100


def image_text(matrix: QRMatrix, address: str) -> str:
    """What the service's image (its modules read back) was checked to encode: `address`, when
    the image is module for module our own code of it (the simulator's is), else "". The code
    is built in the thread that decoded the image (`tui/widgets/payment_qr.py`), cached."""
    if address and len(address) <= MAX_CHECKED_ADDRESS and same_code(matrix, address):
        return address
    return ""


def for_display(face: CustomerFace) -> CustomerFace:
    """The face the customer display is handed: never a module grid (it draws only codes it
    encodes itself, from `qr_text`, checked first: `consistency.py`). The service's image goes
    as the address it was checked to encode, the same code module for module; an image not
    checked so goes as the address's own code, with a note."""
    if not face.qr_modules:
        return face
    if face.qr_text:
        update = {"qr_modules": (), "qr_caption": ""}
    else:
        update = {
            "qr_modules": (),
            "qr_text": face.address,
            "qr_caption": "",
            "qr_note": "note_server_image_unchecked",
        }
    return face.model_copy(update=update)


def _checkout_face(
    order: Order, state: PaymentState, url: str, connection_problem: bool
) -> CustomerFace:
    """No coin yet: the fiat amount, and the checkout page as the code when it is known (with
    the order's deadline: a page that takes a payment goes at the order's expiry too)."""
    fiat = order.amount_fiat
    deadline, deadline_about = _deadline(state)
    return CustomerFace(
        phase=state.phase.name,
        label=state.label,
        currency=state.currency,
        payable=bool(url),
        checkout=bool(url),
        amount_label="label_amount_due",
        fiat_amount=amount_text(fiat, group=True) if fiat is not None else "",
        qr_text=url,
        company=clean(order.company_name, limit=60),
        order_id=clean(order.id, limit=40),
        deadline=deadline,
        deadline_about=deadline_about,
        connection_problem=connection_problem,
        payments=len(order.transactions),
    )


def _deadline(state: PaymentState) -> tuple[float | None, bool]:
    """The order's deadline as epoch seconds (None: not known or out of bounds), and whether
    the unit of the server's figure was assumed."""
    expiry = state.expiry
    deadline = expiry.deadline if expiry is not None else None
    if deadline is None or not 0 <= deadline <= 10**11:
        return None, False
    return deadline, expiry is not None and expiry.confidence is Confidence.ASSUMED


def face_at(face: CustomerFace, now: float) -> CustomerFace:
    """`face` as it must look at wall-clock `now`: once its deadline has passed by this clock,
    nothing is payable any more whatever the last answer said (the service's "expired" may
    be a poll away, and a customer scanning now would pay into a closing order), so the code,
    the address to pay to and the amount due go, and the banner says the order has expired."""
    if not face.payable or face.deadline is None or now < face.deadline:
        return face
    return face.model_copy(
        update={
            "phase": "EXPIRED",
            "payable": False,
            "checkout": False,
            "amount_label": "",
            "coin_amount": "",
            "fiat_amount": "",
            "asked": "",
            "unit": "",
            "headline_amount": "",
            "qr_text": "",
            "qr_modules": (),
            "qr_caption": "",
            "qr_note": "",
            "rate_renews_at": None,
            "remaining": False,
        }
    )


def wall_time(
    monotonic_at: float | None, clock: Callable[[], float], monotonic: Callable[[], float]
) -> float | None:
    """A moment on the monotonic clock as epoch seconds (for another process to count down to)."""
    if monotonic_at is None:
        return None
    return clock() + (monotonic_at - monotonic())
