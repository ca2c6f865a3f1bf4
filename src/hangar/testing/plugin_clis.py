"""The pinned CLIs of the sample provider plugins (``localrun-providers/``), installed by
``make agents`` beside the other agent CLIs: Grok CLI from npm (``node_modules/.bin/grok``)
and Hermes Agent from PyPI in its own venv (``python/bin/hermes``, kept apart from hangar's
dependencies). Their configuration for the sandbox's fake model lives here too."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from hangar.testing.agent_clis import agent_clis_dir

PLUGIN_CLIS = {"grok": "node_modules/.bin/grok", "hermes": "python/bin/hermes"}
SAMPLES = Path(__file__).resolve().parents[3] / "localrun-providers"


def plugin_cli(name: str) -> Path:
    """Where ``make agents`` put the CLI of the sample plugin ``name``."""
    return agent_clis_dir() / PLUGIN_CLIS[name]


def missing_plugin_clis() -> list[str]:
    return [name for name in PLUGIN_CLIS if not plugin_cli(name).exists()]


def grok_env(base_url: str) -> dict[str, str]:
    """Grok CLI against the fake model (Chat Completions, headless requests unstreamed)."""
    return {"GROK_API_KEY": "dummy", "GROK_BASE_URL": f"{base_url}/v1"}


def hermes_config(base_url: str) -> str:
    """``$HERMES_HOME/config.yaml`` for Hermes Agent against the fake model."""
    return (
        "model:\n  provider: custom\n"
        f"  base_url: {base_url}/v1\n  api_key: dummy\n  default: fake-model\n"
    )


def hermes_home(home: PurePosixPath) -> PurePosixPath:
    return home / ".hermes"
