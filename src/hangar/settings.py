"""Typed settings from ``$HANGAR_HOME/config.toml`` and ``HANGAR_*`` environment variables.

Precedence: environment variable, then ``config.toml``, then the default. Every setting is
declared once in :data:`SETTINGS`; ``docs/configuration.md`` documents each (a test checks).
A corrupt or unknown value is an error naming its source; nothing is ever rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hangar.errors import CorruptFileError, SettingError
from hangar.paths import Env, HangarPaths, environment, hangar_paths


@dataclass(frozen=True)
class Setting:
    """One declared setting."""

    name: str
    kind: type
    default: Callable[[], Any]
    doc: str
    minimum: float | None = None

    @property
    def env_var(self) -> str:
        return "HANGAR_" + self.name.upper()


def _hostname() -> str:
    # platform is loaded anyway (uuid imports it); socket would cost every command ~2 ms.
    import platform

    return platform.node() or _socket_hostname()


def _socket_hostname() -> str:
    import socket

    return socket.gethostname()


SETTINGS: tuple[Setting, ...] = (
    Setting("host", str, lambda: "127.0.0.1", "Address `hangar serve` binds to."),
    Setting("port", int, lambda: 8765, "Port `hangar serve` listens on.", minimum=0),
    Setting(
        "allowed_hosts",
        str,
        lambda: "",
        "Extra host names the hub answers to (comma-separated), besides loopback and --host.",
    ),
    Setting("device_name", str, _hostname, "Human name of this device (default: hostname)."),
    Setting(
        "server_url",
        str,
        lambda: "",
        "URL of the hub the CLI clients talk to; empty means the local `hangar serve`.",
    ),
    Setting(
        "transcript_cache_entries",
        int,
        lambda: 16,
        "How many parsed transcripts the executor keeps in memory.",
        minimum=1,
    ),
    Setting(
        "trash_retention_days",
        int,
        lambda: 30,
        "Days deleted sessions stay restorable in `$HANGAR_HOME/trash/` before purge.",
        minimum=0,
    ),
    Setting(
        "codex_turn_startup_timeout_seconds",
        float,
        lambda: 180.0,
        "Seconds a continued Codex turn may show no progress before it is failed.",
        minimum=1,
    ),
    Setting("log_level", str, lambda: "info", "Log level: debug, info, warning or error."),
    Setting(
        "database_url",
        str,
        lambda: "",
        "Hub database URL (`postgresql://user@host/db` for a team hub shared by several "
        "`hangar serve` replicas); empty means SQLite `hub.db` in `$HANGAR_HOME`.",
    ),
    Setting(
        "serve_executor",
        bool,
        lambda: True,
        "Whether `hangar serve` runs this device's executor in process (a team hub's replicas "
        "usually do not: `false`).",
    ),
    Setting(
        "hub_url",
        str,
        lambda: "",
        "Hub `hangar executor` connects to (`https://hub.example`); `--hub` overrides it.",
    ),
    Setting(
        "transfer_host",
        str,
        lambda: "",
        "Address `hangar executor` reports as this device's runtime transfer host (shown as "
        "the device's address in the hub); empty: the hub shows the client IP it sees.",
    ),
    Setting(
        "transfer_bind",
        str,
        lambda: "",
        "Address the executor's transfer listener binds to for a direct copy to another "
        "device; empty: the transfer host, else 127.0.0.1.",
    ),
    Setting(
        "transfer_storage_url",
        str,
        lambda: "",
        "S3-compatible endpoint the hub uses as the fallback of a direct archive transfer "
        "(`https://s3.example`); empty: no object storage (a copy without a direct path is "
        "answered 503).",
    ),
    Setting("transfer_storage_bucket", str, lambda: "", "Bucket of the transfer object storage."),
    Setting("transfer_storage_region", str, lambda: "us-east-1", "Region of that storage."),
    Setting("transfer_storage_access_key", str, lambda: "", "Access key id of that storage."),
    Setting("transfer_storage_secret_key", str, lambda: "", "Secret access key of that storage."),
    Setting(
        "device_rpc_timeout_seconds",
        float,
        lambda: 60.0,
        "Seconds the hub waits for a remote device to answer a call.",
        minimum=1,
    ),
    Setting(
        "device_fanout_timeout_seconds",
        float,
        lambda: 10.0,
        "Seconds each device has to answer a list or search that fans out to all devices; "
        "a late device contributes nothing and is named in the answer.",
        minimum=0.5,
    ),
    Setting(
        "forwarded_allow_ips",
        str,
        lambda: "127.0.0.1",
        "Proxies whose X-Forwarded-For the hub trusts for client IPs (comma-separated, "
        "or `*`); the address a device connects from is otherwise the TCP peer.",
    ),
    Setting(
        "im_webhook_secret",
        str,
        lambda: "",
        "Shared secret of the generic IM command webhook `POST /hooks/im/command` "
        "(HMAC-SHA256 of the body); empty disables it.",
    ),
    Setting(
        "slack_signing_secret",
        str,
        lambda: "",
        "Slack app signing secret for slash commands at `POST /hooks/im/slack`; empty disables it.",
    ),
    Setting(
        "remote_terminal",
        bool,
        lambda: False,
        "Let the web UI open device terminals while `hangar serve` listens on a non-loopback"
        " address (`--allow-remote`).",
    ),
)

SETTINGS_BY_NAME = {s.name: s for s in SETTINGS}

#: Tables of ``config.toml`` that are not settings; their owners read them (documented beside
#: the settings): ``[localrun_providers.<name>]`` is read by provider-plugin discovery.
CONFIG_SECTIONS = ("localrun_providers",)

#: Environment variables read outside the settings table (documented alongside it).
OTHER_ENV_VARS = (
    "HANGAR_HOME",
    "HANGAR_TOKEN",
    "HANGAR_REQUIRE_REAL_AGENTS",
    "HANGAR_REQUIRE_BROWSER",
    "HANGAR_REQUIRE_POSTGRES",
    "HANGAR_DEVICE_TOKEN",
)


def _coerce(setting: Setting, raw: object, source: str) -> Any:
    if setting.kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in {"1", "true", "yes", "on"}:
            return True
        if text in {"0", "false", "no", "off", ""}:
            return False
        raise SettingError(name=setting.name, source=source, problem=f"not a boolean: {raw!r}")
    if setting.kind in (int, float):
        if isinstance(raw, bool):
            raise SettingError(name=setting.name, source=source, problem="expected a number")
        if not isinstance(raw, (int, float, str)):
            raise SettingError(name=setting.name, source=source, problem="expected a number")
        try:
            value = setting.kind(raw)
        except (TypeError, ValueError):
            kind = "an integer" if setting.kind is int else "a number"
            raise SettingError(
                name=setting.name, source=source, problem=f"expected {kind}, got {raw!r}"
            ) from None
        if setting.minimum is not None and value < setting.minimum:
            raise SettingError(
                name=setting.name, source=source, problem=f"must be ≥ {setting.minimum:g}"
            )
        return value
    if not isinstance(raw, str):
        raise SettingError(name=setting.name, source=source, problem="expected a string")
    return raw


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse ``config.toml``; a missing file is empty, a corrupt one is an error."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CorruptFileError(path=path, problem=f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(path=path, problem=f"not UTF-8 (byte {exc.start})") from None
    import tomllib  # only when there is a file to read

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CorruptFileError(path=path, problem=f"invalid TOML: {exc}") from None


@dataclass(frozen=True)
class Settings:
    """Resolved settings; attribute access by setting name."""

    values: Mapping[str, Any]
    paths: HangarPaths

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


def load_settings(environ: Env | None = None) -> Settings:
    env = environment(environ)
    paths = hangar_paths(env)
    file_values = read_config_file(paths.config_file)
    unknown = sorted(set(file_values) - set(SETTINGS_BY_NAME) - set(CONFIG_SECTIONS))
    if unknown:
        raise SettingError(
            name=unknown[0], source=str(paths.config_file), problem="unknown setting"
        )
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        if setting.env_var in env:
            values[setting.name] = _coerce(setting, env[setting.env_var], setting.env_var)
        elif setting.name in file_values:
            values[setting.name] = _coerce(
                setting, file_values[setting.name], str(paths.config_file)
            )
        else:
            values[setting.name] = setting.default()
    return Settings(values, paths)
