"""The PostgreSQL ledger's URL (`ledger_url`): checked before anything connects, shown without
its password, and its password's every part kept out of what the server or libpq says back.

libpq reads a URL its own way: the user part ends at the *first* `@` (unless a `/` comes
before it), where a URL reader such as `urlsplit` takes the *last* one. A password with a raw
`@` would be split differently by the two, its tail sent to the resolver as a host name and
echoed in libpq's errors; such a URL is refused until its password is percent-encoded.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlsplit

from orderdash.core.safetext import clean

#: What a user name or password must percent-encode (the URL's own delimiters).
ENCODE_HINT = (
    "ledger_url: a user name or password holding '@', ':', '/', '?' or '#' must be "
    "percent-encoded (%40 for @, %3A for :, %2F for /, %3F for ?, %23 for #)"
)
#: A secret's parts this long or longer are redacted on their own too (shorter ones would
#: blank out ordinary words and numbers).
_MIN_PART = 4


def check_url(url: str) -> None:
    """ValueError (`ENCODE_HINT`, never the URL) when libpq and a URL reader would not agree
    on where the user part ends, or a password holds a raw `:`."""
    _, separator, rest = url.partition("://")
    if not separator:
        return  # not a URL libpq splits (the settings refuse another scheme)
    # libpq's reading: the user part is everything before the first '@', unless a '/' comes first
    found = re.search(r"[@/]", rest)
    libpq_user = rest[: found.start()] if found is not None and found.group() == "@" else None
    # a URL reader's: the authority ends at the first '/', '?' or '#'; its user part at its last '@'
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    reader_user = authority.rpartition("@")[0] if "@" in authority else None
    if libpq_user != reader_user:
        raise ValueError(ENCODE_HINT)
    after_user = rest if libpq_user is None else rest[len(libpq_user) + 1 :]
    if "@" in re.split(r"[?#]", after_user, maxsplit=1)[0]:  # a '/' in the password, or in the path
        raise ValueError(ENCODE_HINT)
    if libpq_user is not None and ":" in libpq_user.partition(":")[2]:
        raise ValueError(ENCODE_HINT)


def public_url(url: str) -> str:
    """The URL fit to show: scheme, user, host, port and database; never a password or a
    query (which may carry one)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "postgresql://(a URL that cannot be read)"
    user = f"{parts.username}@" if parts.username else ""
    return clean(f"{parts.scheme}://{user}{host}{port}{parts.path}", limit=200)


def url_secrets(url: str) -> list[str]:
    """Every text of `url` never shown: its password as a URL reader and as libpq read it (in
    the user part or the query), decoded and not, and each part of it between the URL's
    delimiters, longest first (a message that echoes a piece of it, such as a host name cut
    from it, shows none)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return [url]
    found = [parts.password] if parts.password else []
    found += [value for key, value in parse_qsl(parts.query) if key == "password" and value]
    _, _, rest = url.partition("://")
    user, at, _ = rest.partition("@")
    if at and "/" not in user:
        found.append(user.partition(":")[2])  # libpq's: up to the first '@'
    secrets: set[str] = set()
    for secret in found:
        secrets |= secret_parts(secret)
    return sorted(secrets, key=len, reverse=True)


def secret_parts(secret: str) -> set[str]:
    """`secret` as is and decoded, and each part of it between the URL's delimiters."""
    parts: set[str] = set()
    for form in filter(None, (secret, unquote(secret))):
        parts.add(form)
        parts.update(part for part in re.split(r"[@:/?#&=]", form) if len(part) >= _MIN_PART)
    return parts
