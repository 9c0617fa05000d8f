"""`orderdash simulate`'s callback flags: checked before anything is served (one line, exit 2)
and handed to the server as its callback settings; a callback fault is checked as the other
faults are."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdash.cli import build_parser, main
from orderdash.cli.simulate import callback_options
from orderdash.simulator import Fault


def test_the_flags_become_the_servers_callback_settings() -> None:
    args = build_parser().parse_args(
        [
            "simulate",
            "--callback-url",
            "https://shop.example/callback",
            "--callback-form",
            "--callback-fault",
            "lost",
            "--callback-fault",
            "forged",
            "--callback-delay",
            "2.5",
        ]
    )
    assert callback_options(args) == {
        "callback_url": "https://shop.example/callback",
        "callback_form": True,
        "callback_faults": ("lost", "forged"),
        "callback_delay": 2.5,
    }
    assert callback_options(build_parser().parse_args(["simulate"])) == {}


@pytest.mark.parametrize(
    "flags",
    [
        ["--callback-url", "ftp://shop.example/callback"],
        ["--callback-url", "http:///no-host"],
        ["--callback-fault", "lost"],
        ["--callback-url", "http://127.0.0.1:9/cb", "--callback-delay", "0"],
    ],
)
def test_bad_callback_flags_are_one_line_and_exit_2(
    flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token_file = tmp_path / "token"
    code = main(["simulate", "--bearer-token-file", str(token_file), *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert "callback" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "callback" in line]) == 1


def test_a_callback_fault_names_its_kind_and_only_the_callbacks() -> None:
    assert Fault.from_json({"endpoint": "callback", "callback": "duplicate"}).callback == (
        "duplicate"
    )
    for bad in (
        {"endpoint": "callback"},
        {"endpoint": "order", "callback": "lost"},
        {"endpoint": "callback", "callback": "late"},
        {"endpoint": "callback", "callback": "delayed"},
    ):
        with pytest.raises(ValueError):
            Fault.from_json(bad)
