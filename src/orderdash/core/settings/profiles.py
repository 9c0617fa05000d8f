"""Named sets of hosts (`profile`): one word switches every host setting, e.g. from the
service to its sandbox. A host setting given anywhere (a config file, the environment, the
command line) still wins over the profile's.

- `production`: the hosts given once in the config file's `[profiles.production]` table (the
  service's published host names are its own to change: none is written into orderdash);
- `sandbox`: production's hosts with `test-` before each host name, as the service names its
  sandbox, unless `[profiles.sandbox]` gives its own;
- any other name: the `[profiles.NAME]` table that defines it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from orderdash.core.model.errors import ConfigError
from orderdash.core.safetext import clean

#: The settings a profile may hold: the hosts.
HOST_SETTINGS = ("base_url", "create_url")
PRODUCTION = "production"
SANDBOX = "sandbox"
#: What the service puts before each host name of its sandbox.
SANDBOX_PREFIX = "test-"


def profile_tables(layers: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Every `[profiles.NAME]` table of the layers, a later layer's keys over an earlier's."""
    tables: dict[str, dict[str, str]] = {}
    for layer in layers:
        given = layer.get("profiles")
        if given is None:
            continue
        if not isinstance(given, Mapping):
            raise ConfigError("invalid setting profiles: tables of host settings ([profiles.NAME])")
        for name, table in given.items():
            tables.setdefault(str(name), {}).update(_table(str(name), table))
    return tables


def _table(name: str, table: Any) -> dict[str, str]:
    if not isinstance(table, Mapping):
        raise ConfigError(f"invalid setting profiles.{clean(name, limit=40)}: a table of hosts")
    hosts: dict[str, str] = {}
    for key, value in table.items():
        if key not in HOST_SETTINGS:
            raise ConfigError(
                f"invalid setting profiles.{clean(name, limit=40)}.{clean(str(key), limit=40)}: "
                f"a profile holds {' and '.join(HOST_SETTINGS)} only"
            )
        if not isinstance(value, str):
            raise ConfigError(f"invalid setting profiles.{clean(name, limit=40)}.{key}: a URL")
        hosts[key] = value
    return hosts


def profile_hosts(name: str, tables: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """The host settings of the profile `name` (ConfigError, one line, when it has none)."""
    if name in tables:
        return dict(tables[name])
    if name == SANDBOX and PRODUCTION in tables:
        return {key: sandbox_url(url) for key, url in tables[PRODUCTION].items()}
    shown = clean(name, limit=40)
    if name in (PRODUCTION, SANDBOX):
        raise ConfigError(
            f"profile {shown}: give the service's hosts once in the config file's "
            "[profiles.production] table (base_url, create_url); sandbox follows from it"
        )
    known = ", ".join(sorted({*tables, SANDBOX} if PRODUCTION in tables else tables)) or "none"
    raise ConfigError(f"profile {shown} is not defined ([profiles.{shown}]); defined: {known}")


def sandbox_url(url: str) -> str:
    """`url` on the service's sandbox: `test-` before its host name (once)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host or host.startswith(SANDBOX_PREFIX):
        return url
    # the host as written (`hostname` is lowercased), after any user name that might hold it
    user, at, written = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=user + at + SANDBOX_PREFIX + written))


def apply_profile(merged: dict[str, Any], layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`merged` with the hosts of its `profile` where no layer gave that host setting; the
    profile tables themselves are left out (they are only read here)."""
    merged = {k: v for k, v in merged.items() if k != "profiles"}
    tables = profile_tables(layers)
    name = merged.get("profile")
    if name in (None, ""):
        merged.pop("profile", None)
        return merged
    if not isinstance(name, str):
        raise ConfigError("invalid setting profile: a profile's name")
    for key, url in profile_hosts(name, tables).items():
        merged.setdefault(key, url)
    return merged
