"""Profiles of hosts: one word (`profile`, `ORDERDASH_PROFILE`, `--hosts`) picks a set of host
settings; `sandbox` is production's hosts with `test-` before each host name; a host setting
given anywhere wins over the profile's."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdash.cli.options import parse_command_line
from orderdash.cli.settings import settings_overrides
from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.model import DEFAULT_BASE_URL
from orderdash.core.settings.profiles import sandbox_url
from orderdash.core.settings.sources import load_settings

PROFILES = """
[profiles.production]
base_url = "https://v2-order-api.pay.example"
create_url = "https://v2-listener.pay.example"

[profiles.staging]
base_url = "https://staging.pay.example:8443/api"
"""


def config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return {"ORDERDASH_CONFIG": str(path)}


def load(env: dict[str, str], cli: dict[str, object] | None = None) -> tuple[str, str | None]:
    settings, _ = load_settings(cli or {}, env, site_files=[])
    return settings.base_url, settings.create_url


def test_one_word_picks_the_profiles_hosts(tmp_path: Path) -> None:
    env = config(tmp_path, 'profile = "production"\n' + PROFILES)
    assert load(env) == ("https://v2-order-api.pay.example", "https://v2-listener.pay.example")
    assert load({**env, "ORDERDASH_PROFILE": "staging"}) == (
        "https://staging.pay.example:8443/api",
        None,
    )


def test_sandbox_is_production_with_the_services_test_prefix(tmp_path: Path) -> None:
    env = config(tmp_path, PROFILES)
    assert load({**env, "ORDERDASH_PROFILE": "sandbox"}) == (
        "https://test-v2-order-api.pay.example",
        "https://test-v2-listener.pay.example",
    )
    assert sandbox_url("https://test-a.example/x") == "https://test-a.example/x"  # once
    assert sandbox_url("http://127.0.0.1:8765") == "http://test-127.0.0.1:8765"


def test_a_sandbox_table_of_ones_own_wins(tmp_path: Path) -> None:
    env = config(tmp_path, PROFILES + '[profiles.sandbox]\nbase_url = "https://mine.example"\n')
    assert load({**env, "ORDERDASH_PROFILE": "sandbox"}) == ("https://mine.example", None)


def test_a_host_setting_given_anywhere_wins_over_the_profile(tmp_path: Path) -> None:
    env = config(tmp_path, 'profile = "sandbox"\n' + PROFILES)
    assert load({**env, "ORDERDASH_BASE_URL": "https://env.example"}) == (
        "https://env.example",
        "https://test-v2-listener.pay.example",
    )
    assert load(env, {"create_url": "https://cli.example"}) == (
        "https://test-v2-order-api.pay.example",
        "https://cli.example",
    )
    # in the same file too: the profile fills only what is not given
    env = config(tmp_path, 'profile = "production"\nbase_url = "https://file.example"\n' + PROFILES)
    assert load(env)[0] == "https://file.example"


def test_the_command_line_picks_the_profile_with_hosts(tmp_path: Path) -> None:
    env = config(tmp_path, 'profile = "production"\n' + PROFILES)
    args = parse_command_line(["doctor", "--hosts", "sandbox"])
    assert load(env, settings_overrides(args))[0] == "https://test-v2-order-api.pay.example"
    # `export --profile` is a CSV layout, never a profile of hosts
    export = parse_command_line(
        [
            "export",
            "--since",
            "2026-11-01",
            "--until",
            "2026-11-02",
            "--table",
            "settlement",
            "--profile",
            "koinly",
            "--hosts",
            "sandbox",
        ]
    )
    assert export.profile == "koinly" and settings_overrides(export)["profile"] == "sandbox"


def test_no_profile_leaves_the_defaults(tmp_path: Path) -> None:
    assert load(config(tmp_path, PROFILES)) == (DEFAULT_BASE_URL, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('profile = "production"\n', "give the service's hosts once in the config file's"),
        ('profile = "sandbox"\n', "[profiles.production]"),
        ('profile = "nowhere"\n' + PROFILES, "profile nowhere is not defined"),
        ('[profiles.x]\ntoken = "t"\n', "a profile holds base_url and create_url only"),
        ("[profiles.x]\nbase_url = 3\n", "profiles.x.base_url: a URL"),
    ],
)
def test_a_profile_that_cannot_be_used_is_one_clear_line(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=r"^(invalid setting |profile )") as error:
        load(config(tmp_path, text))
    assert message in error.value.message


def test_a_profiles_hosts_are_checked_as_any_host(tmp_path: Path) -> None:
    env = config(tmp_path, '[profiles.lan]\nbase_url = "http://10.0.0.5"\n')
    with pytest.raises(ConfigError, match="plain http://"):
        load({**env, "ORDERDASH_PROFILE": "lan"})


def test_sandbox_never_leaves_a_production_host_as_it_was() -> None:
    # a host name written in capitals is still the production host: its sandbox is test-'s
    assert sandbox_url("https://V2-Order-API.pay.example/x") == (
        "https://test-V2-Order-API.pay.example/x"
    )
    # the host name, not a user name that happens to hold it
    assert sandbox_url("https://pay.example@pay.example:8443/") == (
        "https://pay.example@test-pay.example:8443/"
    )
