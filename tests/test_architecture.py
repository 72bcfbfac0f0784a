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


# what stands instead of a typed result (issue 29, "typed results end to end"): a transition's
# bare tuple, and a value taken back out of an untyped dict with an assert (which `python -O`
# drops)
UNTYPED = ("tuple[Change, dict", "assert isinstance")
# formats/progress/reader.py still holds two asserts: another change of the same issue
# removes them (its engineer owns that file), and then this allow-list goes
UNTYPED_ALLOWED = {"formats/progress/reader.py"}


def _untyped_results(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel in UNTYPED_ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found.extend(f"{rel}:{number}: {pattern}" for pattern in UNTYPED if pattern in line)
    return found


def test_results_travel_typed() -> None:
    """A transition returns a `Transition`, a record value is read by `model.record`'s typed
    reads, a report a reader reads back has a type: no bare `tuple[Change, dict]` and no
    `assert isinstance` to get a type back (docs/architecture.md, "How results travel")."""
    assert _untyped_results(CHECKOUT / "src" / "mdgrill") == []


def test_the_untyped_result_check_finds_both(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "step.py").write_text(
        "def step() -> tuple[Change, dict[str, object]]:\n"
        "    value = data['round']\n    assert isinstance(value, int)\n", encoding="utf-8")
    (tmp_path / "formats" / "progress").mkdir(parents=True)
    (tmp_path / "formats" / "progress" / "reader.py").write_text(
        "assert isinstance(part, Block)\n", encoding="utf-8")
    assert _untyped_results(tmp_path) == ["core/step.py:1: tuple[Change, dict",
                                          "core/step.py:3: assert isinstance"]


def _untyped_transitions(package: Path) -> list[str]:
    """Each use of `Transition` without its report's type (`Transition`, not
    `Transition[BeganReport]`), and each `Transition[dict...]`: a report is a `TypedDict`."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        rel = path.relative_to(package).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Name) or node.id != "Transition":
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                continue  # built: `Transition(change, report)`
            if isinstance(parent, ast.Subscript) and parent.value is node and \
                    not ast.unparse(parent.slice).startswith("dict"):
                continue  # typed: `Transition[BeganReport]`
            found.append(f"{rel}:{node.lineno}: {ast.unparse(parent or node)}")
    return found


def _bare_results(api: Path) -> list[str]:
    """Each public `Spec` method annotated to return the untyped base `Result` (or a dict)."""
    tree = ast.parse(api.read_text(encoding="utf-8"))
    spec = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Spec")
    return [f"Spec.{f.name} -> {ast.unparse(f.returns)}" for f in spec.body
            if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")
            and f.returns is not None
            and (ast.unparse(f.returns) == "Result" or "dict" in ast.unparse(f.returns))]


def test_results_are_typed_end_to_end() -> None:
    """"Typed results end to end" (issue 29): every transition carries its report's
    `TypedDict` (`Transition[R]`, never bare nor `Transition[dict...]`), and every public
    `Spec` method returns a `Result` subclass named for what it did, exported by `mdgrill`."""
    import mdgrill

    package = CHECKOUT / "src" / "mdgrill"
    assert _untyped_transitions(package) == []
    assert _bare_results(package / "api.py") == []
    from mdgrill.api import Spec

    for name, member in vars(Spec).items():
        returns = getattr(member, "__annotations__", {}).get("return")
        if name.startswith("_") or not isinstance(returns, str) or \
                returns in ("Spec", "str", "list[Diagnostic]"):
            continue
        assert returns in mdgrill.__all__, (name, returns)
        result = getattr(mdgrill, returns)
        assert issubclass(result, mdgrill.Result) and result is not mdgrill.Result, name
        assert result.__slots__ == () or isinstance(result.__slots__, tuple), name


def test_the_typed_result_checks_find_what_they_forbid(tmp_path: Path) -> None:
    (tmp_path / "step.py").write_text(
        "def a() -> Transition:\n    return Transition(c, {})\n"
        "def b() -> Transition[dict[str, object]]: ...\n"
        "def c() -> Transition[NodeReport]: ...\n"
        "Step = Callable[[Progress], Transition]\n", encoding="utf-8")
    assert _untyped_transitions(tmp_path) == [
        "step.py:1: def a() -> Transition:\n    return Transition(c, {})",
        "step.py:3: Transition[dict[str, object]]",
        "step.py:5: ([Progress], Transition)"]
    (tmp_path / "api.py").write_text(
        "class Spec:\n    def status(self) -> Result: ...\n"
        "    def tree(self) -> dict[str, object]: ...\n"
        "    def ledger(self) -> Ledger: ...\n", encoding="utf-8")
    assert _bare_results(tmp_path / "api.py") == ["Spec.status -> Result",
                                                  "Spec.tree -> dict[str, object]"]


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


ARCHITECTURE = CHECKOUT / "docs" / "architecture.md"


def _section(title: str) -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_the_module_table_matches_the_tree() -> None:
    """docs/architecture.md's "Every module" table names each module of src/mdgrill (a
    package by its folder, `pkg/`, for its `__init__.py`) and nothing that is gone."""
    import re

    package = CHECKOUT / "src" / "mdgrill"
    tree = set()
    for path in package.rglob("*.py"):
        rel = path.relative_to(package)
        tree.add(f"{rel.parent.as_posix()}/" if rel.name == "__init__.py" and rel.parent.parts
                 else rel.as_posix())
    rows = re.findall(r"^\| `([^`]+)` \|", _section("Every module"), flags=re.MULTILINE)
    assert len(rows) == len(set(rows)), "a module is listed twice"
    assert sorted(tree - set(rows)) == [], "modules missing from docs/architecture.md"
    assert sorted(set(rows) - tree) == [], "rows of docs/architecture.md name no module"


_OS_CALLS = frozenset({"replace", "remove", "unlink", "makedirs", "mkdir", "rename", "rmdir",
                       "listdir", "scandir", "walk", "stat", "lstat", "open", "fdopen", "utime",
                       "chmod", "symlink", "readlink", "fsync", "link"})
_OS_PATH_CALLS = frozenset({"exists", "isfile", "isdir", "islink", "lexists", "getmtime",
                            "getsize", "realpath", "samefile"})
_PATHLIB_CALLS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes", "iterdir",
                            "glob", "rglob", "mkdir", "unlink"})


def _touches_disk(tree: ast.AST) -> bool:
    """Does this module call the file system itself: `open`, `os`/`os.path`'s file calls,
    `shutil`, `tempfile`, or pathlib's readers and writers?"""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            return True
        if not isinstance(func, ast.Attribute):
            continue
        owner = func.value
        if isinstance(owner, ast.Name) and (owner.id in ("shutil", "tempfile") or
                                            (owner.id == "os" and func.attr in _OS_CALLS)):
            return True
        if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and \
                owner.value.id == "os" and owner.attr == "path" and func.attr in _OS_PATH_CALLS:
            return True
        if func.attr in _PATHLIB_CALLS and not (isinstance(owner, ast.Name) and
                                                owner.id == "re"):
            return True
    return False


