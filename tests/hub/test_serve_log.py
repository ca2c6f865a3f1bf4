"""``hangar serve`` writes its log to ``$HANGAR_HOME/logs/``, rotated (hardening item 19)."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import httpx

from hangar.hub.server_log import LOG_NAME, open_server_log

from .server_process import running_hub


def test_hardening_19_serve_writes_its_log_in_the_logs_folder(hangar_home: Path) -> None:
    with running_hub() as hub:
        with httpx.Client(base_url=hub.url, trust_env=False, timeout=30) as http:
            assert http.get("/favicon.ico", follow_redirects=True).status_code == 200
        log = hangar_home / "logs" / LOG_NAME
        assert log.is_file()
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
        assert f"listening on {hub.url}" in log.read_text()


def test_hardening_19_the_server_log_is_rotated(tmp_path: Path) -> None:
    handler = open_server_log(tmp_path / "logs", max_bytes=2_000, backups=2)
    logger = logging.getLogger("hangar.test-rotation")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for number in range(200):
            logger.warning("line %d %s", number, "x" * 40)
    finally:
        logger.removeHandler(handler)
        handler.close()
    names = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert names == [LOG_NAME, f"{LOG_NAME}.1", f"{LOG_NAME}.2"]
    assert all(p.stat().st_size <= 2_100 for p in (tmp_path / "logs").iterdir())
    assert "line 199" in (tmp_path / "logs" / LOG_NAME).read_text()
