"""How each real agent CLI is configured, invoked and read back in the sandbox.

One :class:`AgentCli` per pinned CLI (codex, claude, opencode, cn, gemini, qwen, copilot),
holding only facts about that CLI: where its config goes under the sandbox ``HOME``, its
environment, the one-shot command (and how to continue a session), how stdin must be given,
how to find the session id and which files form its own store. The binaries come from the
pinned npm install in ``agent-clis/node_modules/.bin`` (``make agents``), or
``$HANGAR_AGENT_CLIS_DIR``.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

AGENT_CLIS_ENV = "HANGAR_AGENT_CLIS_DIR"
PROJECT_AGENT_CLIS = Path(__file__).resolve().parents[3] / "agent-clis"


def agent_clis_dir() -> Path:
    """The folder holding ``node_modules/.bin`` with the pinned CLIs."""
    return Path(os.environ.get(AGENT_CLIS_ENV) or PROJECT_AGENT_CLIS)


def missing_binaries() -> list[str]:
    bin_dir = agent_clis_dir() / "node_modules" / ".bin"
    return [cli.binary for cli in CLIS.values() if not (bin_dir / cli.binary).exists()]


@dataclass(frozen=True)
class Homes:
    """Sandbox-side locations for one agent process (paths as the process sees them)."""

    home: PurePosixPath
    tmp: PurePosixPath


@dataclass(frozen=True)
class Invocation:
    argv: list[str]
    stdin: bytes | None  # None: stdin closed (DEVNULL)


class AgentCli(ABC):
    """Facts about one CLI; subclasses fill them in."""

    name: str
    binary: str

    def executable(self) -> str:
        return str(agent_clis_dir() / "node_modules" / ".bin" / self.binary)

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        """Files to write before the CLI first runs (path inside the sandbox → text)."""
        return {}

    @abstractmethod
    def home_dir(self, homes: Homes) -> PurePosixPath:
        """The CLI's own home (``CODEX_HOME``, ``~/.claude``, …)."""

    def directories(self, homes: Homes) -> list[PurePosixPath]:
        """Folders the CLI expects to exist before its first run."""
        return []

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {}

    @abstractmethod
    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        """The command line (and stdin) that runs one prompt, resuming ``session`` if set."""

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return None

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        """``(folder, glob)`` pairs naming the CLI's own session store."""
        return []


class Codex(AgentCli):
    name, binary = "codex", "codex"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".codex"

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        config = f"""model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "Fake"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false   # else lookups of ab.chatgpt.com and chatgpt.com

[features]
plugins = false   # else a lookup of api.github.com

[tools.update_plan]
enabled = true    # 0.171.0 offers no plan tool without it
"""
        return {homes.home / ".codex" / "config.toml": config}

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {"CODEX_HOME": str(homes.home / ".codex"), "FAKE_API_KEY": "dummy"}

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = ["resume", session] if session else []
        # `codex exec` reads stdin when it is not a TTY: keep it closed. Its --json stdout
        # starts with an error item "Model metadata for `fake-model` not found" (harmless).
        argv = [self.executable(), "exec", *resume, "--json", "--skip-git-repo-check", prompt]
        return Invocation(argv, None)

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return next(
            (str(e["thread_id"]) for e in events if e.get("type") == "thread.started"), None
        )

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        codex_home = homes.home / ".codex"
        return [
            (codex_home / "sessions", "**/rollout-*.jsonl"),
            (codex_home, "session_index.jsonl"),
        ]


class Claude(AgentCli):
    name, binary = "claude", "claude"
    allowed_tools = "Bash,TodoWrite,Write,Edit,Read"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".claude"

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_TMPDIR": str(homes.tmp),
            # 2.1.332 offers TodoWrite only with these three:
            "CLAUDE_CODE_ENABLE_TODO_TOOLS": "true",
            "CLAUDE_CODE_ENABLE_TASKS": "false",
            "ENABLE_TOOL_SEARCH": "false",
        }

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = ["--resume", session] if session else []
        argv = [
            self.executable(),
            "-p",
            prompt,
            *resume,
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            self.allowed_tools,
        ]
        return Invocation(argv, None)

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return next((str(e["session_id"]) for e in events if e.get("session_id")), None)

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".claude" / "projects", "**/*.jsonl")]


class OpenCode(AgentCli):
    name, binary = "opencode", "opencode"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".local" / "share" / "opencode"

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        config = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": f"{base_url}/v1", "apiKey": "dummy"},
                    "models": {"fake-model": {"name": "Fake Model"}},
                }
            },
            "model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
        }
        path = homes.home / ".config" / "opencode" / "opencode.json"
        return {path: json.dumps(config, indent=2)}

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = ["--session", session] if session else []
        # A prompt given as one argv element is stored with literal quotes: pipe it instead.
        argv = [self.executable(), "run", *resume, "--format", "json"]
        return Invocation(argv, prompt.encode("utf-8"))

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return next((str(e["sessionID"]) for e in events if e.get("sessionID")), None)

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".local" / "share" / "opencode", "opencode.db*")]


