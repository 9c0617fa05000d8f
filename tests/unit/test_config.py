"""Settings sources and their order: CLI > environment > TOML file > defaults."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.model import DEFAULT_BASE_URL, Settings
from orderdash.core.settings.sources import load_settings, site_config_file, site_config_files


def write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_defaults_without_any_source(tmp_path: Path) -> None:
    settings, warnings = load_settings(
        {}, {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    )
    assert settings.base_url == DEFAULT_BASE_URL
    assert settings.refresh_interval == 60 and settings.poll_interval == 10
    assert settings.bearer_token is None
    assert warnings == []


def test_missing_default_config_file_is_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing-here"))
    settings, _ = load_settings({}, {"XDG_CONFIG_HOME": str(tmp_path / "nothing-here")})
    assert settings.base_url == DEFAULT_BASE_URL


def test_precedence_cli_over_env_over_file(tmp_path: Path) -> None:
    config = write(
        tmp_path / "c.toml",
        'base_url = "https://file.example"\n'
        "poll_interval = 3\nrefresh_interval = 30\ntimeout = 9\n",
    )
    env = {
        "ORDERDASH_CONFIG": str(config),
        "ORDERDASH_POLL_INTERVAL": "4",
        "ORDERDASH_BASE_URL": "https://env.example/pay/api",
    }
    settings, _ = load_settings({"poll_interval": 5.0}, env)
    assert settings.poll_interval == 5.0  # CLI
    assert settings.base_url == "https://env.example/pay/api"  # env over file
    assert settings.refresh_interval == 30  # file over default
    assert settings.timeout == 9


def test_bearer_token_from_file_at_the_highest_level_wins(tmp_path: Path) -> None:
    token_file = write(tmp_path / "token", "  from-file-token \n")
    env = {
        "ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", "")),
        "ORDERDASH_BEARER_TOKEN": "env-token",
    }
    settings, _ = load_settings({}, env)
    assert settings.bearer_token is not None
    assert settings.bearer_token.get_secret_value() == "env-token"
    settings, _ = load_settings({"bearer_token_file": str(token_file)}, env)
    assert settings.bearer_token.get_secret_value() == "from-file-token"
    assert "from-file-token" not in repr(settings) and "from-file-token" not in str(settings)


def test_token_file_readable_by_others_is_warned_about(tmp_path: Path) -> None:
    token_file = write(tmp_path / "token", "Zq9-secret", mode=0o644)
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    _, warnings = load_settings({"bearer_token_file": str(token_file)}, env)
    assert len(warnings) == 1 and "readable by others" in warnings[0]
    assert "Zq9-secret" not in warnings[0]


def test_a_poll_faster_than_the_budget_allows_is_warned_about(tmp_path: Path) -> None:
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    _, warnings = load_settings({"poll_interval": 0.2, "budget_per_minute": 200}, env)
    assert warnings == [
        "poll_interval 0.2 s asks for 300 requests a minute, over budget_per_minute 200: "
        "polling will pause whenever the budget is spent"
    ]
    at_the_limits = {"poll_interval": 0.3, "budget_per_minute": 200, "budget_per_hour": 12_000}
    _, at_the_limit = load_settings(at_the_limits, env)
    assert at_the_limit == []


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"base_url": "http://pay.example"}, "unencrypted"),
        ({"base_url": "ftp://pay.example"}, "http(s) URL"),
        ({"base_url": "https://user:pw@pay.example"}, "credentials"),
        ({"base_url": "https://pay.example/?x=1"}, "query"),
        ({"create_url": "http://pay.example/generate"}, "access token unencrypted"),
        ({"create_url": "ftp://pay.example"}, "create_url must be an http"),
        ({"create_url": "https://u:p@pay.example/g"}, "create_url must not carry credentials"),
        ({"create_url": "https://pay.example/g#x"}, "create_url must not have a query"),
        ({"poll_interval": 0}, "poll_interval"),
        ({"bearer_token_file": "/nonexistent/token"}, "cannot read the bearer token file"),
        ({"no_such_setting": 1}, "no_such_setting"),
    ],
)
def test_bad_settings_are_one_clear_line(tmp_path: Path, cli: dict, message: str) -> None:
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    with pytest.raises(ConfigError) as caught:
        load_settings(cli, env)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_plain_http_allowed_for_loopback_or_by_opt_in() -> None:
    assert Settings(base_url="http://127.0.0.1:9/x").base_url.startswith("http://127")
    assert Settings(base_url="http://localhost:9").base_url.startswith("http://localhost")
    assert Settings(base_url="http://[::1]:9").base_url.startswith("http://[::1]")
    assert Settings(base_url="http://pay.example", allow_insecure_http=True)


def test_explicit_config_file_must_exist_and_parse(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings({}, {"ORDERDASH_CONFIG": str(tmp_path / "missing.toml")})
    bad = write(tmp_path / "bad.toml", "base_url = ")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({}, {"ORDERDASH_CONFIG": str(bad)})


def test_empty_token_file_is_an_error(tmp_path: Path) -> None:
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    with pytest.raises(ConfigError, match="empty"):
        load_settings({"bearer_token_file": str(write(tmp_path / "t", "\n"))}, env)


def test_real_environment_is_the_default_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ORDERDASH_CONFIG", str(write(tmp_path / "c.toml", "")))
    monkeypatch.setenv("ORDERDASH_REFRESH_INTERVAL", "42")
    settings, _ = load_settings()
    assert settings.refresh_interval == 42
    assert os.environ["ORDERDASH_REFRESH_INTERVAL"] == "42"


def test_the_four_budgets_from_file_env_and_command_line(tmp_path: Path) -> None:
    from orderdash.cli import _settings_overrides, build_parser

    defaults, _ = load_settings({}, {"ORDERDASH_CONFIG": str(write(tmp_path / "d.toml", ""))})
    assert defaults.budgets == {
        "budget_per_minute": 200,
        "budget_per_hour": 10_000,
        "rate_budget_per_minute": 200,
        "rate_budget_per_hour": 1_000,
    }
    config = write(tmp_path / "c.toml", "budget_per_hour = 5000\nrate_budget_per_hour = 300\n")
    env = {"ORDERDASH_CONFIG": str(config), "ORDERDASH_RATE_BUDGET_PER_MINUTE": "50"}
    args = build_parser().parse_args(["watch", "t", "--rate-budget-per-hour", "250"])
    settings, _ = load_settings(_settings_overrides(args), env)
    assert settings.budgets == {
        "budget_per_minute": 200,
        "budget_per_hour": 5000,  # file
        "rate_budget_per_minute": 50,  # environment
        "rate_budget_per_hour": 250,  # command line over file
    }
    with pytest.raises(ConfigError, match="rate_budget_per_hour"):
        load_settings({"rate_budget_per_hour": 0}, env)


def test_a_poll_over_the_hourly_budget_is_warned_about(tmp_path: Path) -> None:
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    _, warnings = load_settings({"poll_interval": 1.0, "budget_per_hour": 120}, env)
    assert warnings == [
        "poll_interval 1 s asks for 3,600 requests an hour, over budget_per_hour 120: the order "
        "on screen will be read less often, evenly over the hour"
    ]


def test_qr_uppercase_from_every_source(tmp_path: Path) -> None:
    from orderdash.cli import _settings_overrides, build_parser

    empty = str(write(tmp_path / "empty.toml", ""))
    assert load_settings({}, {"ORDERDASH_CONFIG": empty})[0].qr_uppercase is True
    off = str(write(tmp_path / "off.toml", "qr_uppercase = false\n"))
    assert load_settings({}, {"ORDERDASH_CONFIG": off})[0].qr_uppercase is False
    env = {"ORDERDASH_CONFIG": empty, "ORDERDASH_QR_UPPERCASE": "false"}
    assert load_settings({}, env)[0].qr_uppercase is False
    for command in ("tui", "pos", "watch", "demo"):
        extra = ["TOKEN"] if command == "pos" else []
        args = build_parser().parse_args([command, *extra, "--no-qr-uppercase"])
        overrides = _settings_overrides(args)
        assert overrides["qr_uppercase"] is False
        assert load_settings(overrides, {"ORDERDASH_CONFIG": empty})[0].qr_uppercase is False
    args = build_parser().parse_args(["tui"])
    assert "qr_uppercase" not in _settings_overrides(args)  # not given: the file or env decide


@pytest.mark.parametrize(
    "content",
    [
        b'base_url = "http://127.0.0.1:1"\n# caf\xe9\n',  # Latin-1, not UTF-8
        b"\xff\xfeb\x00a\x00",  # UTF-16 with its byte-order mark
        b"\x00\x01\x02binary",
    ],
    ids=["latin-1", "utf-16", "binary"],
)
def test_a_config_file_that_cannot_be_read_is_one_line_exit_2(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match="config file"):
        load_settings({}, {"ORDERDASH_CONFIG": str(path)})
    result = run_cli("get", "demo-btc-eur", env={"ORDERDASH_CONFIG": str(path)})
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("orderdash: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_access_token_and_customer_id_from_env_file_and_command_line(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", 'customer_id = 4711\naccess_token = "from-toml"\n')
    env = {"ORDERDASH_CONFIG": str(config)}
    settings, _ = load_settings({}, env)
    assert settings.customer_id == "4711"
    assert settings.access_token is not None
    assert settings.access_token.get_secret_value() == "from-toml"
    env |= {"ORDERDASH_ACCESS_TOKEN": "from-env", "ORDERDASH_CUSTOMER_ID": "815"}
    settings, _ = load_settings({}, env)
    assert settings.access_token.get_secret_value() == "from-env"
    assert settings.customer_id == "815"
    access_file = write(tmp_path / "access", "from-file\n")
    settings, warnings = load_settings({"access_token_file": str(access_file)}, env)
    assert settings.access_token.get_secret_value() == "from-file" and not warnings
    assert "from-file" not in repr(settings) and "from-file" not in str(settings)
    env["ORDERDASH_ACCESS_TOKEN_FILE"] = str(access_file)
    del env["ORDERDASH_ACCESS_TOKEN"]
    settings, _ = load_settings({}, env)
    assert settings.access_token.get_secret_value() == "from-file"


def test_an_access_token_file_readable_by_others_is_warned_about(tmp_path: Path) -> None:
    access_file = write(tmp_path / "access", "Zq9-access", mode=0o640)
    env = {"ORDERDASH_CONFIG": str(write(tmp_path / "c.toml", ""))}
    _, warnings = load_settings({"access_token_file": str(access_file)}, env)
    assert warnings == [f"the access token file {access_file} is readable by others: chmod 600 it"]
    with pytest.raises(ConfigError, match="access token file"):
        load_settings({"access_token_file": str(tmp_path / "missing")}, env)


def test_the_site_config_comes_first_and_its_readonly_cannot_be_lifted(tmp_path: Path) -> None:
    """The administrator's site file: its settings are every user's defaults, under the user's
    own file, and its `readonly = true` holds whatever the user's file, the environment or the
    command line say."""
    site = write(tmp_path / "site.toml", "readonly = true\npoll_interval = 7\n", mode=0o644)
    user = write(tmp_path / "user.toml", "readonly = false\n")
    env = {"ORDERDASH_CONFIG": str(user), "ORDERDASH_SITE_CONFIG": str(site)}
    settings, warnings = load_settings({}, env)
    assert settings.readonly is True and settings.poll_interval == 7
    assert warnings == [
        f"the site config {site} pins readonly: the config file {user} cannot lift it"
    ]
    settings, warnings = load_settings({"poll_interval": 3}, {**env, "ORDERDASH_READONLY": "0"})
    assert settings.readonly is True and settings.poll_interval == 3
    assert f"the site config {site} pins readonly: ORDERDASH_READONLY cannot lift it" in warnings
    # the same through the parameter, and with the site's value in another spelling
    write(site, 'readonly = "yes"\n', mode=0o644)
    settings, _ = load_settings({}, {"ORDERDASH_READONLY": "false"}, site_files=[(site, True)])
    assert settings.readonly is True


def test_without_a_pin_the_site_config_changes_nothing_of_read_only(tmp_path: Path) -> None:
    user = write(tmp_path / "user.toml", "")
    for text in ("", "readonly = false\n"):
        site = write(tmp_path / "site.toml", text, mode=0o644)
        env = {"ORDERDASH_CONFIG": str(user), "ORDERDASH_SITE_CONFIG": str(site)}
        assert load_settings({}, env) == load_settings({}, {"ORDERDASH_CONFIG": str(user)})
        assert load_settings({}, env)[0].readonly is False
        assert load_settings({}, {**env, "ORDERDASH_READONLY": "1"})[0].readonly is True


def test_a_site_config_that_cannot_be_read_stops_the_command(tmp_path: Path) -> None:
    """A pin that cannot be read is not taken for no pin."""
    site = write(tmp_path / "site.toml", 'readonly = "perhaps"\n', mode=0o644)
    with pytest.raises(ConfigError, match="readonly in the site config"):
        load_settings({}, {}, site_files=[(site, False)])
    write(site, "readonly = [true\n", mode=0o644)
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({}, {}, site_files=[(site, False)])
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings({}, {"ORDERDASH_SITE_CONFIG": str(tmp_path / "missing.toml")})


def test_the_site_config_is_in_a_place_no_user_variable_moves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """platformdirs takes the site config directory from $XDG_CONFIG_DIRS, which any user may
    set: the pinned file is not looked for there. $ORDERDASH_SITE_CONFIG adds a file, it
    never replaces the platform's."""
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path))
    expected = {
        "win32": Path("C:/ProgramData/orderdash/config.toml"),
        "darwin": Path("/Library/Application Support/orderdash/config.toml"),
    }.get(sys.platform, Path("/etc/xdg/orderdash/config.toml"))
    assert site_config_file() == expected
    extra = tmp_path / "site.toml"
    assert site_config_files({"ORDERDASH_SITE_CONFIG": str(extra)}) == [
        (expected, False),
        (extra, True),
    ]


def test_notification_urls_in_a_site_config_are_sent_to_the_users_own_file(
    tmp_path: Path,
) -> None:
    """A site file is every user's to read: "chmod 600 it" would lock them out, so the warning
    says where the secrets belong instead."""
    rule = '[[notify]]\nevents = ["close"]\nurls = ["json://127.0.0.1:9/x"]\n'
    site = write(tmp_path / "site.toml", rule, mode=0o644)
    user = write(tmp_path / "user.toml", "")
    env = {"ORDERDASH_CONFIG": str(user), "ORDERDASH_SITE_CONFIG": str(site)}
    _, warnings = load_settings({}, env)
    assert warnings == [
        f"the site config {site} holds notification URLs (secrets), readable by every user: "
        "put them in the user's own config file (mode 600)"
    ]
