"""The layout holds: layers point down, the pure layers touch no disk, verbs stay apart
(the import-linter contracts in pyproject.toml), and no module imports itself round a cycle."""

from __future__ import annotations

import ast
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



def _imports_under(src: Path) -> list[tuple[str, ast.ImportFrom | ast.Import, str]]:
    """Every import statement under src/mdgrill, with its module's dotted name and the
    absolute module a `from` import names (relative imports resolved)."""
    found: list[tuple[str, ast.ImportFrom | ast.Import, str]] = []
    for path in sorted((src / "mdgrill").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        package = parts[:-1]  # what `from .` names, in a package's __init__ or a module
        module = ".".join(parts if parts[-1] != "__init__" else parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join([*base, node.module] if node.module else base)
                found.append((module, node, target))
            elif isinstance(node, ast.Import):
                found.append((module, node, ""))
    return found


def _private_imports(src: Path) -> list[str]:
    return [f"{module}:{node.lineno} imports {alias.name} from {target}"
            for module, node, target in _imports_under(src) if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")]


def _self_aliases(src: Path) -> list[str]:
    return [f"{module}:{node.lineno} {alias.name} as {alias.asname}"
            for module, node, _ in _imports_under(src) for alias in node.names
            if alias.asname is not None and alias.asname == alias.name]


def test_no_private_name_is_imported_from_another_module() -> None:
    """A `_name` is private to the module that defines it (issue 29 part 7): a name another
    module needs is public, and the importer names the module that defines it."""
    assert _private_imports(CHECKOUT / "src") == []


def test_no_module_re_exports_a_name_as_itself() -> None:
    """`from x import y as y` (or `import y as y`) exists only to re-export `y`; importers
    import `y` from the module that defines it instead (issue 29 part 7)."""
    assert _self_aliases(CHECKOUT / "src") == []


def test_the_import_rules_catch_what_they_forbid(tmp_path: Path) -> None:
    """The two checks above pass on the real tree; on a tree that breaks them they name each
    offending import (a relative and an absolute private import, two self-aliases)."""
    pkg = tmp_path / "mdgrill" / "git"
    pkg.mkdir(parents=True)
    (tmp_path / "mdgrill" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from .repo import _run\nfrom mdgrill.x import y as y\n")
    (pkg / "repo.py").write_text("from mdgrill.git.vcs import _open, __version__\n"
                                 "import json as json\nimport os as system\n")
    assert _private_imports(tmp_path) == [
        "mdgrill.git:1 imports _run from mdgrill.git.repo",
        "mdgrill.git.repo:1 imports _open from mdgrill.git.vcs"]
    assert _self_aliases(tmp_path) == ["mdgrill.git:2 y as y", "mdgrill.git.repo:2 json as json"]
