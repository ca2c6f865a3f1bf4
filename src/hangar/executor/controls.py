"""Control facets opened for one batch of operations, at most one per agent.

The lifecycle operations and the delete worker act on sessions through each agent's control
facet (:mod:`hangar.agents.control`). A batch (one archive-all, one delete drain) keeps the
controls it opened — e.g. one ``codex app-server`` for every Codex thread of the batch — and
closes them all at the end.
"""

from __future__ import annotations

from collections.abc import Callable

from hangar.agents.control import AgentControl

ControlOpener = Callable[[str], AgentControl | None]
"""Opens the control facet of a runtime; ``None`` when the agent has none."""


class ControlBatch:
    def __init__(self, opener: ControlOpener) -> None:
        self._opener = opener
        self._open: dict[str, AgentControl | None] = {}

    def get(self, runtime: str) -> AgentControl | None:
        if runtime not in self._open:
            self._open[runtime] = self._opener(runtime)
        return self._open[runtime]

    def forget(self, runtime: str) -> None:
        """Close and drop ``runtime``'s control (the next :meth:`get` opens a new one)."""
        control = self._open.pop(runtime, None)
        if control is not None:
            control.close()

    def close(self) -> None:
        for runtime in list(self._open):
            self.forget(runtime)

    def __enter__(self) -> ControlBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
