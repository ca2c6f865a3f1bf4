"""The structure holds: layer contracts catch violations, the executor stands without the web
stack, and no code outside the agents' own modules branches on a runtime name."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hangar.agents.registry import agents

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "hangar"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(project / "pyproject.toml"), "--no-cache"],
        cwd=project,
        env={"PYTHONPATH": str(project / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package and its contracts, copied so a test can break them."""
    copy = tmp_path_factory.mktemp("layers")
    shutil.copytree(SRC, copy / "src" / "hangar", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("model/checklist.py", "import hangar.hub.app", "Layers"),
        ("transcripts/paging.py", "import sqlalchemy", "Core layers import no web"),
        ("executor/trash.py", "import fastapi", "The executor imports no web stack"),
        ("executor/trash.py", "import hangar.localrun.reporter", "Layers"),
    ],
)
def test_a_deliberate_violation_breaks_its_contract(
    project_copy: Path, module: str, line: str, contract: str
) -> None:
    target = project_copy / "src" / "hangar" / module
    original = target.read_text()
    target.write_text(original + f"\n{line}  # a deliberate violation\n")
    try:
        broken = _lint_imports(project_copy)
    finally:
        target.write_text(original)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"{contract}" in broken.stdout and "BROKEN" in broken.stdout


def test_the_contracts_hold_on_the_tree(project_copy: Path) -> None:
    kept = _lint_imports(project_copy)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "0 broken" in kept.stdout


def test_the_executor_imports_without_the_web_stack_or_orm() -> None:
    code = (
        "import sys, hangar.executor.service, hangar.cli.local_executor\n"
        "heavy = {'sqlalchemy', 'fastapi', 'alembic', 'starlette', 'uvicorn', 'jinja2'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _allowed(rel: Path) -> bool:
    """Where a runtime name may be written: the agents' own modules (``agents/``, the modules
    an agent's facets name in the registry, and their ``<module>_*.py`` helpers) and the test
    kit's per-CLI definitions (it installs and runs each real CLI by name)."""
    if rel.parts[0] in ("agents", "testing"):
        return True
    for record in agents().values():
        for reference in (record.store, record.live, record.control):
            if reference is None:
                continue
            module = reference.partition(":")[0].removeprefix("hangar.").split(".")
            stem = module[-1]
            if rel.parent.parts == tuple(module[:-1]) and (
                rel.stem == stem or rel.stem.startswith(stem + "_")
            ):
                return True
    return False


def test_no_runtime_name_literals_outside_the_agents_own_modules() -> None:
    names = set(agents())
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if _allowed(rel):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert found == [], "branch through the agent registry instead:\n" + "\n".join(found)


def test_the_literal_check_sees_a_runtime_name(tmp_path: Path) -> None:
    """The check above is not vacuous: a literal like the old ``runtime == "codex"`` is found."""
    tree = ast.parse('if row["runtime"] == "codex":\n    pass\n')
    assert any(isinstance(n, ast.Constant) and n.value in set(agents()) for n in ast.walk(tree))
    assert not _allowed(Path("executor/task_lifecycle.py"))
    assert _allowed(Path("localrun/providers/codex_events.py"))
