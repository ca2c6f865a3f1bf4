"""The built-in agents: declared here, implemented in one module or package per agent.

Facets are lazy references, so this table is cheap to import. A plugin agent is declared the
same way and published through the ``hangar.agents`` entry point group.
"""

from __future__ import annotations

from hangar.agents.homes import HomeSpec, xdg_config, xdg_data
from hangar.agents.registry import Agent

BUILTIN_AGENTS: tuple[Agent, ...] = (
    Agent(
        runtime="codex",
        display_name="Codex",
        badge="Cx",
        home=HomeSpec("CODEX_HOME", (".codex",)),
        store="hangar.agents.codex:CodexStore",
        live="hangar.localrun.providers.codex:CodexProvider",
        control="hangar.agents.codex.control:CodexControl",
        usage="hangar.agents.codex.usage:scan_usage",
        executables=("codex",),
        resume=("codex", "resume", "{session}"),
    ),
    Agent(
        runtime="claude",
        display_name="Claude Code",
        badge="Cl",
        home=HomeSpec("CLAUDE_CONFIG_DIR", (".claude",)),
        store="hangar.agents.claude:ClaudeStore",
        live="hangar.localrun.providers.claude:ClaudeProvider",
        control="hangar.agents.claude.control:ClaudeControl",
        usage="hangar.agents.claude.usage:scan_usage",
        executables=("claude",),
        resume=("claude", "--resume", "{session}"),
    ),
    Agent(
        runtime="opencode",
        display_name="OpenCode",
        badge="Oc",
        home=xdg_data("opencode"),
        extra_homes=(("config", xdg_config("opencode")),),
        store="hangar.agents.opencode:OpenCodeStore",
        live="hangar.localrun.providers.opencode:OpenCodeProvider",
        control="hangar.agents.opencode.control:OpenCodeControl",
        usage="hangar.agents.usage_rules:scan_opencode_style",
        executables=("opencode",),
        resume=("opencode", "--session", "{session}"),
    ),
    Agent(
        runtime="continue",
        display_name="Continue CLI",
        badge="Cn",
        home=HomeSpec("CONTINUE_GLOBAL_DIR", (".continue",)),
        store="hangar.agents.continue_cli:ContinueStore",
        live="hangar.localrun.providers.continue_cli:ContinueProvider",
        usage="hangar.agents.usage_rules:scan_openai_style",
        executables=("cn",),
    ),
    Agent(
        runtime="gemini",
        display_name="Gemini CLI",
        badge="Gm",
        home=HomeSpec("GEMINI_CLI_HOME", (), (".gemini",)),
        store="hangar.agents.gemini:GeminiStore",
        live="hangar.localrun.providers.gemini:GeminiProvider",
        usage="hangar.agents.usage_rules:scan_gemini_style",
        executables=("gemini",),
    ),
    Agent(
        runtime="copilot",
        display_name="Copilot CLI",
        badge="Cp",
        home=HomeSpec("COPILOT_HOME", (".copilot",)),
        store="hangar.agents.copilot:CopilotStore",
        live="hangar.localrun.providers.copilot:CopilotProvider",
        usage="hangar.agents.usage_rules:scan_openai_style",
        executables=("copilot",),
    ),
    Agent(
        runtime="cursor",
        display_name="Cursor agent",
        badge="Cu",
        home=HomeSpec("CURSOR_CONFIG_DIR", (".cursor",)),
        store="hangar.agents.cursor:CursorStore",
        live="hangar.localrun.providers.cursor:CursorProvider",
        executables=("cursor-agent",),
    ),
    Agent(
        runtime="qwen",
        display_name="Qwen Code",
        badge="Qw",
        home=HomeSpec("QWEN_HOME", (".qwen",)),
        store="hangar.agents.qwen:QwenStore",
        live="hangar.localrun.providers.qwen:QwenProvider",
        usage="hangar.agents.usage_rules:scan_gemini_style",
        executables=("qwen",),
    ),
    Agent(
        runtime="kiro",
        display_name="Kiro CLI",
        badge="Ki",
        home=HomeSpec("KIRO_HOME", (".kiro",)),
        extra_homes=(("legacyData", xdg_data("kiro-cli")),),
        store="hangar.agents.kiro:KiroStore",
        live="hangar.localrun.providers.kiro:KiroProvider",
        executables=("kiro-cli",),
    ),
    Agent(
        runtime="agy",
        display_name="Antigravity CLI",
        badge="Ag",
        home=HomeSpec(None, (".gemini", "antigravity-cli")),
        live="hangar.localrun.providers.agy:AgyProvider",
        executables=("agy", "antigravity"),
    ),
)
