"""CI: every regular expression in src/ through the recheck ReDoS checker (npm `recheck`).

Finds each `re.<function>(pattern, ...)` call in src/ (its pattern evaluated in the module),
and each compiled pattern a module or class holds after import, turns the Python syntax into
JavaScript's, anchors it the way the code uses it (`.match` is sticky, `.fullmatch` also ends
with `$`, everything else searches), and fails on any pattern recheck finds exponential or
polynomial (quadratic or worse) unless ALLOWED names it with the reason it is safe.

Run: `.venv/bin/python .ci/redos.py` after `npm install --prefix .ci/node recheck@4.5.0`.
Exit 0 all linear, 1 a super-linear pattern (or one recheck could not decide), 2 no checker.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall",
             "finditer"}
FLAG_ARG = {"compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2, "finditer": 2,
            "split": 3, "sub": 4, "subn": 4}

# Where a pattern is built at call time from a value (not checkable here), or recheck's verdict
# does not apply, and why it is linear. Key: `path:function` (dynamic) or `path:line`.
ALLOWED: dict[str, str] = {
    "src/mdgrill/core/questionnaire.py:read_common":
        "an re.escape'd interview ID between fixed one-character lookarounds: a literal",
    "src/mdgrill/core/merge.py:_renamed":
        "an re.escape'd ID between fixed one-character lookarounds: a literal",
    "src/mdgrill/core/merge.py:resolution":
        "re.escape'd literals with one (a|b) choice per conflict, fullmatched once: no "
        "quantifier at all",
    "src/mdgrill/core/reports.py:__init__":
        "an re.escape'd glossary term whose spaces become \\s+ between literal words",
}

class Found(NamedTuple):
    where: str  # path:line, path:NAME or path:function
    source: str
    flags: int
    mode: str  # search, match or fullmatch


def main() -> int:
    node = shutil.which("node")
    if node is None or not (ROOT / ".ci" / "node" / "node_modules" / "recheck").is_dir():
        print("redos: node or recheck is missing: npm install --prefix .ci/node recheck@4.5.0",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(SRC))
    found, dynamic = collect()
    unexplained = [d for d in dynamic if d not in ALLOWED]
    unique: dict[tuple[str, int, str], list[str]] = {}
    for f in found:
        unique.setdefault((f.source, f.flags, f.mode), []).append(f.where)
    keys = list(unique)
    lines = "".join(json.dumps(dict(zip(("source", "flags"), to_js(*k), strict=True))) + "\n" for k in keys)
    proc = subprocess.run([node, str(ROOT / ".ci" / "redos.js")], input=lines, text=True,
                          capture_output=True, timeout=1800, check=False)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return 2
    failed = 0
    for key, line in zip(keys, proc.stdout.splitlines(), strict=True):
        result = json.loads(line)
        wheres = unique[key]
        if result["status"] == "safe" or any(w in ALLOWED for w in wheres):
            continue
        failed += 1
        what = result.get("complexity") or result.get("error") or result["status"]
        degree = f" (degree {result['degree']})" if result.get("degree") else ""
        print(f"{', '.join(wheres)}: {what}{degree} as {key[2]}: {key[0]!r}"
              f"\n    attack: {result.get('attack')}")
    for where in unexplained:
        print(f"{where}: a pattern built at call time: check it by hand and add it to ALLOWED")
    print(f"redos: {len(keys)} patterns checked ({len(found)} uses), {failed} super-linear, "
          f"{len(unexplained)} unexplained dynamic")
    return 1 if failed or unexplained else 0


def collect() -> tuple[list[Found], list[str]]:
    """Every pattern of src/ with how it is used, and the call-time patterns' places."""
    files = sorted(p for p in SRC.rglob("*.py") if p.name != "__main__.py")
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    used = methods_used(trees.values())
    found: list[Found] = []
    dynamic: list[str] = []
    seen_objects: set[tuple[str, int]] = set()
    for path, tree in trees.items():
        rel = path.relative_to(ROOT).as_posix()
        try:
            space = vars(importlib.import_module(module_name(path)))
        except ImportError:  # an optional extra is not installed: its literals still count
            space = {"re": re}
        for owner, call, target in calls(tree):
            function = call.func.attr  # type: ignore[attr-defined]
            try:
                source = eval_expr(call.args[0], space)
                flags = flag_value(call, function, space)
            except (NameError, AttributeError, IndexError, TypeError):
                dynamic.append(f"{rel}:{owner}")
                continue
            if isinstance(source, bytes):
                source = source.decode("latin-1")
            if isinstance(source, re.Pattern):
                flags |= source.flags
                source = source.pattern
            mode = function if function in ("match", "fullmatch") else "search"
            if function == "compile":
                mode = mode_of(used.get(target, set())) if target else "search"
            found.append(Found(f"{rel}:{call.lineno}", source, flags & ~re.UNICODE, mode))
            seen_objects.add((source, flags & ~re.UNICODE))
        # patterns made at import time by helpers (a compile call on a local value)
        for name, value in list(space.items()) + class_attributes(space):
            for pattern in value if isinstance(value, tuple) else (value,):
                if isinstance(pattern, re.Pattern):
                    source = pattern.pattern
                    if isinstance(source, bytes):
                        source = source.decode("latin-1")
                    flags = pattern.flags & ~re.UNICODE
                    if (source, flags) not in seen_objects:
                        seen_objects.add((source, flags))
                        found.append(Found(f"{rel}:{name}", source, flags,
                                           mode_of(used.get(name, set()))))
    return found, sorted(set(dynamic))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def calls(tree: ast.Module) -> list[tuple[str, ast.Call, str | None]]:
    """(enclosing function or `<module>`, the re call, the name it is assigned to)."""
    out: list[tuple[str, ast.Call, str | None]] = []

    def visit(node: ast.AST, owner: str, target: str | None) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = node.name
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target = node.target.id
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and \
                node.func.attr in FUNCTIONS and node.args:
            out.append((owner, node, target if node.func.attr == "compile" else None))
        for child in ast.iter_child_nodes(node):
            visit(child, owner, target if isinstance(node, (ast.Assign, ast.AnnAssign))
                  and child is node.value else None)

    visit(tree, "<module>", None)
    return out


