"""The one child-environment builder of a local run (LR-125, LR-185).

Contract: the child (and every sidecar a provider starts) gets the user's environment minus
hangar's own credentials, plus the run binding: ``HANGAR_RUN_ID``, ``HANGAR_ISSUE_ID``,
``HANGAR_ISSUE_KEY``, ``HANGAR_WORKSPACE_ID``, ``HANGAR_SERVER_URL`` and the *run-scoped*
``HANGAR_TOKEN`` the hub minted for this run. The user's own token never reaches the child.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

#: Variables hangar itself reads as credentials or hub location; never inherited.
_OWN_VARS = frozenset({"HANGAR_TOKEN", "HANGAR_SERVER_URL", "HANGAR_WORKSPACE_ID"})
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|API_?KEY", re.I)

#: Variables a bound run always sets (documented in docs/local-runs.md).
BINDING_VARS = (
    "HANGAR_RUN_ID",
    "HANGAR_ISSUE_ID",
    "HANGAR_ISSUE_KEY",
    "HANGAR_WORKSPACE_ID",
    "HANGAR_SERVER_URL",
    "HANGAR_TOKEN",
)


@dataclass(frozen=True)
class RunBinding:
    """What ties a child process to one run of one issue."""

    run_id: str
    issue_id: str
    issue_key: str
    workspace_id: str
    server_url: str
    run_token: str
    """Token minted by the hub for this run only: read the issue, post to this run."""


def is_hangar_secret(name: str) -> bool:
    """True for hangar's own credentials: ``HANGAR_TOKEN`` and any secret-looking ``HANGAR_*``."""
    return name in _OWN_VARS or (
        name.startswith("HANGAR_") and _SECRET_NAME.search(name) is not None
    )


def build_child_env(parent: Mapping[str, str], binding: RunBinding | None) -> dict[str, str]:
    """The environment of a local run's child: ``parent`` without hangar's secrets + binding."""
    env = {
        name: value
        for name, value in parent.items()
        if not is_hangar_secret(name) and name not in BINDING_VARS
    }
    if binding is not None:
        env.update(
            {
                "HANGAR_RUN_ID": binding.run_id,
                "HANGAR_ISSUE_ID": binding.issue_id,
                "HANGAR_ISSUE_KEY": binding.issue_key,
                "HANGAR_WORKSPACE_ID": binding.workspace_id,
                "HANGAR_SERVER_URL": binding.server_url,
                "HANGAR_TOKEN": binding.run_token,
            }
        )
    return env
