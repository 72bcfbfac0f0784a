"""CI: every regular expression in src/ through the recheck ReDoS checker (npm `recheck`).

Finds each `re.<function>(pattern, ...)` call in src/ (its pattern evaluated in the module),
and each compiled pattern a module or class holds after import, turns the Python syntax into
JavaScript's, anchors it the way the code uses it (`.match` is sticky, `.fullmatch` also ends
with `$`, everything else searches), and fails on any pattern recheck finds exponential or
polynomial (quadratic or worse) when Python's own engine confirms it: recheck's attack string
run through the pattern as the code runs it takes over CONFIRM_SECONDS. A finding Python does
not confirm (recheck reads a `.match` that has already succeeded as if it could still fail)
is printed as a note. ALLOWED names the rest, each with the reason it is safe.

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
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall",
             "finditer"}
CONFIRM_SECONDS = 1.0
FLAG_ARG = {"compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2, "finditer": 2,
            "split": 3, "sub": 4, "subn": 4}

# Where a pattern is built at call time from a value (not checkable here), or recheck's verdict
# does not apply, and why it is linear. Key: `path:function` (dynamic) or `path:line`.
ALLOWED: dict[str, str] = {
    "src/mdgrill/core/fingerprints.py:glob_pattern":
        "a glob the project's own `bind` names, compiled to `[^/]*` runs and `(?:[^/]*/)*`, "
        "matched against the repository's own paths (a few hundred bytes); its degree is the "
        "number of `**` the project wrote",
    "src/mdgrill/core/questionnaire.py:read_common":
        "an re.escape'd interview ID between fixed one-character lookarounds: a literal",
    "src/mdgrill/core/merge.py:_renamed":
        "an re.escape'd ID between fixed one-character lookarounds: a literal",
    "src/mdgrill/core/merge.py:resolution":
        "re.escape'd literals with one (a|b) choice per conflict, fullmatched once: no "
        "quantifier at all",
    "src/mdgrill/core/reports.py:__init__":
        "an re.escape'd glossary term whose spaces become \\s+ between literal words",
    "src/mdgrill/core/approval.py:_compile":
        "alternations of fixed words, fullmatched on a phrase of at most _LONGEST words",
    "src/mdgrill/core/approval.py:_APPROVE_PHASE":
        "_compile's pattern (recheck cannot parse its `(?(v)...)` conditional): fixed words, "
        "fullmatched on a phrase of at most _LONGEST words",
    "src/mdgrill/model/replies.py:number_forms":
        "recheck times out on the alternation; anchored at both ends, one digit run between "
        "optional fixed words: a failing \\Z gives back each digit once (linear)",
    "src/mdgrill/formats/markdown.py:_candidates":
        "the heading scan's four fixed patterns, _SCAN_BODY with `1,2` or `1,6` hashes, with "
        "and without the newline before it: the strings recheck found linear when they were "
        "module constants (5e1afc1), compiled where used since issue 37's start-up work",
    "src/mdgrill/formats/markdown.py:fence_closer":
        "one fence closer per line start (re.M `^`): up to 3 spaces, a run of one fence "
        "character, then blanks to the line end",
}
# Patterns the code applies to one line only (no line break inside), whose recheck attack
# needs a line break: checked with the attack's line breaks taken out, as such a line would be.
ONE_LINE: dict[str, str] = {
    "src/mdgrill/formats/progress/lines.py:BULLET": "parse_bullets passes one line, its end cut",
    "src/mdgrill/formats/progress/lines.py:SUB_BULLET": "parse_bullets passes one line",
    "src/mdgrill/formats/progress/lines.py:NODE_HEADING": "a heading's title",
    "src/mdgrill/model/tree.py:_LEDGER_LINE": "one `[^\\n]*` line _LEDGER_LINES found",
    "src/mdgrill/integrations/speckit.py:SESSION": "a heading's text",
    "src/mdgrill/integrations/speckit.py:_INPUT": "one line of spec.md, stripped",
    "src/mdgrill/formats/frontmatter/subset.py:_KEY_LINE": "one front-matter line",
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
    lines = "".join(json.dumps(dict(zip(("source", "flags"), to_js(*k), strict=True))) + "\n"
                    for k in keys)
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
        what = result.get("complexity") or result.get("error") or result["status"]
        degree = f" (degree {result['degree']})" if result.get("degree") else ""
        attack = result.get("attack_string")
        one_line = any(w in ONE_LINE for w in wheres)
        if one_line and isinstance(attack, str):
            attack = attack.replace("\n", "")
        took = python_seconds(key, attack)
        if took is not None and took < CONFIRM_SECONDS and one_line:
            print(f"note: {', '.join(wheres)}: one line at a time; recheck's {what} attack "
                  f"without its line breaks reads in {took * 1000:.0f} ms")
            continue
        if took is not None and took < CONFIRM_SECONDS:
            print(f"note: {', '.join(wheres)}: recheck says {what}{degree} as {key[2]}, but "
                  f"Python reads its attack in {took * 1000:.0f} ms: {key[0]!r}")
            continue
        failed += 1
        timing = "over the time limit" if took is None else f"{took:.1f} s"
        print(f"{', '.join(wheres)}: {what}{degree} as {key[2]} ({timing} in Python): "
              f"{key[0]!r}\n    attack: {result.get('attack')}")
    for where in unexplained:
        print(f"{where}: a pattern built at call time: check it by hand and add it to ALLOWED")
    print(f"redos: {len(keys)} patterns checked ({len(found)} uses), {failed} super-linear, "
          f"{len(unexplained)} unexplained dynamic")
    return 1 if failed or unexplained else 0


class _TooSlow(Exception):
    pass


def python_seconds(key: tuple[str, int, str], attack: str | None) -> float | None:
    """How long Python's engine takes on recheck's attack string, used as the code uses the
    pattern (search means every match, as `sub`/`findall` go on); None past 3x the limit or
    with no attack to run."""
    import signal
    import time

    if attack is None:
        return None
    source, flags, mode = key
    pattern = re.compile(source, flags)

    def expire(signum: int, frame: object) -> None:
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 3 * CONFIRM_SECONDS)
    start = time.monotonic()
    try:
        if mode == "match":
            pattern.match(attack)
        elif mode == "fullmatch":
            pattern.fullmatch(attack)
        else:
            for _ in pattern.finditer(attack):
                pass
        return time.monotonic() - start
    except _TooSlow:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def collect() -> tuple[list[Found], list[str]]:
    """Every pattern of src/ with how it is used, and the call-time patterns' places."""
    files = sorted(p for p in SRC.rglob("*.py") if p.name != "__main__.py")
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    usage = Usage(trees)
    found: list[Found] = []
    dynamic: list[str] = []
    spaces: dict[Path, dict[str, object]] = {}
    for path, tree in trees.items():
        rel = path.relative_to(ROOT).as_posix()
        try:
            spaces[path] = vars(importlib.import_module(module_name(path)))
        except ImportError:  # an optional extra is not installed: its literals still count
            spaces[path] = {"re": re}
        for owner, call, target in calls(tree):
            function = call.func.attr  # type: ignore[attr-defined]
            try:
                source = text_of(eval_expr(call.args[0], spaces[path]))
                flags = flag_value(call, function, spaces[path])
            except (NameError, AttributeError, IndexError, TypeError):
                made = made_by(spaces[path], owner)
                if not made:
                    dynamic.append(f"{rel}:{owner}")
                found += [Found(f"{rel}:{owner}()", text_of(p), p.flags & ~re.UNICODE,
                                "search") for p in made]
                continue
            mode = function if function in ("match", "fullmatch") else "search"
            if function == "compile":
                mode = usage.mode(path, target) if target else "search"
            found.append(Found(f"{rel}:{target or call.lineno}", source, flags & ~re.UNICODE,
                               mode))
    # patterns made at import time by helpers (a compile call on a local value)
    seen = {(f.source, f.flags) for f in found}
    for path, space in spaces.items():
        rel = path.relative_to(ROOT).as_posix()
        for name, value in list(space.items()) + class_attributes(space):
            for pattern in value if isinstance(value, tuple) else (value,):
                if isinstance(pattern, re.Pattern):
                    source, flags = text_of(pattern.pattern), pattern.flags & ~re.UNICODE
                    if (source, flags) not in seen:
                        seen.add((source, flags))
                        found.append(Found(f"{rel}:{name}", source, flags,
                                           usage.mode(path, name.rpartition(".")[2])))
    return found, sorted(set(dynamic))


