"""What the customer sees of an order: a banner that says in words what happened, the QR as
large as fits, the amount due in large digits with the fiat beside it, the address as text,
the countdowns. The point-of-sale screen and the customer display (`orderdash display`) both
show a `CustomerFace` through this one widget; every word comes from the customer's catalogue.

The coin amount to send is the amount due rounded up to the coin's smallest unit; when that
changed the figure, the server's exact digits are printed under it. Once nothing is due the
code goes away and the banner takes its room, so nobody pays twice; the same when the payment
cannot be checked (the order was not found, or the service has not answered for a rate
period): then the banner says so in the customer's words. Without a coin the code is the
service's checkout page, and the amount is the fiat one. A simulated order (`orderdash demo`)
says DEMO on the banner's first line and under its address.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.message import Message
from textual.widgets import Static

from orderdash.core.customer.catalogue import Catalogue, catalogue
from orderdash.core.customer.face import CustomerFace, face_at
from orderdash.core.domain.expiry import EXPIRING_SOON_S
from orderdash.core.domain.payment import Phase
from orderdash.core.domain.text import duration_text
from orderdash.core.qr.matrix import QRMatrix
from orderdash.tui.text import joined, literal
from orderdash.tui.widgets.big_figure import BigFigure
from orderdash.tui.widgets.payment_qr import decode_server_image
from orderdash.tui.widgets.qr import QRView

#: Banner colour class per phase.
BANNER_CLASSES = {
    Phase.AWAITING: "-open",
    Phase.COIN_NOT_CHOSEN: "-neutral",
    Phase.PARTLY_PAID: "-partial",
    Phase.UNCLEAR: "-partial",
    Phase.CONFIRMING: "-good",
    Phase.CONFIRMED: "-good",
    Phase.OVERPAID: "-partial",
    Phase.UNDERPAID: "-bad",
    Phase.EXPIRED: "-bad",
    Phase.CANCELED: "-bad",
    Phase.PAID_SHORT: "-good",
    Phase.UNKNOWN: "-neutral",
}
FLASHES = 6
FLASH_PERIOD = 0.25
#: Short terminals get a one-row banner so the code keeps its rows; below 72 columns the code
#: may take three quarters of the width.
TALL_FROM = 30
WIDE_FROM = 72
#: Narrow and tall (a phone in a browser: about 50x55 cells): the code on top, full width, the
#: amounts under it, as a one-column checkout does.
STACK_FROM_ROWS = 36


#: Banner colour class when the payment cannot be checked.
TROUBLE_CLASSES = {"unreachable": "-neutral", "not_found": "-bad", "inconsistent": "-bad"}


def headline(face: CustomerFace, words: Catalogue) -> str:
    """The banner a customer reads from two metres, in their language; where the customer
    has something to do about it (money paid to a closed order), a second line says what."""
    if face.trouble == "not_found":
        return words.text("headline_not_found") + "\n" + words.text("advice_ask_staff")
    if face.trouble == "inconsistent":
        return words.text("advice_ask_staff")
    if face.trouble:
        return words.text("headline_cannot_check")
    match face.phase_enum:
        case Phase.COIN_NOT_CHOSEN if face.checkout:
            return words.text("headline_choose_coin_scan")
        case Phase.PARTLY_PAID:
            return words.text("headline_partly_paid", amount=face.headline_amount)
        case Phase.OVERPAID:
            return (
                words.text("headline_overpaid", amount=face.headline_amount)
                + "\n"
                + words.text("advice_overpaid")
            )
        case Phase.EXPIRED if face.payments:
            return (
                words.text("headline_expired_partly_paid")
                + "\n"
                + words.text("advice_contact_shop")
            )
        case Phase.UNDERPAID:
            return words.text("headline_underpaid") + "\n" + words.text("advice_contact_shop")
        case Phase.UNCLEAR if face.payments == 0:
            return words.text("headline_unclear_amount")
        case Phase.UNCLEAR:
            return words.text("headline_unclear_payment")
        case Phase.UNKNOWN:
            return words.text("headline_unknown", label=face.label)
        case phase:
            return words.text(f"headline_{phase.name.lower()}")


def still_due(face: CustomerFace, words: Catalogue) -> str:
    """Over the figure when the code asks only for what is still due: both amounts, so nobody
    takes it for the whole order ("" for any other code)."""
    if not face.remaining:
        return ""
    coin = f"{face.coin_amount} {face.coin}".strip()
    if face.fiat_amount:
        fiat = f"{face.fiat_amount} {face.currency}".strip()
        return words.text("qr_still_due", coin=coin, fiat=fiat)
    return words.text("qr_still_due_coin", coin=coin)


def times_text(face: CustomerFace, words: Catalogue, now: float) -> str:
    """Connection trouble and the countdowns, at wall-clock `now`: the rate's renewal (for an
    amount to be typed, how long that amount is valid) and the order's expiry."""
    parts = []
    if face.connection_problem:
        parts.append(words.text("connection_problem"))
    if face.payable and face.rate_renews_at is not None:
        left = max(face.rate_renews_at - now, 0)
        # a customer typing the amount (the code holds only the address) types this rate's
        # figure: said as the figure's time, the same countdown
        key = "amount_valid_for" if face.qr_note == "note_type_amount" else "rate_renews"
        parts.append(words.text(key, time=duration_text(left + 0.999)))
    if face.payable and face.deadline is not None:
        left = face.deadline - now
        if left <= 0:
            parts.append(words.text("expired"))
        else:
            key = "expires_in_about" if face.deadline_about else "expires_in"
            parts.append(words.text(key, time=duration_text(left)))
    return "\n".join(parts)


