"""Opening this device's hangar state: settings, identity and both databases.

Every long-lived entry point (``hangar serve``, the executor) calls :func:`open_state`, which
runs pending migrations, so a new version of hangar upgrades the databases on start.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from hangar.device import Device, load_or_create_device
from hangar.executor.database import ExecutorDatabase
from hangar.hub.database import open_hub_database
from hangar.paths import Env
from hangar.settings import Settings, load_settings


@dataclass
class HangarState:
    settings: Settings
    device: Device
    executor_db: ExecutorDatabase
    hub_engine: Engine

    def close(self) -> None:
        self.executor_db.close()
        self.hub_engine.dispose()


def open_state(environ: Env | None = None) -> HangarState:
    settings = load_settings(environ)
    paths = settings.paths
    paths.home.mkdir(parents=True, exist_ok=True)
    device = load_or_create_device(paths.device_file, settings.device_name)
    executor_db = ExecutorDatabase(paths.executor_db)
    try:
        hub_engine = open_hub_database(paths.hub_db)
    except BaseException:
        executor_db.close()
        raise
    return HangarState(settings, device, executor_db, hub_engine)