def made_by(space: dict[str, object], owner: str) -> list[re.Pattern[str]]:
    """The patterns a function of no arguments builds (a cached pattern factory), else []."""
    import inspect

    function = space.get(owner)
    if not callable(function) or owner == "<module>":
        return []
    try:
        if inspect.signature(function).parameters:
            return []
    except (TypeError, ValueError):
        return []
    made = function()
    return [p for p in (made if isinstance(made, tuple) else (made,))
            if isinstance(p, re.Pattern) and isinstance(p.pattern, str)]


def text_of(value: object) -> str:
    """A pattern's source as text (bytes as Latin-1, a compiled pattern's own source)."""
    if isinstance(value, re.Pattern):
        value = value.pattern
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        raise TypeError(f"pattern {value!r}")
    return value


class Usage:
    """Which pattern methods the code takes from a name: a private name in its own module and
    the modules that import it by name, a public one anywhere."""

    def __init__(self, trees: dict[Path, ast.Module]) -> None:
        self.here = {path: methods_used([tree]) for path, tree in trees.items()}
        self.anywhere = methods_used(trees.values())
        self.importers: dict[tuple[str, str], list[Path]] = {}
        for path, tree in trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    for alias in node.names:
                        self.importers.setdefault((node.module, alias.name), []).append(path)

    def mode(self, path: Path, name: str) -> str:
        if not name.startswith("_"):
            return mode_of(self.anywhere.get(name, set()))
        methods = set(self.here[path].get(name, set()))
        for other in self.importers.get((module_name(path), name), []):
            methods |= self.here[other].get(name, set())
        return mode_of(methods)


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


