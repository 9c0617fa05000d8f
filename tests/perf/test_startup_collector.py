"""The cyclic garbage collector is paused while orderdash starts (core/runtime/startup.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from conftest import make_settings, run_python, wait_until
from orderdash import cli
from orderdash.core.runtime import startup
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app

TOKEN = DEMO_TOKENS[0]


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """Whatever a test does, the worker goes on with the collector on and nothing frozen."""
    yield
    startup.end(True)
    gc.enable()
    gc.unfreeze()


def test_main_pauses_the_collector_and_turns_it_back_on(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from orderdash.cli import order

    seen: list[bool] = []
    one_shot = order.run_get

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return one_shot(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(order, "run_get", recording)
    monkeypatch.setenv("ORDERDASH_CONFIG", "/dev/null")
    # (an earlier test in this worker may have left objects frozen: a long-running command's
    # `main` freezes what its start-up made; `get` must add none)
    frozen_before = gc.get_freeze_count()
    assert cli.main(["get", TOKEN, "--json", "--base-url", sim_server.base_url]) == 0
    assert seen == [False], "paused while it ran"
    assert gc.isenabled() and gc.get_freeze_count() == frozen_before, "back on, nothing frozen"
    assert TOKEN in capsys.readouterr().out


def test_objects_are_frozen_at_exit_so_the_exit_collection_skips_them(
    sim_server: SimulatorServer,
) -> None:
    """CPython's collection at exit walks every object start-up made (~30 ms of `orderdash
    get`); `main` has them frozen first. The probe's own exit hook is registered before
    `main` runs, so it runs after main's (last registered, first run) and sees the freeze."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('FROZEN', gc.get_freeze_count(), file=sys.stderr))\n"
        "from orderdash.cli import main\n"
        f"rc = main(['get', {TOKEN!r}, '--json', '--base-url', {sim_server.base_url!r}])\n"
        "print('AFTER MAIN', gc.get_freeze_count(), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert TOKEN in result.stdout  # the answer is printed in full before the exit
    assert "AFTER MAIN 0" in result.stderr  # nothing frozen while the caller goes on
    frozen = int(result.stderr.split("FROZEN ")[1].split()[0])
    assert frozen > 10_000  # httpx, pydantic and the rest of the start-up


def test_resume_freezes_what_start_up_made_and_only_undoes_a_pause() -> None:
    assert startup.pause() is True
    assert not gc.isenabled()
    made = [[n] for n in range(1000)]  # tracked objects, as start-up makes them
    startup.resume()
    assert gc.isenabled() and gc.get_freeze_count() >= len(made)
    gc.unfreeze()
    startup.resume()  # not paused: nothing to undo, nothing frozen again
    assert gc.get_freeze_count() == 0
    gc.disable()  # off by someone else: neither pause nor resume touches it
    assert startup.pause() is False
    startup.resume()
    assert not gc.isenabled()


async def test_the_dashboard_resumes_the_collector_after_its_first_paint(
    sim_server: SimulatorServer,
) -> None:
    startup.pause()
    app = make_app(make_settings(sim_server.base_url), token=TOKEN)
    async with app.run_test() as pilot:
        await wait_until(pilot, gc.isenabled)
        assert gc.get_freeze_count() > 0
