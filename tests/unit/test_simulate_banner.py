"""`orderdash simulate` names the account its log-in and Generate Order accept when they are
the simulator's own made-up defaults, and never an access token it was given."""

from __future__ import annotations

from types import SimpleNamespace

from orderdash.simulator import Simulator
from orderdash.simulator.server import banner

SERVER = SimpleNamespace(base_url="http://127.0.0.1:8765", root_url="http://127.0.0.1:8765")


def test_the_banner_names_the_simulators_default_account() -> None:
    lines = banner(SERVER, Simulator(seed=7), {"bearer_lifetime": 3600.0})
    (account,) = [line for line in lines if "account:" in line]
    assert "access token demo" in account and "customer id 4711" in account
    assert lines[-1].startswith("  control: http://127.0.0.1:8765/_sim/")


def test_an_access_token_given_is_never_said() -> None:
    given = {"access_token": "tok-Zr4-given-by-file"}
    lines = banner(SERVER, Simulator(seed=7), given)
    said = "\n".join(lines)
    assert "tok-Zr4-given-by-file" not in said and "access token" not in said
    assert "customer id 4711" in said