def methods_used(trees: Iterable[ast.Module]) -> dict[str, set[str]]:
    """For each name, the pattern methods taken from it (`NAME.match(...)`, or
    `match = NAME.match`) in these trees."""
    out: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in FUNCTIONS - {"compile"}:
                owner = node.value
                name = owner.id if isinstance(owner, ast.Name) else \
                    owner.attr if isinstance(owner, ast.Attribute) else None
                if name:
                    out.setdefault(name, set()).add(node.attr)
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
            return as_flags(eval_expr(keyword.value, space))
    index = FLAG_ARG[function]
    if len(call.args) > index:
        return as_flags(eval_expr(call.args[index], space))
    return 0


def as_flags(value: object) -> int:
    if not isinstance(value, int):
        raise TypeError(f"flags {value!r}")
    return int(value)


def to_js(source: str, flags: int, mode: str) -> tuple[str, str]:  # noqa: C901 - a branch per syntax
    """A Python pattern as a JavaScript one recheck reads, with its flags and anchoring.

    Scoped flags `(?i:...)` become global ones: a wider match, so never a missed finding.
    Possessive repeats and atomic groups, which JavaScript lacks, become greedy repeats and
    plain groups: more backtracking, so never a missed finding either."""
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
        elif source.startswith("(?>", i):
            # an atomic group as a plain one: it can only backtrack more (see below)
            out.append("(?:")
            i += 2
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
            # a possessive repeat (`x*+`, `x++`, `x?+`, `x{m,n}+`, Python 3.11) as the greedy
            # one: the greedy repeat backtracks wherever the possessive does and more, so a
            # verdict of linear on it holds for the pattern the code runs
            if c in "*+?}" and source.startswith("+", i + 1):
                i += 1
        i += 1
    body = "".join(out)
    if mode == "fullmatch":
        body = f"(?:{body})$"
    if mode in ("match", "fullmatch"):
        js_flags.add("y")
    return body, "".join(sorted(js_flags))


if __name__ == "__main__":
    sys.exit(main())
