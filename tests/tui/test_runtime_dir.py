"""A runtime directory the dashboard cannot use (XDG_RUNTIME_DIR unset, and the fallback
`runtime-<uid>` in the temporary directory made by another user): the dashboard and the
point-of-sale screen run, the customer display is off, and one line says how to turn it on.
The real platformdirs check runs: as root the directory really belongs to `nobody`; otherwise
platformdirs is told we are another uid, which makes our own directory someone else's."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app

NOBODY = 65534


@pytest.fixture
def foreign_runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    temp = tmp_path / "tmp"
    temp.mkdir()
    temp.chmod(0o1777)
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    uid = os.geteuid()
    if uid != 0:
        import platformdirs._runtime
        import platformdirs.unix

        uid += 1
        for module in (platformdirs._runtime, platformdirs.unix):
            monkeypatch.setattr(module, "geteuid", lambda: uid)
    if Path(f"/run/user/{uid}").is_dir():
        pytest.skip("this machine has a runtime directory for the uid: no fallback used")
    foreign = temp / f"runtime-{uid}"
    foreign.mkdir(mode=0o755)
    if uid == 0:
        os.chown(foreign, NOBODY, NOBODY)
    return foreign


@pytest.mark.parametrize("pos", [False, True], ids=["tui", "pos"])
async def test_a_foreign_runtime_directory_turns_the_display_off_and_the_dashboard_runs(
    sim_server: SimulatorServer, foreign_runtime_dir: Path, pos: bool
) -> None:
    settings = make_settings(sim_server.base_url, poll_interval=0.5)
    app = make_app(settings, tokens=[DEMO_TOKENS[0]], open_pos=pos)
    assert app.publisher is None
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        if not pos:
            await wait_until(pilot, lambda: "Customer display off" in screen_text(app))
            text = screen_text(app)
            assert "XDG_RUNTIME_DIR" in text
            notes = [n.message for n in app._notifications if "display off" in n.message]
            assert len(notes) == 1 and "\n" not in notes[0]
            await pilot.press("x")  # the display is off: said, nothing written
            await wait_until(pilot, lambda: "customer display is off" in screen_text(app))
        else:
            await wait_until(pilot, lambda: app.counter.pos is not None)
        await pilot.pause(0.5)
        assert app.is_running
    assert os.listdir(foreign_runtime_dir) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="another user's directory needs root to make")
def test_the_display_command_says_so_in_one_line(foreign_runtime_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env["ORDERDASH_CONFIG"] = os.devnull
    done = subprocess.run(
        [sys.executable, "-m", "orderdash", "display"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "XDG_RUNTIME_DIR" in done.stderr
