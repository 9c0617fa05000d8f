"""A real PostgreSQL server for the ledger's tests: Debian's `postgresql` binaries (initdb,
pg_ctl), a throw-away cluster in a temporary directory, listening on a unix socket there only
(no TCP port), fsync off (a test cluster: the ledger's own durability is tested on SQLite).

Root cannot run PostgreSQL: as root the cluster belongs to the `postgres` user (else `nobody`)
and its programs run through `runuser`. Each test gets a schema of its own (`schema_url`).
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote


def server_binaries() -> Path | None:
    """The newest installed PostgreSQL's bin directory ($ORDERDASH_PG_BIN first)."""
    given = os.environ.get("ORDERDASH_PG_BIN")
    candidates = [given] if given else []
    # the newest version first ("15", "9.6": compared as numbers)
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", Path(p).parent.name)],
        reverse=True,
    )
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).parent))
    for candidate in candidates:
        if (
            candidate
            and (Path(candidate) / "initdb").exists()
            and (Path(candidate) / "pg_ctl").exists()
        ):
            return Path(candidate)
    return None


def why_not() -> str | None:
    """Why the PostgreSQL tests cannot run here (None: they can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    if server_binaries() is None:
        return "PostgreSQL's server programs (initdb, pg_ctl) are absent (apt install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser: PostgreSQL refuses to run as root"
    return None


class PgServer:
    def __init__(self) -> None:
        binaries = server_binaries()
        assert binaries is not None
        self._bin = binaries
        # short: a unix socket's path is at most 107 bytes
        self.root = Path(
            tempfile.mkdtemp(prefix="odpg", dir="/tmp" if os.path.isdir("/tmp") else None)
        )
        self.data = self.root / "data"
        self.socket_dir = self.root / "s"
        self._user: str | None = None
        if os.geteuid() == 0:
            self._user = "postgres" if _user_exists("postgres") else "nobody"
            entry = pwd.getpwnam(self._user)
            self.socket_dir.mkdir()
            for path in (self.root, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        else:
            self.socket_dir.mkdir()
        self._started = False

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self._bin / program), *args]
        if self._user is not None:
            argv = ["runuser", "-u", self._user, "--", *argv]
        # the server's environment is the system's, never this process's (no secrets)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"}
        subprocess.run(argv, check=True, capture_output=True, timeout=60, env=env, cwd="/")

    def start(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-A", "trust", "-U", "orderdash", "--no-sync",
            "-E", "UTF8", "--no-instructions",
        )  # fmt: skip
        options = f"-k {self.socket_dir} -c listen_addresses='' -F -c max_connections=40"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w",
            "start",
        )  # fmt: skip
        self._started = True

    def stop(self) -> None:
        try:
            if self._started:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"postgresql://orderdash@/postgres?host={quote(str(self.socket_dir), safe='')}"

    def schema_url(self) -> str:
        """A new empty schema, and the URL whose connections use it: one test's book."""
        import psycopg

        schema = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f"CREATE SCHEMA {schema}")
        return f"{self.url}&options={quote('-csearch_path=' + schema, safe='')}"


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True
