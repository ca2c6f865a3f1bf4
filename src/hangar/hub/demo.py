"""``hangar serve --demo``: a temporary copy of the bundled sample sessions.

The copy becomes ``HOME`` (every agent home is then found inside it) and ``HANGAR_HOME`` lives
next to it, so the demo never reads the user's agents nor writes to the user's hangar state.
The directory is removed when the process exits.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import MutableMapping
from importlib import resources
from pathlib import Path

from hangar.errors import UsageError

#: Variables that would point an agent (or hangar) outside the demo copy.
OVERRIDES = (
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "CONTINUE_GLOBAL_DIR",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "CURSOR_CONFIG_DIR",
    "QWEN_HOME",
    "KIRO_HOME",
    "HANGAR_TOKEN",
    "HANGAR_SERVER_URL",
)


def demo_corpus() -> Path:
    """The sample HOME (``<corpus>/home``): inside the installed package (the wheel carries
    ``demo/corpus`` as ``hangar/demo_corpus``), else the source checkout's ``demo/corpus``."""
    candidates = (
        Path(str(resources.files("hangar"))) / "demo_corpus",
        Path(__file__).resolve().parents[3] / "demo" / "corpus",
    )
    for corpus in candidates:
        if (corpus / "home").is_dir():
            return corpus / "home"
    raise UsageError("the demo sessions are not installed (no demo corpus in this hangar)")


def prepare_demo_environment(environ: MutableMapping[str, str]) -> Path:
    """Copy the corpus to a new temp dir and point ``environ`` at it; returns the temp dir."""
    source = demo_corpus()
    root = Path(tempfile.mkdtemp(prefix="hangar-demo-"))
    atexit.register(shutil.rmtree, root, True)
    home = root / "home"
    shutil.copytree(source, home, symlinks=True)
    for name in OVERRIDES:
        environ.pop(name, None)
    environ["HOME"] = str(home)
    environ["HANGAR_HOME"] = str(root / "hangar-home")
    environ["XDG_DATA_HOME"] = str(home / ".local" / "share")
    environ["XDG_CONFIG_HOME"] = str(home / ".config")
    environ["XDG_STATE_HOME"] = str(home / ".local" / "state")
    environ["XDG_CACHE_HOME"] = str(root / "cache")
    return root
