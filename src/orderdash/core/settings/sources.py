"""Settings from, highest first: command-line options, environment, a TOML file, the site's
TOML file, defaults (`model.py`'s).

The TOML file is `$ORDERDASH_CONFIG`, else `config.toml` in the user config dir. The site file
(`site_config_file`, system-wide, the administrator's) is read first and always: its settings
are every user's defaults, and its `readonly = true` is a pin no other source lifts. Every
setting `name` can be given as `ORDERDASH_NAME` in the environment. The bearer token can come from
`bearer_token` or, better, `bearer_token_file` at any level, and the access token likewise from
`access_token` or `access_token_file`; both are held as SecretStr.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import SecretStr, ValidationError

from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.model import Settings

ENV_PREFIX = "ORDERDASH_"
TOKEN_FILE_KEY = "bearer_token_file"
ACCESS_TOKEN_FILE_KEY = "access_token_file"
#: Each file setting and the secret setting it fills.
_SECRET_FILES = {TOKEN_FILE_KEY: "bearer_token", ACCESS_TOKEN_FILE_KEY: "access_token"}
#: The settings that are a secret or name its file (the customer display reads none of them);
#: `ledger_url` may hold the database's password, `notify` the notification services' keys.
_SECRET_SETTINGS = frozenset(name for pair in _SECRET_FILES.items() for name in pair) | {
    "ledger_url",
    "notify",
}
#: The variables that hold a secret or name the file that does: no child process (clipboard
#: tool, browser, web display process) is given them (`child_environment`).
SECRET_VARIABLES = frozenset(ENV_PREFIX + name.upper() for name in _SECRET_SETTINGS)


def child_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to start a child process with: this one's (or `env`) without the
    secrets' variables."""
    env = os.environ if env is None else env
    return {name: value for name, value in env.items() if name not in SECRET_VARIABLES}


#: Names one more site file, read with the platform's (`site_config_files`): for tests, and to
#: try a site file before it is installed. It never replaces the platform's file.
SITE_CONFIG_VARIABLE = f"{ENV_PREFIX}SITE_CONFIG"


def site_config_file() -> Path:
    """The system-wide config file: platformdirs' default site config directory, fixed here
    because platformdirs follows `$XDG_CONFIG_DIRS` (and on macOS and Windows other variables),
    which any user may set: a pin its user could move elsewhere would pin nothing."""
    if sys.platform == "win32":
        return Path("C:/ProgramData/orderdash/config.toml")
    if sys.platform == "darwin":
        return Path("/Library/Application Support/orderdash/config.toml")
    return Path("/etc/xdg/orderdash/config.toml")


def site_config_files(env: Mapping[str, str]) -> list[tuple[Path, bool]]:
    """The site files to read, each with whether it must exist: the platform's (if it is
    there), and the one `$ORDERDASH_SITE_CONFIG` names as well (it must be)."""
    files = [(site_config_file(), False)]
    if extra := env.get(SITE_CONFIG_VARIABLE):
        files.append((Path(extra).expanduser(), True))
    return files


def _as_bool(value: Any) -> bool | None:
    """`value` as the settings read a yes or a no (true, "1", "yes", ...); None: neither."""
    from pydantic import TypeAdapter

    try:
        return TypeAdapter(bool).validate_python(value)
    except ValidationError:
        return None


def _readonly_pin(site_layers: Sequence[tuple[Path, dict[str, Any]]]) -> Path | None:
    """The site file whose `readonly` is true, if one is. A value that is neither a yes nor a
    no stops the command: a pin that cannot be read is not taken for no pin."""
    for path, layer in site_layers:
        if "readonly" not in layer:
            continue
        pinned = _as_bool(layer["readonly"])
        if pinned is None:
            raise ConfigError(f"invalid setting readonly in the site config {path}: true or false")
        if pinned:
            return path
    return None


def default_config_path(env: Mapping[str, str]) -> tuple[Path, bool]:
    """The config file and whether the user named it explicitly (then it must exist)."""
    explicit = env.get(f"{ENV_PREFIX}CONFIG")
    if explicit:
        return Path(explicit).expanduser(), True
    from platformdirs import user_config_path

    return user_config_path("orderdash") / "config.toml", False


