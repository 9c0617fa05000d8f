"""The settings model: every setting with its default, its bounds and its checks (`Settings`).
Where the values come from, and in what order, is `sources.py`'s."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any, Literal, TypedDict
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)

from orderdash.core.domain.tolerance import MAX_TOLERANCE
from orderdash.core.notify.rules import NotifyRule, QuietHours
from orderdash.core.polling.late import DEFAULT_LATE_WINDOW
from orderdash.core.safetext import clean
from orderdash.core.service.net import Timeouts, is_loopback_host

DEFAULT_BASE_URL = "http://127.0.0.1:8765"
#: The longest late window: BTCPay's is a day; a month bounds what a typo can cost.
MAX_LATE_WINDOW = 30 * 86400.0
_DURATION = re.compile(r"([0-9]{1,9}(?:\.[0-9]{1,6})?)\s*(s|m|h|d)?")
_DURATION_UNITS = {None: 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
#: A till's name: what the ledger files each charge under.
_TILL_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _duration(value: Any) -> Any:
    """A duration as text ("24h", "90m", "2d", "3600s", "3600") in seconds; anything else is
    left for the field's own check."""
    if isinstance(value, str) and (found := _DURATION.fullmatch(value.strip().lower())):
        return float(found.group(1)) * _DURATION_UNITS[found.group(2)]
    return value


def default_till() -> str:
    """This machine's host name, kept to what a till's name may hold (else "till")."""
    import socket

    name = re.sub(r"[^A-Za-z0-9._-]", "", socket.gethostname().split(".")[0])[:64]
    return name or "till"


def default_operator() -> str:
    """Who is at the till, for the ledger's resolutions: the login name, kept to one line
    (else "operator")."""
    import getpass

    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name (a container without a user)
        return "operator"
    return clean(" ".join(name.split()), limit=64) or "operator"


class Budgets(TypedDict):
    """The request budgets as the watcher takes them (its keyword arguments)."""

    budget_per_minute: int
    budget_per_hour: int
    rate_budget_per_minute: int
    rate_budget_per_hour: int


