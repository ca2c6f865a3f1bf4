"""Codex rollouts: requests vs injected context, turns, tools, checklists, discovery."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zstandard

from .helpers import line, parse_file, store


def rec(kind: str, payload: dict[str, Any], ts: str = "2026-11-30T00:00:00Z") -> bytes:
    return line({"timestamp": ts, "type": kind, "payload": payload})


def user_item(text: str) -> bytes:
    return rec("response_item", {"type": "message", "role": "user",
               "content": [{"type": "input_text", "text": text}]})  # fmt: skip


def plan_call(call_id: str, steps: list[tuple[str, str]], arguments: str | None = None) -> bytes:
    plan = {"plan": [{"step": s, "status": st} for s, st in steps], "explanation": "why"}
    return rec("response_item", {"type": "function_call", "name": "update_plan",
               "call_id": call_id, "arguments": arguments or json.dumps(plan)})  # fmt: skip


def write(tmp_path: Path, *lines: bytes) -> Path:
    path = tmp_path / "rollout-2026-11-30T00-00-00-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def rollout_0171(tmp_path: Path) -> Path:
    """The record sequence codex 0.171 writes for one tool turn (no event_msg/user_message)."""
    return write(
        tmp_path,
        rec("session_meta", {"id": "t", "cwd": "/w", "cli_version": "0.171.0"}),
        rec("event_msg", {"type": "task_started", "turn_id": "turn-a"}),
        rec("response_item", {"type": "message", "role": "developer",
            "content": [{"type": "input_text", "text": "<permissions instructions>x"}]}),
        user_item("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        user_item("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"),
        rec("world_state", {"full": True}),
        rec("turn_context", {"turn_id": "turn-a", "cwd": "/w", "model": "fake-model"}),
        rec("event_msg", {"type": "thread_settings_applied"}),
        user_item("<application_context>app</application_context>\n# Files mentioned by the "
                  "user:\n\n## shot.png: /w/shot.png\n\n## My request for Codex:\nrun the tests"),
        rec("event_msg", {"type": "item_completed", "item": {"type": "UserMessage",
            "id": "client-1", "content": [{"type": "text", "text": "run the tests"}]}}),
        rec("response_item", {"type": "function_call", "name": "exec_command",
            "arguments": '{"cmd":"pytest"}', "call_id": "call_1"}),
        rec("event_msg", {"type": "item_completed", "item": {"type": "CommandExecution",
            "id": "call_1", "command": ["/bin/bash", "-lc", "pytest"], "exit_code": 1,
            "duration_ms": 1500, "status": "completed"}}),
        rec("response_item", {"type": "function_call_output", "call_id": "call_1",
            "output": "Process exited with code 1\nOutput:\n1 failed"}),
        plan_call("call_2", [("Fix test", "in_progress"), ("Rerun", "pending")]),
        rec("response_item", {"type": "function_call_output", "call_id": "call_2",
            "output": "Plan updated"}),
        rec("event_msg", {"type": "item_completed", "item": {"type": "AgentMessage",
            "id": "m1", "text": "One test fails."}}),
        rec("response_item", {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "One test fails."}]}),
        rec("token_usage_record", {}),
        rec("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"total_tokens": 120},
            "last_token_usage": {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120},
            "model_context_window": 1000}}),
        rec("event_msg", {"type": "task_complete", "turn_id": "turn-a"}),
    )  # fmt: skip


def test_0171_request_from_response_items(tmp_path: Path) -> None:
    """RW-227, RW-228, RW-230: the request without injected context, duplicates merged
    keeping clientUserMessageId and attachments (codex 0.171 writes no user_message)."""
    messages, summary = parse_file("codex", rollout_0171(tmp_path))
    user, assistant = messages
    assert user["content"] == "run the tests"
    assert user["clientUserMessageId"] == "client-1"
    assert user["attachments"] == [{"name": "shot.png", "path": "/w/shot.png"}]
    assert user["turnId"] == assistant["turnId"] == "turn-a"
    assert assistant["content"] == "One test fails."
    assert [b["type"] for b in assistant["blocks"]] == ["tool", "tool", "checklist", "text"]
    shell = assistant["blocks"][0]
    assert shell["isError"] is True and shell["durationMs"] == 1500
    assert assistant["model"] == "fake-model"
    assert summary["title"] == "run the tests"


def test_guidance_splits_the_turn_where_it_came(tmp_path: Path) -> None:
    """Requests that come while a turn runs (``turn/steer``) sit between the output before and
    after them: one turn, an assistant message per stretch, the last one carrying the status."""
    say = lambda text: rec("response_item", {"type": "message", "role": "assistant",  # noqa: E731
                           "content": [{"type": "output_text", "text": text}]})  # fmt: skip
    path = write(
        tmp_path,
        rec("event_msg", {"type": "task_started", "turn_id": "turn-s"}),
        user_item("Write the parser"),
        say("Reading the grammar."),
        say("Writing the lexer."),
        user_item("Use tabs, not spaces"),
        say("Switched to tabs."),
        user_item("And add tests"),
        user_item("With fixtures"),
        say("Tests added."),
        say("Done."),
        rec("event_msg", {"type": "task_complete", "turn_id": "turn-s"}),
    )
    messages, _ = parse_file("codex", path)
    shown = [(m["role"], [b.get("text") for b in m.get("blocks", [])] or m["content"])
             for m in messages]  # fmt: skip
    assert shown == [
        ("user", "Write the parser"),
        ("assistant", ["Reading the grammar.", "Writing the lexer."]),
        ("user", "Use tabs, not spaces"),
        ("assistant", ["Switched to tabs."]),
        ("user", "And add tests"),
        ("user", "With fixtures"),
        ("assistant", ["Tests added.", "Done."]),
    ]
    assert {m["turnId"] for m in messages} == {"turn-s"}
    assert [m["id"] for m in messages if m["role"] == "assistant"] == [
        "turn-s:assistant", "turn-s:assistant:1", "turn-s:assistant:2"]  # fmt: skip
    assert [m.get("status", "done") for m in messages if m["role"] == "assistant"] == [
        "done", "done", "done"]  # fmt: skip


def test_update_plan_becomes_checklist(tmp_path: Path) -> None:
    """CL-025, CL-067: update_plan → a checklist block on the turn's assistant
    message from the raw arguments (a long step stays whole); the tool call stays visible;
    an invalid update keeps the previous list."""
    path = write(
        tmp_path,
        rec("event_msg", {"type": "task_started", "turn_id": "t1"}),
        user_item("plan it"),
        plan_call("p1", [("A" * 5000, "completed"), ("B", "in_progress")]),
        plan_call("p2", [], arguments='{"plan": [{"step": "x", "status": "bogus"}]}'),
        rec("event_msg", {"type": "task_complete", "turn_id": "t1"}),
    )
    messages, summary = parse_file("codex", path)
    blocks = messages[1]["blocks"]
    assert [b["type"] for b in blocks] == ["tool", "checklist", "tool"]
    assert blocks[0]["name"] == "update_plan" and blocks[0]["kind"] == "plan"
    assert blocks[1] == {
        "type": "checklist",
        "source": "codex.update_plan",
        "items": [{"content": "A" * 5000, "status": "completed"},
                  {"content": "B", "status": "in_progress"}],
    }  # fmt: skip
    assert summary["checklist"]["items"][1]["content"] == "B"


def test_legacy_user_message_event_wins(tmp_path: Path) -> None:
    """RW-227: where event_msg/user_message exists, response-item users are not shown twice."""
    path = write(
        tmp_path,
        rec("event_msg", {"type": "task_started", "turn_id": "t1"}),
        user_item("<user_instructions>rules</user_instructions>"),
        user_item("hello"),
        rec("event_msg", {"type": "user_message", "message": "hello",
            "local_images": ["/tmp/a.png"]}),
        rec("event_msg", {"type": "agent_message", "message": "hi"}),
        rec("response_item", {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "hi"}]}),
        rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
    )  # fmt: skip
    messages, _ = parse_file("codex", path)
    assert [m["content"] for m in messages] == ["hello", "hi"]
    assert messages[0]["attachments"] == [{"name": "a.png", "path": "/tmp/a.png"}]
    assert messages[1]["status"] == "cancelled"
    assert [b["type"] for b in messages[1]["blocks"]] == ["text"]


def test_patches_images_and_compaction(tmp_path: Path) -> None:
    """RW-237, RW-286..288: apply_patch file changes, image payloads kept whole with their
    prompt, compaction."""
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n+z\n*** End Patch"
    payload = "A" * 200_000
    path = write(
        tmp_path,
        rec("event_msg", {"type": "task_started", "turn_id": "t1"}),
        user_item("edit"),
        rec("response_item", {"type": "custom_tool_call", "name": "apply_patch",
            "call_id": "c1", "input": patch}),
        rec("event_msg", {"type": "patch_apply_end", "call_id": "c1", "success": True,
            "changes": {"a.py": {"type": "update", "unified_diff": "-x\n+y\n+z"}}}),
        rec("response_item", {"type": "custom_tool_call_output", "call_id": "c1",
            "output": "Success"}),
        rec("response_item", {"type": "image_generation_call", "id": "ig1",
            "result": payload, "revised_prompt": "a cat"}),
        rec("event_msg", {"type": "image_generation_end", "call_id": "ig1", "result": payload}),
        rec("compacted", {"message": "summary so far"}),
        rec("event_msg", {"type": "context_compacted"}),
        rec("event_msg", {"type": "task_complete", "turn_id": "t1"}),
    )  # fmt: skip
    messages, _ = parse_file("codex", path)
    blocks = messages[1]["blocks"]
    assert [b["type"] for b in blocks] == ["tool", "fileChanges", "image", "compaction"]
    assert blocks[1]["files"][0]["additions"] == 2 and blocks[1]["success"] is True
    assert blocks[2]["renderPayload"] == "data:image/png;base64," + payload
    assert blocks[2]["prompt"] == "a cat"
    assert blocks[3]["text"] == "summary so far"


def test_discovery_live_archived_and_zst(tmp_path: Path) -> None:
    """Discovery: dated folders, archived_sessions, .jsonl.zst (plain wins), thread ids."""
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    data = rollout_0171(tmp_path).read_bytes()
    ids = ["019e1625-789d-76c0-80ab-3724b5ddb791", "019e1625-789d-76c0-80ab-3724b5ddb792"]
    (day / f"rollout-2026-11-30T00-00-00-{ids[0]}.jsonl").write_bytes(data)
    zst = zstandard.ZstdCompressor().compress(data)
    (day / f"rollout-2026-11-30T00-00-00-{ids[1]}.jsonl.zst").write_bytes(zst)
    (day / f"rollout-2026-11-30T00-00-00-{ids[0]}.jsonl.zst").write_bytes(zst)
    (home / "archived_sessions").mkdir()
    old = "019e1625-789d-76c0-80ab-3724b5ddb793"
    (home / "archived_sessions" / f"rollout-2026-01-01T00-00-00-{old}.jsonl").write_bytes(data)
    codex = store("codex", home)
    found = {s.session_id: s for s in codex.discover()}
    assert sorted(found) == sorted([*ids, old])
    assert found[old].archived and not found[ids[0]].archived
    assert found[ids[1]].path.name.endswith(".zst")
    assert found[ids[1]].title == "run the tests" and found[ids[1]].workspace_path == "/w"
    messages, _ = parse_file("codex", found[ids[1]].path)
    assert messages[0]["content"] == "run the tests"


def test_subagent_thread_attached_to_spawning_call(tmp_path: Path) -> None:
    """Codex multi-agent: the child thread's messages become ToolBlock.children of the call
    that spawned it, refreshed by later collab events; the child is never listed and its
    checklist stays in the child (CL-064)."""
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    parent_id = "019e1625-789d-76c0-80ab-3724b5ddb701"
    child_id = "019e1625-789d-76c0-80ab-3724b5ddb702"
    (day / f"rollout-2026-11-30T00-00-01-{child_id}.jsonl").write_bytes(
        rec("session_meta", {"id": child_id, "parent_thread_id": parent_id, "cwd": "/w",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent_id}}}})
        + rec("event_msg", {"type": "task_started", "turn_id": "c1"})
        + user_item("search the repo")
        + plan_call("cp", [("child step", "pending")])
        + rec("response_item", {"type": "message", "role": "assistant",
              "content": [{"type": "output_text", "text": "found 3"}]})
        + rec("event_msg", {"type": "task_complete", "turn_id": "c1"})
    )  # fmt: skip
    parent = day / f"rollout-2026-11-30T00-00-00-{parent_id}.jsonl"
    parent.write_bytes(
        rec("session_meta", {"id": parent_id, "cwd": "/w"})
        + rec("event_msg", {"type": "task_started", "turn_id": "p1"})
        + user_item("delegate")
        + rec("response_item", {"type": "function_call", "name": "spawn_agent",
              "call_id": "s1", "arguments": '{"message": "search the repo"}'})
        + rec("event_msg", {"type": "collab_agent_spawn_end", "call_id": "s1",
              "new_thread_id": child_id, "prompt": "search the repo"})
        + rec("event_msg", {"type": "collab_close_end", "call_id": "s2",
              "receiver_thread_id": child_id})
        + rec("event_msg", {"type": "task_complete", "turn_id": "p1"})
    )  # fmt: skip
    codex = store("codex", home)
    listed = [s for s in codex.discover() if s.parent_session_id is None]
    assert [s.session_id for s in listed] == [parent_id]
    from hangar.transcripts.engine import parse_all

    from .helpers import source

    messages, summary = parse_all(codex, source("codex", parent))
    spawn = messages[1].blocks[0]  # type: ignore[index]
    assert spawn.name == "spawn_agent" and spawn.children is not None  # type: ignore[union-attr]
    assert [m.content for m in spawn.children] == ["search the repo", "found 3"]  # type: ignore[union-attr]
    assert summary.checklist is None
