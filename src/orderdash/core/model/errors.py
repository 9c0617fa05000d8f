"""One typed hierarchy of failures, each with a one-line message a person can act on."""

from __future__ import annotations

from orderdash.core.safetext import clean, without_secret

#: Exit codes of the one-shot CLI, by error family.
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_SERVICE = 5
#: A charge made its order, then stopped short of it (the coin not offered, the currency not the
#: till's, the order not readable): the order's token is told, never left an orphan.
EXIT_CHARGE_STOPPED = 6


class OrderdashError(Exception):
    """Base of every failure this project reports. `str(err)` is one safe line."""

    exit_code = EXIT_SERVICE

    def __init__(self, message: str) -> None:
        self.message = clean(" ".join(message.split()), limit=300)
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def redacted(self, secret: str | None) -> OrderdashError:
        """Drop every occurrence of `secret` from the message (a server can echo what it got)."""
        if secret:
            message = without_secret(self.message, secret)
            if message != self.message:
                self.message = message
                self.args = (self.message,)
        return self


class UsageError(OrderdashError):
    """The user asked for something that cannot be done (bad token, bad option, bad config)."""

    exit_code = EXIT_USAGE


class InvalidToken(UsageError):
    pass


class ConfigError(UsageError):
    pass


class ApiError(OrderdashError):
    """The request was made and the service (or the way to it) failed."""

    #: Seconds the server asked us to wait, when it said so.
    retry_after: float | None = None


class NotFound(ApiError):
    exit_code = EXIT_NOT_FOUND


class AuthError(ApiError):
    exit_code = EXIT_AUTH


class AuthRequired(AuthError):
    """No bearer token is configured, so the rate call is not even attempted."""


class AuthRefused(AuthError):
    pass


class RateLimited(ApiError):
    def __init__(self, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServiceError(ApiError):
    def __init__(self, message: str, status: int, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class NetworkError(ApiError):
    pass


class OrderTokenTaken(ApiError):
    """Generate Order refused the order token as taken: an order with it exists."""


class ChargeOutcomeUnknown(ApiError):
    """Nobody can say whether a charge's order was made (every try lost its answer, a 5xx, an
    answer naming another order): `token`, the one it sent, names the order that may exist."""

    def __init__(self, message: str, token: str, reason: str = "") -> None:
        super().__init__(message)
        self.token = token
        #: What happened, without the token (the message names both).
        self.reason = clean(" ".join(reason.split()), limit=200)


class ChargeStopped(ApiError):
    """A charge's order was made, then the charge stopped before the customer saw it."""

    exit_code = EXIT_CHARGE_STOPPED

    def __init__(self, message: str, token: str, payment_url: str | None = None) -> None:
        super().__init__(message)
        self.token = token
        self.payment_url = payment_url


class Timeout(NetworkError):
    pass


class CannotConnect(NetworkError):
    pass


class InvalidResponse(ApiError):
    """The service answered, but not with something this client can trust."""


class ResponseTooLarge(InvalidResponse):
    pass


class UnexpectedRedirect(InvalidResponse):
    pass


class FailureReported(InvalidResponse):
    """The envelope itself says the call failed (`success: false`)."""

    def __init__(self, message: str, server_message: str | None) -> None:
        super().__init__(message)
        self.server_message = server_message

    def redacted(self, secret: str | None) -> OrderdashError:
        if secret and self.server_message:
            self.server_message = without_secret(self.server_message, secret)
        return super().redacted(secret)