class Continue(AgentCli):
    name, binary = "cn", "cn"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".continue"

    def config_path(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".continue" / "config.yaml"

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        config = f"""name: Fake Local
version: 0.0.1
schema: v1
models:
  - name: fake
    provider: openai
    model: fake-model
    apiBase: {base_url}/v1
    apiKey: dummy
    roles: [chat, edit, apply]
"""
        return {self.config_path(homes): config}

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {"CONTINUE_CLI_ENABLE_TELEMETRY": "0", "CONTINUE_METRICS_ENABLED": "0"}

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        # cn resumes "the last session" only; run_agent keeps one cn session per sandbox.
        resume = ["--resume"] if session else []
        config = str(self.config_path(homes))
        return Invocation([self.executable(), "-p", prompt, *resume, "--config", config], None)

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        sessions = [p for p in store if p.suffix == ".json" and p.name != "sessions.json"]
        newest = max(sessions, key=lambda p: p.stat().st_mtime, default=None)
        return newest.stem if newest else None

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".continue" / "sessions", "*.json")]


class Gemini(AgentCli):
    """Gemini CLI with an API key, its ``@google/genai`` client pointed at the fake model's
    Gemini routes (``GOOGLE_GEMINI_BASE_URL``); the model named in its settings, so no
    routing classifier request is made."""

    name, binary = "gemini", "gemini"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".gemini"

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "model": {"name": "fake-model"},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        return {homes.home / ".gemini" / "settings.json": json.dumps(settings, indent=2)}

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": base_url,
                "TMPDIR": str(homes.tmp)}  # fmt: skip

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = ["--resume", session] if session else []
        argv = [self.executable(), *resume, "--yolo", "--skip-trust", "-o", "stream-json",
                "-p", prompt]  # fmt: skip
        return Invocation(argv, None)

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return next((str(e["session_id"]) for e in events if e.get("session_id")), None)

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".gemini" / "tmp", "**/chats/*.json*")]


class Qwen(AgentCli):
    """Qwen Code against the fake model's Chat Completions (its ``openai`` auth type)."""

    name, binary = "qwen", "qwen"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".qwen"

    def config_files(self, homes: Homes, base_url: str) -> dict[PurePosixPath, str]:
        settings = {
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"name": "fake-model"},
            "telemetry": {"enabled": False},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False},
            # each of these asks the model in the background after a turn (with the same
            # tools), which would take a scripted turn: a next-prompt suggestion, memory
            # extraction and consolidation, skill extraction
            "ui": {"enableFollowupSuggestions": False},
            "memory": {
                "enableManagedAutoMemory": False,
                "enableManagedAutoDream": False,
                "enableAutoSkill": False,
            },
        }
        return {homes.home / ".qwen" / "settings.json": json.dumps(settings, indent=2)}

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": f"{base_url}/v1",
            "OPENAI_API_KEY": "dummy",
            "OPENAI_MODEL": "fake-model",
            "TMPDIR": str(homes.tmp),
        }

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = ["--resume", session] if session else []
        argv = [self.executable(), *resume, "--yolo", "--output-format", "stream-json", prompt]
        return Invocation(argv, None)

    def session_id(self, events: Sequence[Mapping[str, Any]], store: Sequence[Path]) -> str | None:
        return next((str(e["session_id"]) for e in events if e.get("session_id")), None)

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".qwen" / "projects", "**/chats/*.jsonl")]


class Copilot(AgentCli):
    """Copilot CLI in its offline mode with a custom (BYOK) Chat Completions provider."""

    name, binary = "copilot", "copilot"

    def home_dir(self, homes: Homes) -> PurePosixPath:
        return homes.home / ".copilot"

    def env(self, homes: Homes, base_url: str) -> dict[str, str]:
        return {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"{base_url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": "fake-model",
            "COPILOT_AUTO_UPDATE": "false",
            "TMPDIR": str(homes.tmp),
        }

    def invocation(self, prompt: str, session: str | None, homes: Homes) -> Invocation:
        resume = [f"--resume={session}"] if session else []
        return Invocation([self.executable(), *resume, "-p", prompt, "--allow-all-tools"], None)

    def store_globs(self, homes: Homes) -> list[tuple[PurePosixPath, str]]:
        return [(homes.home / ".copilot" / "session-state", "**/events.jsonl")]


CLIS: dict[str, AgentCli] = {
    cli.name: cli
    for cli in (Codex(), Claude(), OpenCode(), Continue(), Gemini(), Qwen(), Copilot())
}
