"""``hub.db``: SQLAlchemy Core engine and Alembic migrations run on start.

The URL defaults to SQLite in ``$HANGAR_HOME``; any SQLAlchemy URL (e.g. PostgreSQL) works
without code changes because the schema and queries use portable Core constructs only.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from hangar.errors import DatabaseError
from hangar.private_files import create_private_file

SQLITE_POOL = 40
"""Pooled connections to a SQLite file (the request thread pool's size): SQLAlchemy's
default of 5 (plus 10 opened and closed per use) makes every burst reopen connections."""


def sqlite_url(path: Path) -> str:
    return f"sqlite+pysqlite:///{path}"


def _on_sqlite_connect(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA busy_timeout = 10000")
    cursor.close()


def normalize_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` mean the psycopg 3 driver (SQLAlchemy would pick
    psycopg2, which hangar does not use)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def create_hub_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("postgresql"):
        # pool_pre_ping: after PostgreSQL restarts, a pooled connection is tested (and
        # replaced) before use instead of failing the request that drew it.
        engine = sa.create_engine(url, future=True, pool_pre_ping=True, pool_size=10)
    elif url.startswith("sqlite") and sa.engine.make_url(url).database not in (
        None,
        "",
        ":memory:",
    ):
        # A file database: keep enough connections for a burst of concurrent requests.
        # Past the pool, each request would open a connection (and run its PRAGMAs,
        # ``journal_mode`` taking the database lock) and close it again.
        engine = sa.create_engine(url, future=True, pool_size=SQLITE_POOL)
    else:
        engine = sa.create_engine(url, future=True)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _on_sqlite_connect)
    return engine


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", "hangar.hub.store:alembic")
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    config.attributes["engine"] = engine
    return config


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade_hub_database(engine: Engine) -> str | None:
    """Bring the hub database to the newest revision; returns that revision."""
    if engine.dialect.name == "sqlite" and engine.url.database:
        Path(engine.url.database).parent.mkdir(parents=True, exist_ok=True)
    try:
        command.upgrade(alembic_config(engine), "head")
    except sa.exc.SQLAlchemyError as exc:
        raise DatabaseError(path=str(engine.url), problem=f"migration failed: {exc}") from None
    return current_revision(engine)


def open_hub_database(path_or_url: Path | str) -> Engine:
    """Open (creating and migrating) the hub database at a file path or SQLAlchemy URL; a new
    SQLite file is created 0600 (its ``-wal``/``-shm`` files follow its mode)."""
    if isinstance(path_or_url, Path):
        path_or_url.parent.mkdir(parents=True, exist_ok=True)
        create_private_file(path_or_url)
    url = sqlite_url(path_or_url) if isinstance(path_or_url, Path) else path_or_url
    engine = create_hub_engine(url)
    upgrade_hub_database(engine)
    return engine
