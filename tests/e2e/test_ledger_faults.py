"""A database URL libpq would read otherwise than we do is refused before anything connects,
no part of its password shown or logged."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from conftest import BEARER, run_cli


def test_a_password_libpq_would_split_is_refused_before_anything_connects(
    tmp_path: Path,
) -> None:
    """The password `shop-pw@Tail-SeCrEt99` unencoded: libpq would take `Tail-SeCrEt99@...`
    for the host. Refused in one line (exit 2), nothing connected, no part of it shown."""
    log = tmp_path / "orderdash.log"
    with socket.socket() as listener:  # the service and the database alike: nobody may call
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        url = f"postgresql://shop:shop-pw@Tail-SeCrEt99@127.0.0.1:{port}/shop"
        env = {"ORDERDASH_LEDGER_URL": url, "ORDERDASH_BEARER_TOKEN": BEARER}
        for command in (["get", "demo-btc-eur"], ["watch", "--jsonl", "demo-btc-eur"]):
            result = run_cli(
                *command, "--base-url", f"http://127.0.0.1:{port}", "--log", str(log), env=env
            )
            assert result.returncode == 2, result.stderr
            (line,) = result.stderr.splitlines()
            assert "percent-encoded" in line and "%40 for @" in line
            seen = result.stdout + result.stderr + (log.read_text() if log.exists() else "")
            assert "shop-pw" not in seen and "Tail-SeCrEt99" not in seen
        with pytest.raises(BlockingIOError):
            listener.accept()
