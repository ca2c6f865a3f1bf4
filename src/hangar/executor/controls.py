"""Control facets for a batch of operations, at most one per agent.

The lifecycle operations and the delete worker act on sessions through each agent's control
facet (:mod:`hangar.agents.control`). A batch (one archive-all, one delete drain) keeps the
controls it got — e.g. one ``codex app-server`` for every Codex thread of the batch. A batch
that *owns* its controls closes them at the end; the executor's batches borrow its resident
controls (one per agent for the executor's lifetime, so no second ``codex app-server`` is
started beside the one that runs the user's turns) and leave them running.
"""

from __future__ import annotations

from collections.abc import Callable

from hangar.agents.control import AgentControl

ControlOpener = Callable[[str], AgentControl | None]
"""Opens (or, for resident controls, returns) the control facet of a runtime; ``None`` when
the agent has none."""


class ControlBatch:
    def __init__(self, opener: ControlOpener, *, owned: bool = True) -> None:
        self._opener = opener
        self._owned = owned
        self._open: dict[str, AgentControl | None] = {}

    def get(self, runtime: str) -> AgentControl | None:
        if runtime not in self._open:
            self._open[runtime] = self._opener(runtime)
        return self._open[runtime]

    def forget(self, runtime: str) -> None:
        """Drop ``runtime``'s control (closed when this batch owns it); the next :meth:`get`
        opens a new one."""
        control = self._open.pop(runtime, None)
        if control is not None and self._owned:
            control.close()

    def close(self) -> None:
        for runtime in list(self._open):
            self.forget(runtime)

    def __enter__(self) -> ControlBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
