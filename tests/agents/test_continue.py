"""Continue CLI store: sessions, tool call states, and the Checklist tool's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hangar.agents.base import LoadedSession
from hangar.agents.continue_cli import ContinueStore
from hangar.model import ChecklistBlock, Message, ToolBlock

from .homes import continue_home
from .samples import cn_call, cn_checklist, cn_reply, cn_session, cn_user

SID = "0d6a7c1e-0000-4000-8000-00000000000a"


def _load(tmp_path: Path, history: list[dict[str, Any]]) -> LoadedSession:
    store = ContinueStore(continue_home(tmp_path / "cn", {SID: cn_session(SID, history)}))
    [source] = list(store.discover())
    return store.load(source)


def _lists(message: Message) -> list[list[tuple[str, str]]]:
    return [
        [(i.content, i.status) for i in b.items]
        for b in message.blocks or []
        if isinstance(b, ChecklistBlock)
    ]


def test_a_successful_checklist_call_commits_the_whole_list(tmp_path: Path) -> None:
    """CL-003, CL-004, CL-005: `- [ ]` pending, `- [x]`/`- [X]` completed, blank lines ok."""
    loaded = _load(
        tmp_path,
        [
            cn_user("Plan"),
            cn_checklist("c1", "- [ ] One\n\n- [x] Two\n- [X] Three\n"),
            cn_reply("Planned."),
        ],
    )
    reply = loaded.messages[1]
    assert _lists(reply) == [[("One", "pending"), ("Two", "completed"), ("Three", "completed")]]
    assert reply.content == "Planned."
    assert loaded.summary.checklist is not None
    assert loaded.summary.checklist.source == "continue.Checklist"
    assert loaded.summary.title is None, "cn's placeholder title is not a title"
    store = ContinueStore(
        continue_home(
            tmp_path / "listed",
            {SID: cn_session(SID, [cn_user('Fix the "login" bug\nwith details'), cn_reply("ok")])},
        )
    )
    [source] = list(store.discover())
    assert source.title == 'Fix the "login" bug', "listed by its first request"


def test_failed_cancelled_and_unfinished_calls_never_commit(tmp_path: Path) -> None:
    """CL-015, CL-017, CL-063: only a `done` state commits; the previous list stays."""
    loaded = _load(
        tmp_path,
        [
            cn_user("Plan"),
            cn_checklist("c1", "- [ ] Kept"),
            cn_checklist("c2", "- [ ] Failed", status="errored"),
            cn_checklist("c3", "- [ ] Cancelled", status="canceled"),
            cn_checklist("c4", "- [ ] Still calling", status="calling"),
            cn_reply("Done."),
        ],
    )
    assert _lists(loaded.messages[1]) == [[("Kept", "pending")]]
    assert loaded.summary.checklist is not None
    assert [i.content for i in loaded.summary.checklist.items] == ["Kept"]
    tools = [b for b in loaded.messages[1].blocks or [] if isinstance(b, ToolBlock)]
    # CL-067: every checklist call stays visible as tool activity, with its own status.
    assert [t.status for t in tools] == ["done", "failed", "cancelled", "running"]
    assert tools[1].is_error


def test_ordinary_tools_keep_their_path_beside_checklist_calls(tmp_path: Path) -> None:
    """CL-018: an ordinary tool call between checklist calls is the same tool block it would
    be without them (name, input, output, status), and changes no checklist."""
    shell = cn_call("s1", "Bash", json.dumps({"command": "ls"}), output="a.txt\nb.txt")
    alone = _load(tmp_path / "alone", [cn_user("List"), shell, cn_reply("Two files.")])
    mixed = _load(
        tmp_path / "mixed",
        [cn_user("List"), cn_checklist("c1", "- [ ] Look"), shell, cn_reply("Two files.")],
    )

    def bash(loaded: LoadedSession) -> list[ToolBlock]:
        return [
            b
            for m in loaded.messages
            for b in m.blocks or []
            if isinstance(b, ToolBlock) and b.name == "Bash"
        ]

    assert bash(mixed) == bash(alone) and len(bash(alone)) == 1
    assert (bash(alone)[0].input, bash(alone)[0].status) == ({"command": "ls"}, "done")
    assert "a.txt" in (bash(alone)[0].output or "")
    assert alone.summary.checklist is None
    assert mixed.summary.checklist is not None
    assert [i.content for i in mixed.summary.checklist.items] == ["Look"]


def test_a_success_without_arguments_uses_the_calls_own(tmp_path: Path) -> None:
    """CL-016: the state frame lost the arguments; the call's captured ones commit."""
    loaded = _load(
        tmp_path,
        [
            cn_user("Plan"),
            cn_checklist("c1", "- [x] From the call", state_arguments=""),
        ],
    )
    assert _lists(loaded.messages[1]) == [[("From the call", "completed")]]