def test_who_touches_the_disk_is_what_the_document_says() -> None:
    """docs/architecture.md names the modules outside shell/ and git/ that touch the disk
    themselves; the list is the code's, so a claim like "only shell/ touches the disk" cannot
    come back while it is false (issue 29 part 7)."""
    import re

    package = CHECKOUT / "src" / "mdgrill"
    touching = {path.relative_to(package).as_posix() for path in package.rglob("*.py")
                if path.relative_to(package).parts[0] not in ("shell", "git")
                and _touches_disk(ast.parse(path.read_text(encoding="utf-8")))}
    section = _section("Who touches the disk")
    listed = set(re.findall(r"`([\w/]+\.py)`", section.split("touch the disk themselves")[1]
                            .split("\n\n")[0]))
    assert sorted(touching - listed) == [], "touches the disk but the document does not say"
    assert sorted(listed - touching) == [], "the document says so but it no longer does"
    pure = [p for p in touching if p.split("/")[0] in ("formats", "model", "checks", "core")]
    assert pure == []


def test_the_parse_call_print_verbs_are_what_the_document_says() -> None:
    """The verb modules the layer table calls parse -> call -> print neither touch the disk
    nor start git themselves; every other verb module does one or the other."""
    import re

    verbs = CHECKOUT / "src" / "mdgrill" / "cli" / "verbs"
    thin = set()
    for path in verbs.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "__init__.py" and not _touches_disk(ast.parse(text)) \
                and "mdgrill.git" not in text:
            thin.add(path.name)
    row = next(line for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines()
               if line.startswith("| `cli/` |"))
    claimed = set(re.findall(r"`(\w+\.py)`", row.split("The verbs of")[1].split("are parse")[0]))
    assert sorted(claimed) == sorted(thin)


def test_only_git_and_the_demo_start_processes() -> None:
    """docs/architecture.md: git/ is the only code that starts git, but for the demo's
    throw-away repository; no other module imports subprocess."""
    package = CHECKOUT / "src" / "mdgrill"
    starting = set()
    for path in package.rglob("*.py"):
        rel = path.relative_to(package)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
        names |= {node.module for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module}
        if rel.parts[0] != "git" and "subprocess" in names:
            starting.add(rel.as_posix())
    assert starting == {"cli/verbs/demo.py"}
