"""The layout holds: layers point down, the pure layers touch no disk, verbs stay apart
(the import-linter contracts in pyproject.toml), and no module imports itself round a cycle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept() -> None:
    linter = Path(sys.executable).with_name("lint-imports")
    if not linter.exists():
        found = shutil.which("lint-imports")
        if found is None:
            pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
        linter = Path(found)
    proc = subprocess.run([str(linter)], cwd=CHECKOUT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 kept, 0 broken" in proc.stdout


def test_no_import_cycle() -> None:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (.[dev])")
    graph = grimp.build_graph("mdgrill")
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            chain = graph.find_shortest_chain(importer=imported, imported=module)
            if chain:
                cycles.append(" -> ".join((module, *chain)))
    assert cycles == []


def test_every_package_is_in_the_wheel() -> None:
    """`pip install .` (the README's first command) ships only the packages pyproject lists."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    listed = set(tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    src = CHECKOUT / "src"
    found = {".".join(p.parent.relative_to(src).parts) for p in src.rglob("__init__.py")}
    assert found - listed == set()