def read_token_file(
    path: str | os.PathLike[str], warnings: list[str], *, what: str = "bearer token"
) -> SecretStr:
    file = Path(path).expanduser()
    try:
        mode = file.stat().st_mode
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the {what} file {file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the {what} file {file} is not UTF-8 text") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        warnings.append(f"the {what} file {file} is readable by others: chmod 600 it")
    token = text.strip()
    if not token:
        raise ConfigError(f"the {what} file {file} is empty")
    if not token.isprintable():
        raise ConfigError(f"the {what} file {file} holds more than one line or control characters")
    return SecretStr(token)


def _readable_by_others(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return os.name == "posix" and bool(mode & (stat.S_IRWXG | stat.S_IRWXO))


def _layer_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    names = set(Settings.model_fields) | set(_SECRET_FILES)
    layer = {}
    for name in names:
        value = env.get(ENV_PREFIX + name.upper())
        if value is not None and value != "":
            layer[name] = value
    return layer


def _layer_from_toml(path: Path, required: bool) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return _parse_toml(handle, path)
    except FileNotFoundError:
        if required:
            raise ConfigError(f"the config file {path} does not exist") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the config file {path} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:  # anything else tomllib cannot read
        raise ConfigError(f"cannot read the config file {path}: {exc}") from None


def _parse_toml(handle: BinaryIO, path: Path) -> dict[str, Any]:
    # tomllib only once a config file is open (~2 ms of a start): most runs have none
    import tomllib

    try:
        return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the config file {path} is not valid TOML: {exc}") from None


def _resolve_token(layer: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    layer = dict(layer)
    for key, setting in _SECRET_FILES.items():
        token_file = layer.pop(key, None)
        if token_file:
            what = setting.replace("_", " ")
            layer[setting] = read_token_file(token_file, warnings, what=what)
    return layer


def load_settings(
    cli: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    with_token: bool = True,
    site_files: Sequence[tuple[Path, bool]] | None = None,
) -> tuple[Settings, list[str]]:
    """Merge the sources; returns the settings and warnings to show the user once.
    `with_token=False` (the customer display) neither reads a token file nor keeps a token
    (the bearer's or the access token). `site_files`: the site files, each with whether it
    must exist (default `site_config_files(env)`); a `readonly = true` in one of them holds
    whatever the other sources say."""
    env = os.environ if env is None else env
    warnings: list[str] = []
    sites = site_config_files(env) if site_files is None else site_files
    site_layers = [(site, _layer_from_toml(site, must)) for site, must in sites]
    path, required = default_config_path(env)
    files = [*site_layers, (path, _layer_from_toml(path, required))]
    layers = [
        *(layer for _, layer in files),
        _layer_from_env(env),
        {k: v for k, v in (cli or {}).items() if v is not None},
    ]
    for index, (file, layer) in enumerate(files):
        if layer.get("notify") and _readable_by_others(file):
            # a site file is every user's to read (600 would lock them out of it): the URLs
            # belong in each user's own file instead
            warnings.append(
                f"the site config {file} holds notification URLs (secrets), readable by every "
                "user: put them in the user's own config file (mode 600)"
                if index < len(site_layers)
                else f"the config file {file} holds notification URLs (secrets) and is "
                "readable by others: chmod 600 it"
            )
    merged: dict[str, Any] = {}
    for layer in layers:
        if not with_token:
            layer = {k: v for k, v in layer.items() if k not in _SECRET_SETTINGS}
        merged.update(_resolve_token(layer, warnings))
    pin = _readonly_pin(site_layers)
    if pin is not None:
        user = ((f"the config file {path}", files[-1][1]), (f"{ENV_PREFIX}READONLY", layers[-2]))
        for where, layer in user:
            if "readonly" in layer and _as_bool(layer["readonly"]) is not True:
                warnings.append(f"the site config {pin} pins readonly: {where} cannot lift it")
        merged["readonly"] = True
    if "profile" in merged or any("profiles" in layer for layer in layers):
        from orderdash.core.settings.profiles import apply_profile  # with profiles only

        merged = apply_profile(merged, layers)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        prefix = f"invalid setting {where}: " if where else "invalid settings: "
        raise ConfigError(prefix + message) from None
    wanted = 60 / settings.poll_interval
    share = settings.budgets  # this till's share (`tills_per_ip`)
    if wanted > share["budget_per_minute"]:
        # the scheduler keeps the budget: the order on screen is read less often than asked
        warnings.append(
            f"poll_interval {settings.poll_interval:g} s asks for {wanted:,.0f} requests a "
            f"minute, over budget_per_minute {share['budget_per_minute']}: polling will pause "
            "whenever the budget is spent"
        )
    elif wanted * 60 > share["budget_per_hour"]:
        warnings.append(
            f"poll_interval {settings.poll_interval:g} s asks for {wanted * 60:,.0f} requests an "
            f"hour, over budget_per_hour {share['budget_per_hour']}: the order on screen will be "
            "read less often, evenly over the hour"
        )
    return settings, warnings