class Settings(BaseModel):
    # an error never repeats what was given: it may be a token or a notification URL
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    base_url: str = DEFAULT_BASE_URL
    bearer_token: SecretStr | None = None
    #: The merchant's access token (made in the service's cabinet): logged in with to get a
    #: bearer when `bearer_token` is not set. Sent only in the log-in body.
    access_token: SecretStr | None = None
    #: The merchant's account number (the cabinet shows it under the company name).
    customer_id: Annotated[
        str | None,
        # a number in TOML (`customer_id = 4711`) is the same account number
        BeforeValidator(lambda v: str(v) if type(v) is int else v),
        Field(min_length=1, max_length=64, pattern=r"^[0-9A-Za-z_-]+$"),
    ] = None
    #: The till's currency (ISO 4217, the access token's default fiat): what a charge's amount
    #: is in. Every order a charge makes is checked against it; None: the first order made
    #: tells it.
    currency: str | None = None
    #: Where Generate Order is served (the docs' "listener", a second address); default
    #: `base_url`.
    create_url: str | None = None
    #: The named set of hosts to use (`production`, `sandbox`, or a `[profiles.NAME]` table):
    #: a host setting given anywhere wins over it (`profiles.py`).
    profile: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{1,40}$")
    #: The callback receiver's public URL, as set in the service's cabinet: `doctor` checks
    #: it answers and prints it to paste.
    callback_url: str | None = Field(None, max_length=2000)
    #: The networks `orderdash receive` takes callbacks from (CIDRs or addresses; empty: any).
    callback_allow: tuple[str, ...] = Field((), max_length=100)
    #: Reverse proxies in front of the receiver whose `X-Forwarded-For` names the sender (0:
    #: the socket's peer is the sender).
    callback_trusted_hops: int = Field(0, ge=0, le=10)
    #: The callback receiver run inside the dashboard and `watch --jsonl` (after the first
    #: paint), at `receive_host`:`receive_port` (0: a free port): one machine on a SQLite book
    #: needs no `orderdash receive` beside it (docs/receiver.md, "Inside the dashboard").
    receive: bool = False
    receive_host: str = Field("127.0.0.1", min_length=1, max_length=255, pattern=r"^[^\s/]+$")
    receive_port: int = Field(8099, ge=0, le=65535)
    #: Seconds between reads of the account's order history (`watch --account`): new orders.
    account_interval: float = Field(60.0, gt=0, le=86400)
    #: History pages one read of the account's orders asks for at most (`orders`, account
    #: mode): 50 pages of 100 are the 5,000 orders the watch list holds.
    history_max_pages: int = Field(50, ge=1, le=1000)
    #: Seconds an unconfirmed payment may wait for its confirmations before the attention
    #: view lists it (`core/books/attention.py`).
    attention_unconfirmed_after: float = Field(3600.0, ge=0, le=30 * 86400)
    #: The payment tolerance, in percent of an order's fiat amount (0 to 5, as in the
    #: service's cabinet): an order closed or expired short by no more than this is paid
    #: within tolerance, the shortfall absorbed (`core/domain/tolerance.py`).
    underpaid_tolerance: Decimal = Field(Decimal(0), ge=0, le=MAX_TOLERANCE, decimal_places=2)
    #: Seconds between rate refreshes (the service renews the rate every minute).
    refresh_interval: float = Field(60.0, gt=0, le=86400)
    #: Seconds between getOrder polls, which is how new transactions are seen.
    poll_interval: float = Field(10.0, gt=0, le=86400)
    #: Seconds between getOrder polls of an order a customer is looking at (the point-of-sale
    #: screen, the customer display): a payment shows within about this long.
    customer_poll_interval: float = Field(1.5, gt=0, le=86400)
    #: How long an order that closed unpaid (expired, canceled) is still read for a late
    #: payment after it closed (its expiry, else when first seen closed), as BTCPay's
    #: monitoring window: seconds, or a duration ("24h", "90m", "2d"); 0 reads it no more.
    late_window: Annotated[float, BeforeValidator(_duration), Field(ge=0, le=MAX_LATE_WINDOW)] = (
        DEFAULT_LATE_WINDOW
    )
    #: While the service's callbacks reach the book (another process announces each order it
    #: read anew), seconds between getOrder polls of each order: the fallback that finds what
    #: a lost callback missed, and expiry, which is never pushed (docs/books.md).
    callback_fallback_seconds: float = Field(60.0, gt=0, le=86400)
    #: With no callback heard for this long, the poller returns to full polling.
    callback_quiet_seconds: float = Field(600.0, gt=0, le=86400)
    #: An order polling finds paid that no callback announced within this long raises the
    #: "no callback" alarm, and the poller returns to full polling.
    callback_alarm_seconds: float = Field(30.0, gt=0, le=86400)
    connect_timeout: float = Field(5.0, gt=0, le=600)
    read_timeout: float = Field(10.0, gt=0, le=600)
    #: Overall deadline of one request, connect to last byte.
    timeout: float = Field(20.0, gt=0, le=600)
    max_body_mib: float = Field(8.0, gt=0, le=1024)
    #: Plain http:// to a host other than loopback sends the token in clear: opt in explicitly.
    allow_insecure_http: bool = False
    #: Ring the terminal bell when a payment arrives.
    bell: bool = True
    #: A read-only operator: watch and read, but make nothing (no charge, no close of day)
    #: and put nothing before a customer (no point of sale, no customer display); nothing
    #: leaves the watch list either.
    readonly: bool = False
    #: What the QR code encodes: auto (payment URI where the coin has one, else the address),
    #: address, uri, or server (the service's own qrCode image).
    qr_content: Literal["auto", "address", "uri", "server"] = "auto"
    #: A bech32 address and its scheme go into the QR in upper case (BIP173: a smaller code
    #: in QR alphanumeric mode); false for a wallet that objects.
    qr_uppercase: bool = True
    #: Which amount the point-of-sale screen shows large: the coin amount or the fiat amount.
    pos_primary: Literal["coin", "fiat"] = "coin"
    #: Seconds: `p` or `x` on an order with less time than this left asks first.
    pos_expiry_margin: float = Field(120.0, ge=0, le=86400)
    #: The point of sale prints an order's receipt by itself, once, when it becomes paid (or
    #: is accepted at the counter) on its screen; with several tills on one book, once in all.
    receipt_auto: bool = False
    #: The customer's language on the point-of-sale screen and the customer display: one of
    #: the shipped catalogues (en, de, fr, es, it, pt, nl, ja), or auto (follows LANG).
    language: str = "en"
    #: The shop's name on the customer display's idle screen.
    display_title: str = Field("", max_length=60)
    #: The local channel a dashboard publishes the customer display on (a file name part).
    display_channel: str = "default"
    #: Seconds a paid (or expired, or canceled) order stays on the customer display before
    #: it returns to the welcome screen by itself; 0 keeps it until cleared.
    display_welcome_after: float = Field(20.0, ge=0, le=86400)
    #: `display --web`: display processes at once (one per browser connection); the next
    #: connection is told the display is busy.
    display_web_max: int = Field(4, ge=1, le=64)
    #: `display --web`: the key every request must carry (`?key=`), so that a kiosk's address
    #: survives a restart; without it a new random key is made at each start.
    display_web_key: SecretStr | None = None
    #: Tills (dashboards) sending getOrder from the same public IP: each takes this share of
    #: `budget_per_minute` and `budget_per_hour`, which the service counts per IP.
    tills_per_ip: int = Field(1, ge=1, le=100)
    #: getOrder requests per minute for all watched orders together (the service allows 200).
    budget_per_minute: int = Field(200, ge=1, le=10000)
    #: getOrder requests per hour (the service allows 10,000 per IP), paced evenly.
    budget_per_hour: int = Field(10_000, ge=1, le=10_000_000)
    #: Rate refreshes per minute and per hour (the service allows 200 and 1,000 per API app,
    #: shared by every till on the same login).
    rate_budget_per_minute: int = Field(200, ge=1, le=10000)
    rate_budget_per_hour: int = Field(1_000, ge=1, le=10_000_000)
    #: Requests in flight at once.
    concurrency: int = Field(6, ge=1, le=64)
    #: Seconds between the progress lines `close`, `export` and `attention` write to stderr
    #: while they read, when stderr is not a terminal (on a terminal: a bar).
    progress_interval: float = Field(10.0, gt=0, le=3600)
    #: The store's time zone (an IANA name, e.g. Europe/Berlin): where a day of the books
    #: starts and ends (`close --day`, `export`); None: the machine's local zone.
    timezone: str | None = Field(None, max_length=64)
    #: Where the watch list is kept (default: watchlist.json in the user data dir).
    watchlist_file: str | None = None
    #: Keep the watch list across runs.
    persist_watchlist: bool = True
    #: The ledger (the shop's books): this SQLite file (default ledger.sqlite3 in the user
    #: data dir), unless `ledger_url` is set.
    ledger: str | None = None
    #: The ledger on a PostgreSQL server every till of the shop shares
    #: (`postgresql://user:password@host/db`); its password is never shown.
    ledger_url: SecretStr | None = None
    #: This till's name in the ledger (default: the host name).
    till: str = Field(default_factory=default_till)
    #: Who is at the till: written with each resolution (default: the login name).
    operator: str = Field(default_factory=default_operator, min_length=1, max_length=64)
    #: The shop's name at the top of a receipt (docs/receipts.md); empty: the service's
    #: company name on the order.
    shop_name: str = Field("", max_length=60)
    #: Where receipts are printed (ESC/POS, the `receipt` extra): a device file
    #: (/dev/usb/lp0), a network printer (host:port) or a file; None: `orderdash receipt`
    #: prints the receipt's text to stdout.
    receipt_printer: str | None = Field(None, max_length=300)
    #: Word to an owner who is away (the `notify` extra, docs/notify.md): each rule sends the
    #: events it names to its Apprise URLs. The URLs are secrets: never shown or logged.
    notify: tuple[NotifyRule, ...] = Field((), max_length=20)
    #: Nothing is sent between these times ("22:00-07:00", in `timezone`): what came meanwhile
    #: is summed up in one message per rule when they end.
    quiet_hours: str | None = None
    #: A read-only dashboard sends no notification: the till's dashboard (or `watch`) tells
    #: the owner, and a second one watching the same shop would only add to its noise. True
    #: lets a read-only dashboard send all the same (each still sent once per ledger).
    notify_readonly: bool = False
    #: Log request outcomes and timings here (rotated at 1 MiB, 3 kept, mode 0600; secrets
    #: redacted). Never logged to the terminal.
    log_file: str | None = None

    def _check_service_url(self, name: str, url: str, secret: str) -> None:
        """One check for every URL the client sends a secret to (base_url, create_url)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{name} must be an http(s) URL, got {clean(url, limit=80)!r}")
        if parts.username or parts.password:
            raise ValueError(f"{name} must not carry credentials")
        if parts.query or parts.fragment:
            raise ValueError(f"{name} must not have a query or fragment")
        if (
            parts.scheme == "http"
            and not is_loopback_host(parts.hostname)
            and not self.allow_insecure_http
        ):
            raise ValueError(
                f"plain http:// to {parts.hostname} would send {secret} unencrypted; "
                "use https:// or set allow_insecure_http"
            )

    @model_validator(mode="after")
    def _check_base_url(self) -> Settings:
        self._check_service_url("base_url", self.base_url, "the token")
        return self

    @model_validator(mode="after")
    def _check_language(self) -> Settings:
        from orderdash.core.customer.catalogue import LANGUAGES

        if self.language != "auto" and self.language not in LANGUAGES:
            raise ValueError(
                f"language must be auto or one of {', '.join(LANGUAGES)}, "
                f"got {clean(self.language, limit=20)!r}"
            )
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", self.display_channel):
            raise ValueError(
                "display_channel: a channel name is 1 to 40 letters, digits, '-' or '_', "
                f"got {clean(self.display_channel, limit=40)!r}"
            )
        if not self.display_title.isprintable():
            raise ValueError("display_title must be one line of printable text")
        if not self.shop_name.isprintable():
            raise ValueError("shop_name must be one line of printable text")
        if self.receipt_printer is not None and not (
            self.receipt_printer.strip() and self.receipt_printer.isprintable()
        ):
            raise ValueError("receipt_printer must be one line: a device, host:port or a file")
        return self

    @field_validator("ledger_url", mode="before")
    @classmethod
    def _empty_ledger_url(cls, value: Any) -> Any:
        # "" (the demo's) undoes a ledger_url of the config file
        return None if value == "" else value

    @field_validator("quiet_hours")
    @classmethod
    def _check_quiet_hours(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        return str(QuietHours.parse(value))

    @field_validator("currency", mode="before")
    @classmethod
    def _check_currency(cls, value: Any) -> Any:
        if value is None or value == "":
            return None
        from orderdash.core.domain.fiat import currency_code

        return currency_code(value)

    @model_validator(mode="after")
    def _check_display_web_key(self) -> Settings:
        key = self.display_web_key.get_secret_value() if self.display_web_key else None
        # it travels in a URL: URL-safe characters only, long enough not to be guessed
        if key is not None and not re.fullmatch(r"[A-Za-z0-9_-]{16,128}", key):
            raise ValueError("display_web_key: 16 to 128 letters, digits, '-' or '_'")
        return self

    @model_validator(mode="after")
    def _check_ledger(self) -> Settings:
        if not _TILL_NAME.fullmatch(self.till):
            raise ValueError(
                "till: a till's name is 1 to 64 letters, digits, '.', '-' or '_', "
                f"got {clean(self.till, limit=40)!r}"
            )
        url = self.ledger_url.get_secret_value() if self.ledger_url else ""
        # the URL is never repeated back: it may hold the database's password
        if url and not (url.isprintable() and url.split(":", 1)[0] in ("postgresql", "postgres")):
            raise ValueError("ledger_url must be one line starting postgresql://")
        if url:
            from orderdash.core.ledger.url import check_url

            check_url(url)  # refused before anything connects: libpq would read it otherwise
        if not (self.operator.strip() and self.operator.isprintable()):
            raise ValueError("operator must be one line of printable text")
        if self.ledger is not None and not (self.ledger.strip() and self.ledger.isprintable()):
            raise ValueError("ledger must be a file path")
        return self

    @model_validator(mode="after")
    def _check_create_url(self) -> Settings:
        if self.create_url is not None:
            self._check_service_url("create_url", self.create_url, "the access token")
        return self

    @model_validator(mode="after")
    def _check_callback_url(self) -> Settings:
        if self.callback_url is not None:
            parts = urlsplit(self.callback_url)
            # nothing secret goes to it: plain http is the shop's own choice
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("callback_url must be an http(s) URL")
            if parts.username or parts.password or not self.callback_url.isprintable():
                raise ValueError("callback_url must be one line, without credentials")
        return self

    @field_validator("callback_allow", mode="before")
    @classmethod
    def _split_callback_allow(cls, value: object) -> object:
        # from the environment: one text, the networks separated by commas
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @model_validator(mode="after")
    def _check_callback_allow(self) -> Settings:
        if self.callback_allow:
            # the receiver's own reading of the list; loaded only when a list is set
            from orderdash.core.receiver.guard import networks

            try:
                networks(self.callback_allow)
            except ValueError as exc:
                raise ValueError(f"callback_allow: {exc}") from None
        return self

    @model_validator(mode="after")
    def _check_bearer_token(self) -> Settings:
        token = self.bearer_token.get_secret_value() if self.bearer_token else ""
        # it travels as an HTTP header value: visible ASCII only (the token itself is never shown)
        if token and not (token.isascii() and token.isprintable() and " " not in token.strip()):
            raise ValueError("the bearer token must be one word of visible ASCII characters")
        access = self.access_token.get_secret_value() if self.access_token else ""
        if access and not (access.isprintable() and access.strip() == access):
            raise ValueError("the access token must be one line of visible characters")
        return self

    @property
    def timeouts(self) -> Timeouts:
        return Timeouts(connect=self.connect_timeout, read=self.read_timeout, deadline=self.timeout)

    @property
    def budgets(self) -> Budgets:
        """The four request budgets, as the watcher takes them: this till's share of the
        getOrder budgets (`tills_per_ip`)."""
        return {
            "budget_per_minute": max(1, self.budget_per_minute // self.tills_per_ip),
            "budget_per_hour": max(1, self.budget_per_hour // self.tills_per_ip),
            "rate_budget_per_minute": self.rate_budget_per_minute,
            "rate_budget_per_hour": self.rate_budget_per_hour,
        }

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mib * 1024 * 1024)
