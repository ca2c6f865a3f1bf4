"""The hub: HTTP API, web UI, hub database (SQLAlchemy Core + Alembic)."""