def test_one_call_id_commits_once(tmp_path: Path) -> None:
    """CL-015, CL-034: the same call recorded twice is one replacement, not two."""
    item = cn_checklist("same", "- [ ] Once")
    loaded = _load(tmp_path, [cn_user("Plan"), item, json.loads(json.dumps(item))])
    assert _lists(loaded.messages[1]) == [[("Once", "pending")]]


def test_only_the_exact_checklist_tool_counts(tmp_path: Path) -> None:
    """CL-021, CL-022, CL-066: other tools, other spellings and assistant prose with
    checkboxes never make a checklist."""
    markdown = json.dumps({"checklist": "- [ ] Looks like a list"})
    loaded = _load(
        tmp_path,
        [
            cn_user("Plan"),
            cn_call("c1", "checklist", markdown),
            cn_call("c2", "TodoWrite", markdown),
            cn_call("c3", "Bash", json.dumps({"command": "echo '- [ ] x'"}), output="- [ ] x"),
            cn_reply("- [ ] prose\n- [x] more prose"),
        ],
    )
    assert _lists(loaded.messages[1]) == []
    assert loaded.summary.checklist is None


def test_clear_and_invalid_updates(tmp_path: Path) -> None:
    """CL-023, CL-024, CL-025, CL-026: whitespace-only clears; a non-item line or a
    missing `checklist` invalidates the update and the previous list stays."""
    loaded = _load(
        tmp_path,
        [
            cn_user("Plan"),
            cn_checklist("c1", "- [ ] First"),
            cn_checklist("c2", "- [ ] Second\nnot an item"),
            cn_call("c3", "Checklist", json.dumps({"items": ["x"]})),
            cn_call("c4", "Checklist", "{broken json"),
        ],
    )
    assert _lists(loaded.messages[1]) == [[("First", "pending")]]
    cleared = _load(
        tmp_path / "again",
        [
            cn_user("Plan"),
            cn_checklist("c1", "- [ ] First"),
            cn_checklist("c2", "  \n \n"),
        ],
    )
    assert _lists(cleared.messages[1]) == [[("First", "pending")], []]
    assert cleared.summary.checklist is not None and cleared.summary.checklist.cleared


def test_a_long_checklist_survives_whole(tmp_path: Path) -> None:
    """CL-013, CL-014, CL-019: parsed from the raw argument string, more than 4,000
    characters arrive complete."""
    markdown = "\n".join(f"- [ ] Step {n} " + "y" * 200 for n in range(30))
    loaded = _load(tmp_path, [cn_user("Plan"), cn_checklist("c1", markdown)])
    checklist = loaded.summary.checklist
    assert checklist is not None and len(checklist.items) == 30
    assert sum(len(i.content) for i in checklist.items) > 4_000


def test_consecutive_turns_keep_their_own_lists(tmp_path: Path) -> None:
    """CL-064: each turn's list is on its own assistant message."""
    loaded = _load(
        tmp_path,
        [
            cn_user("One"),
            cn_checklist("c1", "- [ ] One"),
            cn_reply("ok"),
            cn_user("Two"),
            cn_checklist("c2", "- [x] One\n- [ ] Two"),
            cn_reply("ok"),
            cn_user("Three"),
            cn_reply("no list"),
        ],
    )
    messages = loaded.messages
    assert [m.role for m in messages] == ["user", "assistant"] * 3
    assert _lists(messages[1]) == [[("One", "pending")]]
    assert _lists(messages[3]) == [[("One", "completed"), ("Two", "pending")]]
    assert _lists(messages[5]) == []


def test_a_file_caught_mid_rewrite_is_counted(tmp_path: Path) -> None:
    store = ContinueStore(continue_home(tmp_path / "cn", {SID: cn_session(SID, [cn_user("x")])}))
    [source] = list(store.discover())
    text = source.path.read_text()
    source.path.write_text(text[: len(text) // 2])
    loaded = store.load(source)
    assert loaded.messages == [] and loaded.summary.skipped == {"invalid_json": 1}
