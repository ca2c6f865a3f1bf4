"""A throwaway PostgreSQL server for the portability tests (Debian's ``postgresql`` package).

Started with ``initdb``/``pg_ctl`` in a fresh temp dir on a free loopback port, as the
``postgres`` system user (PostgreSQL refuses to run as root), and stopped by ``pg_ctl``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def postgres_bin() -> Path | None:
    base = Path("/usr/lib/postgresql")
    found = (
        sorted(base.glob("*/bin/initdb"), key=lambda p: float(p.parts[-3])) if base.is_dir() else []
    )
    return found[-1].parent if found else None


def skip_unless_available() -> None:
    """Skip the test when PostgreSQL cannot run here; fail instead under
    ``HANGAR_REQUIRE_POSTGRES=1`` (CI)."""
    import pytest

    reason = unavailable_reason()
    if reason and os.environ.get("HANGAR_REQUIRE_POSTGRES") == "1":
        pytest.fail(reason + "; HANGAR_REQUIRE_POSTGRES=1 requires it")
    if reason:
        pytest.skip(reason)


def unavailable_reason() -> str | None:
    if postgres_bin() is None:
        return "PostgreSQL is not installed (make postgres installs Debian's postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is not installed"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "no postgres system user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class PostgresInstance:
    """A running server: its SQLAlchemy ``url``; :meth:`restart` stops and starts it."""

    def __init__(self, bindir: Path, root: Path, port: int) -> None:
        self.bindir, self.root, self.port = bindir, root, port
        self.data = root / "data"
        self.url = f"postgresql+psycopg://hangar@127.0.0.1:{port}/postgres"

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            _as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.data), *args]),
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-k {self.root} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._ctl("-o", options, "-w", "-l", str(self.root / "log"), "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Stop (terminating every connection) and start again on the same port."""
        self.stop()
        self.start()


@contextmanager
def postgres_instance() -> Iterator[PostgresInstance]:
    """A running server in a fresh temp dir, stopped afterwards."""
    bindir = postgres_bin()
    assert bindir is not None
    root = Path(tempfile.mkdtemp(prefix="hangar-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    server = PostgresInstance(bindir, root, _free_port())
    try:
        subprocess.run(
            _as_server_user(
                [str(bindir / "initdb"), "-D", str(server.data), "-A", "trust", "-U", "hangar"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running server; yields its SQLAlchemy URL."""
    with postgres_instance() as server:
        yield server.url
