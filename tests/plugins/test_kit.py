"""The conformance kit, run over scripted stand-in adapters that follow the contract and ones
that break it; and its one command, ``hangar local-run provider validate DIR --run``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from hangar.cli.main import cli
from hangar.localrun.plugins.manifest import PROTOCOL_V2
from hangar.testing.plugin_kit import check_plugin, load_kit_spec


def with_spec(folder: Path, spec: dict[str, Any]) -> Path:
    (folder / "kit.json").write_text(json.dumps(spec))
    return folder


def verdicts(folder: Path) -> dict[str, bool]:
    report = check_plugin(folder, load_kit_spec(folder / "kit.json", folder))
    return {check.name: check.ok for check in report.checks}


def test_a_conforming_v1_adapter_passes(plugin_factory: Callable[..., Path]) -> None:
    folder = with_spec(
        plugin_factory("good"),
        {"issue": {"args": ["turn:t1", "stderr:only diagnostics here", "env"]}},
    )
    found = verdicts(folder)
    assert all(found.values()), found
    assert set(found) >= {
        "manifest",
        "name",
        "issue run 1: exit code",
        "issue run 1: only events on the event stream",
        "issue run 1: protocol fields only",
        "issue run 1: source keys unique",
        "issue run 1: usage",
        "keys stable across identical runs",
        "hub use",
    }


def test_an_adapter_that_breaks_the_contract_fails_each_rule(
    plugin_factory: Callable[..., Path],
) -> None:
    """LR-161/LR-192 (clock-made keys), LR-191 (chatter on stdout), undeclared usage, a
    repeated key, an unknown field and a wrong exit code are each caught by name."""
    extra = json.dumps({"type": "text", "source": "scripted", "source_key": "x",
                        "content": "c", "colour": "red"})  # fmt: skip
    folder = with_spec(
        plugin_factory("bad"),
        {"issue": {"args": ["timekey", "stdout:Loading…", "usage:m", f"emit:{extra}",
                            f"emit:{extra}", "exit:1"]}},
    )  # fmt: skip
    found = verdicts(folder)
    failed = {name.replace("issue run 2", "issue run N").replace("issue run 1", "issue run N")
              for name, ok in found.items() if not ok}  # fmt: skip
    assert failed == {
        "issue run N: exit code",
        "issue run N: only events on the event stream",
        "issue run N: protocol fields only",
        "issue run N: source keys unique",
        "issue run N: usage",
        "keys stable across identical runs",
    }


def test_a_v2_adapter_with_handoff_and_a_terminal(plugin_factory: Callable[..., Path]) -> None:
    """The kit runs a PTY adapter with typed input, a discussion with only the session id,
    a bound handoff and a cancelled one (after which the adapter must exit)."""
    folder = with_spec(
        plugin_factory(
            "planner", protocol=PROTOCOL_V2,
            capabilities={"interactive_pty": True, "native_plan_handoff": True, "usage": True},
        ),
        {
            "issue": {"args": ["ask:> ", "usage:m"], "steps": [{"expect": "> ", "send": "hi\r"}]},
            "discussion": {"args": ["turn:d1", "handoff:h1", "turn:d2"]},
        },
    )  # fmt: skip
    report = check_plugin(folder, load_kit_spec(folder / "kit.json", folder))
    found = {check.name: check.ok for check in report.checks}
    assert all(found.values()), report.lines()
    expected = {"handoff_ready sent", "handoff_decision delivered",
                "exit after a cancelled handoff", "discussion run: exit code"}  # fmt: skip
    assert expected <= set(found)
    discussion = next(run for run in report.runs if run.label == "discussion run")
    assert [m.source_key for m in discussion.recorder.messages][:2] == ["d1:user", "d1:final"]


def test_a_v2_adapter_that_never_hands_off_is_told_how_to_reach_it(
    plugin_factory: Callable[..., Path],
) -> None:
    folder = with_spec(
        plugin_factory("lazy", protocol=PROTOCOL_V2, capabilities={"native_plan_handoff": True}),
        {"issue": {"args": ["turn:t1"]}},
    )
    report = check_plugin(folder, load_kit_spec(folder / "kit.json", folder))
    check = next(c for c in report.checks if c.name == "handoff_ready sent")
    assert not check.ok and "implement-plan action" in check.detail


def test_a_hanging_adapter_is_ended_by_the_kit(plugin_factory: Callable[..., Path]) -> None:
    folder = with_spec(
        plugin_factory("hang"), {"issue": {"args": ["turn:t1", "forever"], "timeout": 2}}
    )
    report = check_plugin(folder, load_kit_spec(folder / "kit.json", folder))
    exit_check = next(c for c in report.checks if c.name == "issue run 1: exit code")
    assert not exit_check.ok and exit_check.detail == "143 (expected 0)"


def test_validate_run_is_one_command(plugin_factory: Callable[..., Path]) -> None:
    good = with_spec(plugin_factory("good"), {"issue": {"args": ["turn:t1"]}})
    done = CliRunner().invoke(cli, ["local-run", "provider", "validate", str(good), "--run"])
    assert done.exit_code == 0, done.output
    assert "PASS keys stable across identical runs" in done.output
    assert done.output.strip().endswith("0 failed")
    bad = with_spec(plugin_factory("bad"), {"issue": {"args": ["timekey"]}})
    done = CliRunner().invoke(
        cli, ["local-run", "provider", "validate", str(bad), "--run", "--json"]
    )
    assert done.exit_code == 1
    report = json.loads(done.output)
    assert not report["ok"] and report["runs"][0]["messages"][0]["type"] == "text"
