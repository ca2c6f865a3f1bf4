"""The environment of a plugin adapter, on top of the shared child-environment builder (LR-142,
LR-146, LR-185).

Issue-first (``hangar run``): the run binding from
:func:`hangar.localrun.environment.build_child_env` (``HANGAR_RUN_ID``, ``HANGAR_ISSUE_ID``,
``HANGAR_ISSUE_KEY``, ``HANGAR_WORKSPACE_ID``, ``HANGAR_SERVER_URL``, the run-scoped
``HANGAR_TOKEN``), plus — with ``issue_context: "env"`` — ``HANGAR_ISSUE_TITLE`` and
``HANGAR_ISSUE_CONTEXT``. Discussion (v2, before the issue exists): none of those, only
``HANGAR_LOCALRUN_SESSION_ID`` (LR-146). Both modes add the plugin's metadata and its channels:

========================================  =====================================================
``HANGAR_LOCALRUN_MODE``                  ``issue`` or ``discussion``
``HANGAR_LOCALRUN_SESSION_ID``            stable id of this session (the run id in a run, the
                                          discussion id in a discussion)
``HANGAR_LOCALRUN_PROVIDER_NAME``         the manifest's ``name``
``HANGAR_LOCALRUN_PROVIDER_DISPLAY_NAME`` its ``display_name``
``HANGAR_LOCALRUN_PROVIDER_PROTOCOL``     its ``protocol``
``HANGAR_LOCALRUN_PROVIDER_DIR``          the folder holding ``provider.json``
``HANGAR_LOCALRUN_EVENTS_FD``             where to write NDJSON events (``1`` = stdout)
``HANGAR_LOCALRUN_CONTROL_FD``            where control frames arrive (``0`` = stdin)
``HANGAR_LOCALRUN_LOG_FD``                where diagnostics go (``2`` = stderr)
========================================  =====================================================

Any ``HANGAR_LOCALRUN_*``, ``HANGAR_ISSUE_TITLE`` or ``HANGAR_ISSUE_CONTEXT`` inherited from the
parent is dropped first,
so a run started from inside another session never sees that session's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from hangar.localrun.environment import BINDING_VARS, build_child_env
from hangar.localrun.plugins.manifest import PluginManifest

Mode = Literal["issue", "discussion"]
CONTEXT_VARS = ("HANGAR_ISSUE_TITLE", "HANGAR_ISSUE_CONTEXT")


@dataclass(frozen=True)
class Channels:
    """File descriptor numbers of the adapter's three streams, as the adapter sees them."""

    events: int = 1
    control: int = 0
    log: int = 2


def _without_inherited(env: Mapping[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in env.items()
        if not k.startswith("HANGAR_LOCALRUN_") and k not in CONTEXT_VARS
    }


def plugin_env(
    manifest: PluginManifest,
    base: Mapping[str, str],
    *,
    mode: Mode,
    session_id: str,
    channels: Channels,
    issue_title: str | None = None,
    issue_context: str | None = None,
) -> dict[str, str]:
    """The adapter's environment. ``base`` is the child environment already built by
    :func:`build_child_env` (with the run binding in issue mode, without it in discussions)."""
    env = _without_inherited(base)
    if mode == "discussion":
        for name in BINDING_VARS:
            env.pop(name, None)
    env.update(
        {
            "HANGAR_LOCALRUN_MODE": mode,
            "HANGAR_LOCALRUN_SESSION_ID": session_id,
            "HANGAR_LOCALRUN_PROVIDER_NAME": manifest.name,
            "HANGAR_LOCALRUN_PROVIDER_DISPLAY_NAME": manifest.display_name,
            "HANGAR_LOCALRUN_PROVIDER_PROTOCOL": manifest.protocol,
            "HANGAR_LOCALRUN_PROVIDER_DIR": str(manifest.folder),
            "HANGAR_LOCALRUN_EVENTS_FD": str(channels.events),
            "HANGAR_LOCALRUN_CONTROL_FD": str(channels.control),
            "HANGAR_LOCALRUN_LOG_FD": str(channels.log),
        }
    )
    if mode == "issue" and manifest.capabilities.issue_context == "env":
        if issue_title is not None:
            env["HANGAR_ISSUE_TITLE"] = issue_title
        if issue_context is not None:
            env["HANGAR_ISSUE_CONTEXT"] = issue_context
    return env


def discussion_base_env(parent: Mapping[str, str]) -> dict[str, str]:
    """The child environment of a discussion: the user's, without hangar's secrets and without
    any run binding (the child never sees the user's token)."""
    return build_child_env(parent, None)
