"""``provider.json``: strict validation, every problem with its file and field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hangar.localrun.plugins.events import control_schema, event_schema
from hangar.localrun.plugins.manifest import (
    PROTOCOL_V2,
    ManifestError,
    load_manifest,
    manifest_schema,
)

from .conftest import manifest, write_plugin

DOCS = Path(__file__).resolve().parents[2] / "docs" / "provider-plugins.md"


def problems_of(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    error = caught.value
    assert error.path == path.absolute()
    rendered = str(error)
    for problem in error.problems:  # every problem names the file and the field
        assert f"{path.absolute()}: {problem.field}: {problem.message}" in rendered
    return [(p.field, p.message) for p in error.problems]


def test_a_valid_manifest_resolves_its_command_inside_the_folder(tmp_path: Path) -> None:
    """LR-130/LR-132: the manifest's fields; a relative command resolves against its folder."""
    folder = write_plugin(
        tmp_path / "copilot",
        "copilot",
        protocol=PROTOCOL_V2,
        capabilities={"interactive_pty": True, "native_plan_handoff": True},
        version="1.2.0",
    )
    loaded = load_manifest(folder / "provider.json")
    assert loaded.command == (folder / "adapter").resolve()
    assert loaded.supports_discussions and loaded.capabilities.native_plan_handoff
    assert (loaded.name, loaded.display_name, loaded.version) == (
        "copilot",
        "Scripted copilot",
        "1.2.0",
    )


def write(tmp_path: Path, data: Any, raw: bytes | None = None) -> Path:
    folder = write_plugin(tmp_path / "p", "p")
    path = folder / "provider.json"
    path.write_bytes(raw if raw is not None else json.dumps(data).encode())
    return path


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"schema_version": 1,', "not valid JSON (line 1, column 22"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"", "not valid JSON"),
    ],
)
def test_a_manifest_that_is_not_json(tmp_path: Path, raw: bytes, message: str) -> None:
    assert problems_of(write(tmp_path, None, raw))[0][0] == "(file)"
    assert message in problems_of(write(tmp_path, None, raw))[0][1]


def test_every_problem_is_reported_at_once_with_its_field(tmp_path: Path) -> None:
    data = manifest("Bad Name!", protocol="hangar-localrun-provider.v9", command="/bin/sh")
    del data["display_name"]
    data["capabilities"]["usage"] = "yes"
    data["capabilities"]["telepathy"] = True
    del data["capabilities"]["issue_context"]
    data["colour"] = "blue"
    found = dict(problems_of(write(tmp_path, data)))
    assert found["display_name"] == "is required"
    assert found["capabilities.issue_context"] == "is required"
    assert found["capabilities.usage"] == "must be boolean, got a string"
    assert found["capabilities.telepathy"].startswith("is not a known field (known: ")
    assert found["colour"].startswith("is not a known field")
    assert found["protocol"].startswith('must be one of "hangar-localrun-provider.v1"')
    assert "lowercase letters" in found["name"]
    assert "relative to the folder" in found["command"]


def test_v1_cannot_declare_the_v2_handoff(tmp_path: Path) -> None:
    """LR-144/LR-147: native_plan_handoff is a v2 capability."""
    data = manifest("p", capabilities={"native_plan_handoff": True})
    assert problems_of(write(tmp_path, data)) == [
        (
            "capabilities.native_plan_handoff",
            "must be false with hangar-localrun-provider.v1 (a v2 capability)",
        )
    ]


def test_other_schema_version_and_wrong_types(tmp_path: Path) -> None:
    data = manifest("p", schema_version=2)
    data["capabilities"] = ["interactive_pty"]
    found = dict(problems_of(write(tmp_path, data)))
    assert found == {"capabilities": "must be object, got an array", "schema_version": "must be 1"}
    assert problems_of(write(tmp_path, [1, 2])) == [("(top level)", "must be object, got an array")]


def test_a_command_that_escapes_or_cannot_run(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("#!/bin/sh\n")
    outside.chmod(0o755)
    path = write(tmp_path, manifest("p", command="../outside.sh"))
    assert problems_of(path) == [
        ("command", f"'../outside.sh' leads outside the plugin folder {path.parent.resolve()}")
    ]
    (path.parent / "link").symlink_to(outside)
    path.write_text(json.dumps(manifest("p", command="link")))
    assert "leads outside the plugin folder" in problems_of(path)[0][1]
    path.write_text(json.dumps(manifest("p", command="missing")))
    assert problems_of(path) == [
        ("command", f"'missing' does not exist in {path.parent.resolve()}")
    ]
    (path.parent / "adapter").chmod(0o644)
    path.write_text(json.dumps(manifest("p")))
    assert problems_of(path) == [("command", "'./adapter' is not executable (chmod +x it)")]
    (path.parent / "dir").mkdir()
    path.write_text(json.dumps(manifest("p", command="dir")))
    assert problems_of(path) == [("command", "'dir' is not a regular file")]


def test_a_missing_manifest(tmp_path: Path) -> None:
    assert problems_of(tmp_path / "nothing" / "provider.json") == [("(file)", "not found")]


@pytest.mark.parametrize(
    ("marker", "schema"),
    [
        ("manifest-schema", manifest_schema),
        ("event-schema", event_schema),
        ("control-schema", control_schema),
    ],
)
def test_the_docs_publish_the_schemas_hangar_validates_with(
    marker: str, schema: Callable[[], dict[str, Any]]
) -> None:
    """The JSON Schemas in docs/provider-plugins.md are the ones the code uses, verbatim."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(rf"<!-- {marker} -->\s*```json\n(.*?)```", text, re.S)
    assert block, f"the docs lost the {marker} block"
    assert json.loads(block.group(1)) == schema()
