"""``provider.json``: the manifest of a local-run provider plugin (LR-130, LR-132).

:func:`load_manifest` reads one manifest and validates it strictly against the JSON Schema in
``provider.schema.json`` (published in ``docs/provider-plugins.md``), then checks what a schema
cannot: ``command`` resolves, symlinks included, to a regular executable file inside the
manifest's folder (relative paths resolve against that folder). Every problem is reported at
once, each naming the file and the field, in a :class:`ManifestError`.

jsonschema is imported only here and only when a manifest is validated, so commands that never
look at a plugin do not pay for it.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Literal

from hangar.errors import HangarError

MANIFEST_NAME = "provider.json"
PROTOCOL_V1 = "hangar-localrun-provider.v1"
PROTOCOL_V2 = "hangar-localrun-provider.v2"
MAX_MANIFEST_BYTES = 256 * 1024

IssueContextMode = Literal["env", "none"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a manifest: the field (dotted path, ``(file)`` for the whole
    file) and what is wrong with it."""

    field: str
    message: str

    def render(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(eq=False)
class ManifestError(HangarError):
    """A ``provider.json`` that cannot be used; lists every problem, each with its field."""

    path: Path = field(default_factory=Path)
    problems: tuple[Problem, ...] = ()
    code: ClassVar[str] = "invalid_provider_manifest"
    http_status: ClassVar[int] = 400

    def render(self) -> str:
        return "; ".join(f"{self.path}: {problem.render()}" for problem in self.problems)

    def details(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "problems": [{"field": p.field, "message": p.message} for p in self.problems],
        }


@dataclass(frozen=True)
class Capabilities:
    interactive_pty: bool
    structured_events: bool
    issue_context: IssueContextMode
    usage: bool
    native_plan_handoff: bool


@dataclass(frozen=True)
class PluginManifest:
    """A validated manifest; ``command`` is the resolved adapter path inside ``folder``."""

    path: Path
    name: str
    display_name: str
    command: Path
    protocol: str
    capabilities: Capabilities
    version: str | None = None
    description: str | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def supports_discussions(self) -> bool:
        """Only v2 plugins take part in ``hangar discuss`` (LR-143..LR-145)."""
        return self.protocol == PROTOCOL_V2


@cache
def manifest_schema() -> dict[str, Any]:
    """The JSON Schema of ``provider.json`` (the same document the docs publish)."""
    text = (resources.files("hangar.localrun.plugins") / "provider.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _field(path: Any) -> str:
    return ".".join(str(part) for part in path) or "(top level)"


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


_PATTERN_HINTS = {
    "name": "must be 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter "
    "or digit",
    "command": "must be a path relative to the folder of provider.json (not absolute)",
}


def _problems_of(error: Any) -> list[Problem]:
    """Readable problems for one jsonschema ``ValidationError`` (and its context)."""
    where = list(error.absolute_path)
    keyword = error.validator
    value = error.instance
    if keyword == "required":
        present = value if isinstance(value, dict) else {}
        return [
            Problem(_field([*where, name]), "is required")
            for name in error.validator_value
            if name not in present
        ]
    if keyword == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extra = sorted(set(value) - set(known)) if isinstance(value, dict) else []
        return [
            Problem(_field([*where, name]), f"is not a known field (known: {', '.join(known)})")
            for name in extra
        ]
    name = _field(where)
    if keyword == "type":
        return [Problem(name, f"must be {error.validator_value}, got {_json_type(value)}")]
    if keyword == "enum":
        allowed = ", ".join(json.dumps(v) for v in error.validator_value)
        return [Problem(name, f"must be one of {allowed}, got {json.dumps(value)}")]
    if keyword == "const":
        if where == ["capabilities", "native_plan_handoff"]:
            return [Problem(name, f"must be false with {PROTOCOL_V1} (a v2 capability)")]
        return [Problem(name, f"must be {json.dumps(error.validator_value)}")]
    if keyword == "pattern":
        return [Problem(name, _PATTERN_HINTS.get(where[-1] if where else "", error.message))]
    if keyword in ("minLength", "maxLength"):
        return [Problem(name, f"length must be {keyword[:3]}imum {error.validator_value}")]
    return [Problem(name, error.message)]


def schema_problems(data: Any) -> list[Problem]:
    """Every schema violation of ``data``, sorted by field (empty when valid)."""
    import jsonschema  # deliberately lazy: ~0.15 s of imports

    validator = jsonschema.Draft202012Validator(manifest_schema())
    problems: list[Problem] = []
    for error in validator.iter_errors(data):
        problems.extend(_problems_of(error))
    unique = {(p.field, p.message): p for p in problems}
    return sorted(unique.values(), key=lambda p: (p.field, p.message))


def read_manifest_json(path: Path) -> Any:
    """The parsed JSON of ``path``; :class:`ManifestError` when unreadable or not JSON."""

    def fail(message: str) -> ManifestError:
        return ManifestError(path=path, problems=(Problem("(file)", message),))

    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            raise fail(f"larger than {MAX_MANIFEST_BYTES // 1024} KiB")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise fail("not found") from None
    except IsADirectoryError:
        raise fail("is a directory") from None
    except OSError as exc:
        raise fail(f"cannot be read: {exc.strerror}") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise fail(f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise fail(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def command_problems(folder: Path, command: str) -> tuple[Path | None, list[Problem]]:
    """Resolve ``command`` inside ``folder``; the path, or the problems that stop it."""
    root = folder.resolve()
    target = (root / command).resolve()
    if not target.is_relative_to(root):
        return None, [Problem("command", f"{command!r} leads outside the plugin folder {root}")]
    try:
        info = target.stat()
    except OSError:
        return None, [Problem("command", f"{command!r} does not exist in {root}")]
    if not stat.S_ISREG(info.st_mode):
        return None, [Problem("command", f"{command!r} is not a regular file")]
    if not os.access(target, os.X_OK):
        return None, [Problem("command", f"{command!r} is not executable (chmod +x it)")]
    return target, []


def load_manifest(path: Path) -> PluginManifest:
    """Read and validate the manifest at ``path`` (see the module docstring)."""
    path = path.absolute()
    data = read_manifest_json(path)
    problems = schema_problems(data)
    command: Path | None = None
    if not problems:
        command, problems = command_problems(path.parent, data["command"])
    if problems or command is None:
        raise ManifestError(path=path, problems=tuple(problems))
    caps = data["capabilities"]
    return PluginManifest(
        path=path,
        name=data["name"],
        display_name=data["display_name"],
        command=command,
        protocol=data["protocol"],
        capabilities=Capabilities(
            interactive_pty=caps["interactive_pty"],
            structured_events=caps["structured_events"],
            issue_context=caps["issue_context"],
            usage=caps["usage"],
            native_plan_handoff=caps["native_plan_handoff"],
        ),
        version=data.get("version"),
        description=data.get("description"),
    )


def manifest_name(path: Path) -> str | None:
    """The ``name`` a manifest claims, read without validating the rest (for discovery)."""
    try:
        data = read_manifest_json(path)
    except ManifestError:
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None