def methods_used(trees: object) -> dict[str, set[str]]:
    """For each name, the pattern methods called on it anywhere in src/ (`NAME.match(...)`)."""
    out: dict[str, set[str]] = {}
    for tree in trees:  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in FUNCTIONS - {"compile"}:
                owner = node.func.value
                name = owner.id if isinstance(owner, ast.Name) else \
                    owner.attr if isinstance(owner, ast.Attribute) else None
                if name:
                    out.setdefault(name, set()).add(node.func.attr)
    return out


def mode_of(methods: set[str]) -> str:
    """The weakest anchoring among the uses: search unless every use is (full)match."""
    if methods and methods <= {"fullmatch"}:
        return "fullmatch"
    if methods and methods <= {"match", "fullmatch"}:
        return "match"
    return "search"


def class_attributes(space: dict[str, object]) -> list[tuple[str, object]]:
    return [(f"{name}.{attr}", value) for name, cls in space.items() if isinstance(cls, type)
            and cls.__module__ == space.get("__name__") for attr, value in vars(cls).items()]


def eval_expr(node: ast.expr, space: dict[str, object]) -> object:
    return eval(compile(ast.Expression(node), "<pattern>", "eval"), dict(space))  # noqa: S307


def flag_value(call: ast.Call, function: str, space: dict[str, object]) -> int:
    for keyword in call.keywords:
        if keyword.arg == "flags":
            return int(eval_expr(keyword.value, space))  # type: ignore[call-overload]
    index = FLAG_ARG[function]
    if len(call.args) > index:
        return int(eval_expr(call.args[index], space))  # type: ignore[call-overload]
    return 0


def to_js(source: str, flags: int, mode: str) -> tuple[str, str]:
    """A Python pattern as a JavaScript one recheck reads, with its flags and anchoring.

    Scoped flags `(?i:...)` become global ones: a wider match, so never a missed finding."""
    js_flags = {"i"} if flags & re.IGNORECASE else set()
    if flags & re.MULTILINE:
        js_flags.add("m")
    if flags & re.DOTALL:
        js_flags.add("s")
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            pair = source[i:i + 2]
            out.append({"\\Z": "$", "\\A": "^"}.get(pair, pair) if not in_class else pair)
            i += 2
            continue
        if in_class:
            if c == "]" and out[-1] not in ("[", "[^"):
                in_class = False
            out.append(c)
        elif c == "[":
            in_class = True
            out.append("[^" if source.startswith("[^", i) else "[")
            i += 1 if source.startswith("[^", i) else 0
        elif source.startswith("(?P<", i):
            out.append("(?<")
            i += 3
        elif source.startswith("(?P=", i):
            end = source.index(")", i)
            out.append(f"\\k<{source[i + 4:end]}>")
            i = end
        elif (m := re.match(r"\(\?([aiLmsux]+)\)", source[i:])):
            js_flags.update(set(m.group(1)) & {"i", "m", "s"})
            i += len(m.group()) - 1
        elif (m := re.match(r"\(\?([aiLmsux]*)(?:-[imsx]+)?:", source[i:])):
            js_flags.update(set(m.group(1)) & {"i", "m", "s"})
            out.append("(?:")
            i += len(m.group()) - 1
        else:
            out.append(c)
        i += 1
    body = "".join(out)
    if mode == "fullmatch":
        body = f"(?:{body})$"
    if mode in ("match", "fullmatch"):
        js_flags.add("y")
    return body, "".join(sorted(js_flags))


if __name__ == "__main__":
    sys.exit(main())
