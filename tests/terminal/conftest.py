"""Fixtures for the terminal engine's tests: a real ``hangar serve`` for the card's lists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hangar.hub_client import HubClient
from hub.server_process import running_hub  # tests/hub, a sibling package


@pytest.fixture
def hub(hangar_home: Path) -> Iterator[HubClient]:
    """A client of a real hub process with three projects and four labels."""
    with running_hub() as running:
        client = HubClient(running.url, running.token(hangar_home), timeout=10)
        for name in ("Web app", "Worker", "Docs"):
            client.post("/api/projects", {"name": name})
        for name in ("bug", "backend", "ui", "docs"):
            client.post("/api/labels", {"name": name})
        yield client
        client.close()
