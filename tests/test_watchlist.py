"""The watch list on disk: round trip, torn writes, unreadable files; parsing pasted tokens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from orderdash.core.watching.store import WatchListFile, parse_tokens


def test_round_trip(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "sub" / "watchlist.json")
    assert store.load() == ([], None)
    store.save(["a", "b/c", "ünï"])
    assert store.load() == (["a", "b/c", "ünï"], None)
    assert [p.name for p in store.path.parent.iterdir()] == ["watchlist.json"], "no temp files left"


def test_a_crash_mid_write_leaves_the_previous_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = WatchListFile(tmp_path / "watchlist.json")
    store.save(["first", "second"])

    def crash(*args: object) -> None:
        raise OSError("disk pulled out mid-write")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        store.save(["first", "second", "third"])
    monkeypatch.undo()
    assert store.load() == (["first", "second"], None)
    assert [p.name for p in tmp_path.iterdir()] == ["watchlist.json"], "the partial file is removed"


def test_a_torn_temporary_file_from_a_killed_process_is_ignored(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "watchlist.json")
    store.save(["kept"])
    (tmp_path / ".watchlist-abc.tmp").write_text('{"version": 1, "tokens": ["half')
    assert store.load() == (["kept"], None)


@pytest.mark.parametrize(
    "content",
    [
        '{"version": 1, "tokens": ["a", ',
        '{"version": 9, "tokens": []}',
        '["a"]',
        '{"version": 1, "tokens": [1]}',
        "\xff",
    ],
    ids=["truncated", "future-version", "wrong-shape", "not-strings", "binary"],
)
def test_an_unreadable_file_is_set_aside_and_reported(tmp_path: Path, content: str) -> None:
    path = tmp_path / "watchlist.json"
    path.write_bytes(content.encode("latin-1"))
    tokens, warning = WatchListFile(path).load()
    assert tokens == []
    assert warning and "watch list" in warning
    if content != "\xff":
        assert (tmp_path / "watchlist.corrupt.json").read_bytes() == content.encode("latin-1")
        assert not path.exists()


def test_saved_file_is_plain_json(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "w.json")
    store.save(["x"])
    assert json.loads(store.path.read_text()) == {"version": 1, "tokens": ["x"]}


def test_parse_pasted_tokens() -> None:
    parsed = parse_tokens(
        "alpha\n beta, gamma;alpha\n..\n\n" + "x" * 300 + "\ndelta", known=["delta"]
    )
    assert parsed.tokens == ["alpha", "beta", "gamma"]
    assert parsed.duplicates == ["alpha", "delta"]
    assert [reason for _, reason in parsed.invalid] == [
        "'..' is not an order token",
        "the order token is too long (300 characters, at most 200)",
    ]