class CustomerSide(Vertical):
    """The amounts column. Its width follows the code beside it (which grows and shrinks with
    the amount), not only the terminal's: it reports each resize, so the panel sizes the big
    figure to it."""

    class Resized(Message):
        pass

    def on_resize(self, event: Resize) -> None:
        self.post_message(self.Resized())


class CustomerPanel(Vertical):
    """One order as the customer sees it (`show`), its countdowns (`tick`), a flash when a
    payment arrives (`flash`)."""

    DEFAULT_CSS = """
    CustomerPanel { height: 1fr; }
    CustomerPanel #pos-banner {
        height: 3;
        content-align: center middle;
        text-style: bold;
        width: 100%;
    }
    CustomerPanel.-short #pos-banner { height: 1; }
    CustomerPanel.-settled #pos-banner { height: 1fr; }
    CustomerPanel #pos-banner.-open { background: $primary; color: $text; }
    CustomerPanel #pos-banner.-partial { background: #de935f; color: black; }
    CustomerPanel #pos-banner.-good { background: #2e8b57; color: white; }
    CustomerPanel #pos-banner.-bad { background: #a54242; color: white; }
    CustomerPanel #pos-banner.-neutral { background: $panel; color: $text; }
    CustomerPanel #pos-banner.-flash { text-style: bold reverse; }
    CustomerPanel #pos-body { height: 1fr; }
    CustomerPanel #pos-qr {
        width: auto;
        max-width: 65%;
        height: 1fr;
        padding: 0 1;
    }
    CustomerPanel #pos-side {
        width: 1fr;
        padding: 1 2;
    }
    /* A narrow terminal: the code first (a typical payment URI needs 43 columns with its
       margin), the amounts in the quarter left. */
    CustomerPanel.-narrow #pos-qr { max-width: 75%; }
    CustomerPanel.-narrow #pos-side { padding: 1 1; }
    CustomerPanel.-stacked #pos-body { layout: vertical; }
    CustomerPanel.-stacked #pos-qr { width: 100%; max-width: 100%; height: auto; padding: 0; }
    CustomerPanel.-stacked #pos-side { width: 100%; height: 1fr; padding: 1 1 0 1; }
    CustomerPanel #pos-figure { margin-bottom: 1; }
    CustomerPanel #pos-primary.-under-digits { color: $text-muted; }
    CustomerPanel #pos-primary, CustomerPanel #pos-secondary { margin-bottom: 1; }
    /* a short terminal: the rows go to the big figure */
    CustomerPanel.-short #pos-primary, CustomerPanel.-short #pos-figure { margin-bottom: 0; }
    CustomerPanel #pos-address, CustomerPanel #pos-times, CustomerPanel #pos-merchant {
        margin-bottom: 1;
    }
    CustomerPanel #pos-times.-soon { background: #de935f; color: black; text-style: bold; }
    """

    def __init__(
        self, *, primary: str = "coin", language: str = "en", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.primary = primary
        self.words = catalogue(language)
        #: The face as shown (`face_at` the last tick) and as handed to `show`.
        self.face: CustomerFace | None = None
        self._given: CustomerFace | None = None
        self._big_text = ""
        self._amount_width = 0
        self._now = 0.0

    def compose(self) -> ComposeResult:
        yield Static(Text(self.words.text("loading")), id="pos-banner", classes="-neutral")
        with Horizontal(id="pos-body"):
            # no code until there is one to show (never a placeholder for the customer)
            qr = QRView(id="pos-qr", max_scale=3)
            qr.display = False
            qr.no_room = self.words.text("qr_no_room")
            yield qr
            with CustomerSide(id="pos-side"):
                yield Static(Text(self.words.text("label_amount_due")), id="pos-due-label")
                yield BigFigure(id="pos-figure")
                yield Static(id="pos-primary")
                yield Static(id="pos-secondary")
                yield Static(id="pos-address")
                yield Static(id="pos-times")
                yield Static(id="pos-merchant")

    def on_mount(self) -> None:
        self._fit_size()

    def on_resize(self, event: Resize) -> None:
        self._fit_size()

    def _fit_size(self) -> None:
        # the terminal's size, as the screens' breakpoints were (the footer is not counted)
        size = self.app.size
        self.set_class(size.height < TALL_FROM, "-short")
        self.set_class(size.width < WIDE_FROM, "-narrow")
        self.set_class(size.width < WIDE_FROM and size.height >= STACK_FROM_ROWS, "-stacked")
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Side by side, the code gives way to the amounts: their column is never narrower
        than the longest figure, so a number is never wrapped inside."""
        try:
            qr = self.query_one("#pos-qr", QRView)
        except NoMatches:
            return
        if self.has_class("-stacked"):
            qr.styles.max_width = None  # the CSS's 100%
            return
        width = self.app.size.width
        share = 0.75 if self.has_class("-narrow") else 0.65
        # the side column's padding: 2 cells each side, 1 when narrow
        side = self._amount_width + (2 if self.has_class("-narrow") else 4) + 1
        qr.styles.max_width = max(0, min(int(width * share), width - side))

    def set_language(self, language: str) -> None:
        if language != self.words.language:
            self.words = catalogue(language)
            self.query_one("#pos-qr", QRView).no_room = self.words.text("qr_no_room")
            if self._given is not None:
                self.show(self._given, force=True)

    def show(self, face: CustomerFace, *, force: bool = False) -> None:
        """Show `face` as it stands at the last tick's time (past its deadline: expired)."""
        if face == self._given and not force:
            return
        self._given = face
        self._show_face(face_at(face, self._now), force=force)

    def _show_face(self, face: CustomerFace, *, force: bool = False) -> None:
        if face == self.face and not force:
            return
        had_matrix = self.face is not None and bool(self.face.qr_modules)
        self.face = face
        words = self.words
        banner = self.query_one("#pos-banner", Static)
        lines = headline(face, words).split("\n")
        if face.demo:
            # on the first line, which every banner height shows
            lines[0] = f"{words.text('demo_mark')} \u00b7 {lines[0]}"
        banner.update(Text("\n").join(literal(line, limit=120) for line in lines))
        tone = TROUBLE_CLASSES.get(face.trouble) or BANNER_CLASSES[face.phase_enum]
        for name in set(BANNER_CLASSES.values()):
            banner.set_class(name == tone, name)

        qr = self.query_one("#pos-qr", QRView)
        qr.display = face.payable and bool(face.qr_text or face.qr_modules)
        # nothing to pay: the banner takes the room the code had, readable across the shop
        self.set_class(not face.payable, "-settled")
        if face.payable:
            if face.qr_modules:
                modules = tuple(tuple(ch == "1" for ch in row) for row in face.qr_modules)
                qr.show_matrix(QRMatrix("", modules, 0), face.qr_caption)
            else:
                if had_matrix:
                    qr.show_matrix(None, "")
                qr.text = face.qr_text
                qr.caption_text = face.qr_caption
        self._show_amounts(face)
        address_pane = self.query_one("#pos-address", Static)
        # no address to pay to while the customer is to choose a coin, or cannot pay now
        address_pane.display = not (face.checkout or face.trouble)
        address = literal(face.address or "\u2014", "bold", limit=200)
        if face.qr_note:
            address.append("\n")
            address.append_text(literal(words.text(face.qr_note, coin=face.coin), "italic"))
        if face.demo:
            address.append("\n")
            address.append_text(literal(words.text("demo_note"), "bold reverse"))
        heading = Text(words.text("pay_to" if face.payable else "address") + "\n", "dim")
        address_pane.update(joined(heading, address))
        merchant = Text()
        if face.order_id:
            merchant = joined(
                literal(face.company, "bold", limit=60),
                "  \u00b7  " + words.text("order_line", id=face.order_id),
            )
        self.query_one("#pos-merchant", Static).update(merchant)
        self._tick_times()

    def _show_amounts(self, face: CustomerFace) -> None:
        words = self.words
        note = None
        if face.rounded:
            key = "rounded_up_satoshi" if face.unit == "satoshi" else "rounded_up_unit"
            note = Text("\n" + words.text(key, unit=face.unit, asked=face.asked), "dim italic")
        coin_text, fiat_text = face.coin_amount, face.fiat_amount
        if not coin_text:
            # no coin chosen (or no coin figure): what the customer owes in their money
            big, big_unit, small = fiat_text, face.currency, ""
        elif self.primary == "fiat":
            big, big_unit, small = fiat_text, face.currency, f"{coin_text} {face.coin}"
        else:
            big, big_unit, small = coin_text, face.coin, f"{fiat_text} {face.currency}"
        label = words.text(face.amount_label) if face.amount_label else ""
        statement = still_due(face, words)
        self.query_one("#pos-due-label", Static).update(
            Text(statement, "bold") if statement else Text(label, "dim")
        )
        self.query_one(BigFigure).show(big, big_unit if big else "")
        self._big_text = big
        # the longest figure (a unit may go to the next line; a number never breaks)
        self._amount_width = max((len(word) for word in f"{big} {small}".split()), default=0)
        self._fit_columns()
        primary = self.query_one("#pos-primary", Static)
        secondary = self.query_one("#pos-secondary", Static)
        if big:
            primary_text = Text(f"{big} {big_unit}".strip(), "bold")
            secondary_text = Text(small.strip(), "bold")
            if note is not None:
                (secondary_text if self.primary == "fiat" else primary_text).append_text(note)
            primary.update(primary_text)
            secondary.update(secondary_text)
        else:
            primary.update("")
            secondary.update("")
        self._fit_figure()
        # once the texts beside it have their heights
        self.call_after_refresh(self._fit_figure)

    def _fit_figure(self) -> None:
        """The big figure as large as the side column leaves room for, whole; the same
        figure in plain bold text (always there) when even the smallest glyphs do not fit."""
        try:
            side = self.query_one("#pos-side")
            figure = self.query_one(BigFigure)
        except NoMatches:  # after a refresh, the screen can be on its way out (Esc)
            return
        taken = 0
        for child in side.children:
            if child is not figure and child.display:
                taken += child.outer_size.height + child.styles.margin.top
                taken += child.styles.margin.bottom
        # at most half the column: the address and the countdowns stay in view
        rows = min(
            side.content_size.height - taken - figure.styles.margin.bottom,
            side.content_size.height // 2,
        )
        fits = bool(self._big_text) and figure.fit(side.content_size.width, rows)
        figure.display = fits
        self.query_one("#pos-primary", Static).set_class(fits, "-under-digits")

    def on_customer_side_resized(self, event: CustomerSide.Resized) -> None:
        self._fit_figure()

    def decode_server_image(self, uri: str, checked_against: str = "") -> None:
        """The service's own QR image is to be shown: decode it off the event loop (and our
        own code of `checked_against`, the address it should encode); the panel posts
        `ServerImageDecoded` when the face can be built again with it."""
        decode_server_image(self.query_one("#pos-qr", QRView), uri, checked_against)

    def tick(self, now: float) -> None:
        """The countdowns at wall-clock `now`; the code goes the second the order's time is
        up by this clock (the customer display may not hear from the dashboard before)."""
        self._now = now
        if self._given is None or not self.is_mounted:
            return
        current = face_at(self._given, now)
        if current != self.face:
            self._show_face(current)  # counts down as well
            return
        self._tick_times()

    def _tick_times(self) -> None:
        face, now = self.face, self._now
        if face is None or not self.is_mounted:
            return
        times = self.query_one("#pos-times", Static)
        times.update(Text(times_text(face, self.words, now)))
        left = face.deadline - now if face.payable and face.deadline is not None else None
        times.set_class(left is not None and 0 < left <= EXPIRING_SOON_S, "-soon")

    def flash(self) -> None:
        """Flash the banner: the customer and the cashier both look up."""
        banner = self.query_one("#pos-banner", Static)
        banner.add_class("-flash")
        for step in range(1, FLASHES):  # Textual refuses a timer of 0 s: step 0 is done above
            self.set_timer(
                FLASH_PERIOD * step, lambda on=step % 2 == 0: banner.set_class(on, "-flash")
            )
        self.set_timer(FLASH_PERIOD * FLASHES, lambda: banner.remove_class("-flash"))
