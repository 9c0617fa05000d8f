"""The watch list on disk: round trip, torn writes, unreadable files; parsing pasted tokens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from orderdash.core.watching import watchlist_file as watchlist
from orderdash.core.watching.watchlist_file import MAX_TOKENS, WatchListFile, parse_tokens


def test_round_trip(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "sub" / "watchlist.json")
    assert store.load() == ([], None)
    store.save(["a", "b/c", "ünï"])
    assert store.load() == (["a", "b/c", "ünï"], None)
    names = sorted(p.name for p in store.path.parent.iterdir())
    assert names == [".watchlist.json.lock", "watchlist.json"], "no temp files left"


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
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".watchlist.json.lock", "watchlist.json"], "the partial file is removed"


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
    (aside,) = tmp_path.glob("watchlist.corrupt-*.json")
    assert aside.read_bytes() == content.encode("latin-1")
    assert aside.name in warning
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


# -- several instances, the cap, hostile files (issue 19) --------------------------------------


def test_two_instances_keep_each_others_changes(tmp_path: Path) -> None:
    path = tmp_path / "watchlist.json"
    WatchListFile(path).save(["x"])
    a, b = WatchListFile(path), WatchListFile(path)
    assert a.load() == (["x"], None) and b.load() == (["x"], None)
    b.save(["x", "y"])  # B adds y
    assert a.changed() and not b.changed()
    saved = a.save(["x", "z"])  # A adds z, not knowing of y: y must survive
    assert saved.tokens == ["x", "y", "z"]
    b.save(["y"])  # B removes x; A's z, which B never saw, stays
    assert WatchListFile(path).load() == (["y", "z"], None)
    assert a.changed()
    assert a.load() == (["y", "z"], None) and not a.changed()


def _add_one_by_one(path: str, prefix: str, count: int) -> None:
    store = WatchListFile(Path(path))
    store.load()
    for n in range(count):
        store.apply(added=[f"{prefix}-{n}"])  # as the dashboard saves: its own change only


def test_two_processes_adding_at_once_end_with_every_order(tmp_path: Path) -> None:
    import multiprocessing

    path = tmp_path / "watchlist.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_one_by_one, args=(str(path), name, 40)) for name in "ab"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    tokens, warning = WatchListFile(path).load()
    assert warning is None
    assert sorted(tokens) == sorted(f"{p}-{n}" for p in "ab" for n in range(40))


def test_the_cap_holds_when_saving_so_what_is_saved_loads(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "watchlist.json")
    tokens = [f"t{n}" for n in range(MAX_TOKENS + 1)]
    saved = store.save(tokens)
    assert saved.refused == [f"t{MAX_TOKENS}"] and len(saved.tokens) == MAX_TOKENS
    assert WatchListFile(store.path).load() == (tokens[:MAX_TOKENS], None)


def test_a_list_over_the_cap_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "watchlist.json"
    path.write_text(json.dumps({"version": 1, "tokens": [f"t{n}" for n in range(MAX_TOKENS + 1)]}))
    tokens, warning = WatchListFile(path).load()
    assert tokens == [] and warning and f"more than {MAX_TOKENS}" in warning


def test_each_set_aside_copy_keeps_its_own_name(tmp_path: Path) -> None:
    path = tmp_path / "watchlist.json"
    for content in ("first bad", "second bad", "third bad"):
        path.write_text(content)
        assert WatchListFile(path).load()[0] == []
    kept = sorted(p.read_text() for p in tmp_path.glob("watchlist.corrupt-*.json"))
    assert kept == ["first bad", "second bad", "third bad"]


def test_temporary_files_of_a_killed_save_are_removed_on_load(tmp_path: Path) -> None:
    store = WatchListFile(tmp_path / "watchlist.json")
    store.save(["kept"])
    for n in range(5):
        (tmp_path / f".watchlist-{n}abc.tmp").write_text('{"version": 1, "tokens": ["half')
    (tmp_path / "unrelated.tmp").write_text("")
    assert WatchListFile(store.path).load() == (["kept"], None)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".watchlist.json.lock",
        "unrelated.tmp",
        "watchlist.json",
    ]


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "watchlist.json"
    with path.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB by stat, no disk used

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was opened for reading")

    monkeypatch.setattr(watchlist, "open", no_reading, raising=False)
    monkeypatch.setattr(Path, "read_text", no_reading)
    monkeypatch.setattr(Path, "read_bytes", no_reading)
    tokens, warning = WatchListFile(path).load()
    assert tokens == [] and warning and "more than a list of" in warning
    assert not path.exists() and len(list(tmp_path.glob("watchlist.corrupt-*.json"))) == 1


def test_a_save_over_a_file_spoiled_meanwhile_keeps_this_instances_list(tmp_path: Path) -> None:
    path = tmp_path / "watchlist.json"
    store = WatchListFile(path)
    store.save(["a", "b"])
    path.write_text("{spoiled")
    saved = store.apply(added=["c"])
    assert saved.warning and "kept as watchlist.corrupt-" in saved.warning
    assert saved.tokens == ["a", "b", "c"]
    assert WatchListFile(path).load() == (["a", "b", "c"], None)
