"""ACP: hangar's own ACP client drives the real ``opencode acp`` 1.18.33 (sandbox, fake model)
and turns what arrives in ``session/update`` into checklists by the same rules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hangar.agents.acp_client import AcpClient, PromptResult, prompt_checklists
from hangar.agents.checklist_rules import ChecklistLedger
from hangar.testing.agent_runs import AgentSandbox
from hangar.testing.scenarios import builtin_scenario

pytestmark = pytest.mark.real_agents


class AcpSession:
    def __init__(self, box: AgentSandbox, client: AcpClient, session_id: str) -> None:
        self.box, self.client, self.session_id = box, client, session_id

    def prompt(self, scenario: str, text: str) -> PromptResult:
        self.box.sandbox.load(builtin_scenario(scenario))
        result = self.client.prompt(self.session_id, text)
        assert result.stop_reason == "end_turn"
        return result


@pytest.fixture
def acp(agent_sandbox: AgentSandbox) -> Iterator[AcpSession]:
    cwd = agent_sandbox.workspace("projects/acp", builtin_scenario("hello").workspace)
    process = agent_sandbox.spawn("opencode", ["acp"], cwd=cwd)
    client = AcpClient(process, timeout=90)
    try:
        info = client.initialize()
        assert info.get("protocolVersion") == 1
        yield AcpSession(agent_sandbox, client, client.new_session(str(cwd)))
    finally:
        client.close()
    assert process.poll() is not None, "the agent process was ended by its PID"


def _committed(session: AcpSession, prompts: list[PromptResult]) -> list[tuple[str, list[str]]]:
    ledger = ChecklistLedger()
    updates = prompt_checklists(session.session_id, prompts, runtime="opencode")
    return [
        (str(turn), [f"{i.content}:{i.status}" for i in block.items])
        for turn, block in ledger.apply(updates)
    ]


def test_opencode_acp_todowrite_updates_become_checklists(acp: AcpSession) -> None:
    """CL-043, CL-044, CL-048, CL-049, CL-050: ``opencode acp`` 1.18.33 sends no ``plan``
    updates (checked here, so a version that starts sending them is noticed); its exact
    ``todowrite`` tool arrives as tool calls with the raw input, the call id and the final
    status, which commit once per call, on completion, owned by the prompt (CL-034)."""
    edits = acp.prompt("checklist-edits", "Edit the checklist")
    kinds = {u["update"]["sessionUpdate"] for u in edits.updates}
    assert "plan" not in kinds and "tool_call_update" in kinds
    turn = f"prompt-{edits.request_id}"
    assert _committed(acp, [edits]) == [
        (turn, ["Alpha:pending", "Beta:pending", "Gamma:pending"]),
        (turn, ["Alpha:completed", "Beta:in_progress", "Gamma:pending"]),
        (turn, ["Gamma:pending", "Alpha:completed", "Beta:in_progress"]),
        (turn, ["Gamma:pending", "Beta:completed"]),
        (turn, ["Same text:pending", "Same text:completed"]),
    ]
    # Without the runtime's confirmed tool list, tool calls are never read as checklists.
    assert prompt_checklists(acp.session_id, [edits]) == []


def test_opencode_acp_invalid_clear_and_next_turn(acp: AcpSession) -> None:
    """CL-023, CL-025, CL-026, CL-064: an update with an unknown status commits nothing,
    a clear commits an empty list, and the next prompt owns its own list."""
    invalid = acp.prompt("checklist-invalid", "Keep the checklist")
    cleared = acp.prompt("checklist-clear", "Clear the checklist")
    second = acp.prompt("checklist-second-turn", "Plan the next work")
    # opencode 1.18.33 itself accepts the unknown status and completes the call: only
    # hangar's strict validation keeps the previous list (CL-026).
    frames = [u["update"] for u in invalid.updates if u["update"].get("toolCallId")]
    [bogus] = {f["toolCallId"] for f in frames if "bogus" in str(f.get("rawInput"))}
    assert [f.get("status") for f in frames if f["toolCallId"] == bogus][-1] == "completed"
    one, two, three = (f"prompt-{p.request_id}" for p in (invalid, cleared, second))
    assert _committed(acp, [invalid, cleared, second]) == [
        (one, ["Keep me:in_progress", "Keep me too:pending"]),
        (two, ["Temporary step:pending"]),
        (two, []),
        (three, ["Next step:pending"]),
    ]
    ledger = ChecklistLedger()
    ledger.apply(prompt_checklists(acp.session_id, [invalid, cleared, second], "opencode"))
    assert ledger.current(two) is not None and ledger.current(two).cleared  # type: ignore[union-attr]
    current = ledger.current(three)
    assert current is not None and [i.content for i in current.items] == ["Next step"]
