"""Alembic environment: runs migrations on the engine hangar hands over."""

from __future__ import annotations

from alembic import context

from hangar.hub.store.database import create_hub_engine
from hangar.hub.store.schema import metadata

config = context.config
engine = config.attributes.get("engine") or create_hub_engine(
    config.get_main_option("sqlalchemy.url") or ""
)

with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    context.run_migrations()
