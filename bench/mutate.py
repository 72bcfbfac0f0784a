"""Mutation testing of the gate: small deliberate breaks of one module, each run against a
test selection that should notice it.

    nice -n 15 .venv/bin/python bench/mutate.py src/mdgrill/core/approval.py \
        --functions approval_choice -- tests/test_approval.py -k "pure or explicit"

Each mutant is one change (a comparison flipped, `and`/`or` swapped, a condition negated, a
`raise` or `return` dropped, a boolean or number changed) written into a copy of `src/`;
the tests run with that copy first on PYTHONPATH (so the CLI processes they start run it
too). A mutant is killed when the tests fail or time out. The source tree is never touched,
so other work can go on meanwhile. The survivors are printed with their line for review: a
test that kills it, or a reason it is equivalent. A test selection must pass PYTHONPATH on to
the processes it starts (one that builds their environment from scratch runs the unmutated
code there); a canary run, the module broken as a whole, checks that the selection reaches it.

mutmut 3 was the first choice: its trampolines switch mutants inside one process only, while
most of this suite runs the installed `mdgrill` in a subprocess, which would never see them.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

CHECKOUT = Path(__file__).resolve().parent.parent
FLIP = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<",
        ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}


class Mutant(NamedTuple):
    line: int
    what: str
    start: int  # offsets into the module's text
    end: int
    new: str


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _span(node: ast.AST, starts: list[int], text: str) -> tuple[int, int]:
    # col offsets are in UTF-8 bytes: convert through the line's bytes
    def at(line: int, col: int) -> int:
        base = starts[line - 1]
        raw = text[base:starts[line]].encode("utf-8")[:col]
        return base + len(raw.decode("utf-8", "replace"))
    return (at(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            at(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]


def mutants(text: str, functions: set[str] | None) -> list[Mutant]:
    """Every mutant of the module (only inside `functions`, when given)."""
    tree = ast.parse(text)
    starts = _offsets(text)
    found: list[Mutant] = []

    def seg(node: ast.AST) -> str:
        a, b = _span(node, starts, text)
        return text[a:b]

    def add(node: ast.AST, what: str, new: str) -> None:
        a, b = _span(node, starts, text)
        found.append(Mutant(node.lineno, what, a, b, new))  # type: ignore[attr-defined]

    def visit(node: ast.AST) -> None:
        for child in ast.walk(node):
            if isinstance(child, ast.Compare) and len(child.ops) == 1 and \
                    type(child.ops[0]) in FLIP:
                new = f"{seg(child.left)} {FLIP[type(child.ops[0])]} {seg(child.comparators[0])}"
                add(child, f"flip comparison `{seg(child)}`", new)
            elif isinstance(child, ast.BoolOp):
                joiner = " or " if isinstance(child.op, ast.And) else " and "
                add(child, f"swap and/or in `{seg(child)[:60]}`",
                    "(" + joiner.join(f"({seg(v)})" for v in child.values) + ")")
            elif isinstance(child, ast.UnaryOp) and isinstance(child.op, ast.Not):
                add(child, f"drop `not` in `{seg(child)[:60]}`", f"({seg(child.operand)})")
            elif isinstance(child, (ast.If, ast.While)) and \
                    not isinstance(child.test, ast.UnaryOp):
                add(child.test, f"negate condition `{seg(child.test)[:60]}`",
                    f"not ({seg(child.test)})")
            elif isinstance(child, ast.Raise):
                add(child, f"drop `{seg(child)[:60]}`", "pass")
            elif isinstance(child, ast.Return) and child.value is not None and \
                    not (isinstance(child.value, ast.Constant) and child.value.value is None):
                add(child, f"return None instead of `{seg(child.value)[:50]}`", "return None")
            elif isinstance(child, ast.Constant) and isinstance(child.value, bool):
                add(child, f"{child.value} -> {not child.value}", str(not child.value))
            elif isinstance(child, ast.Constant) and type(child.value) is int:
                add(child, f"{child.value} -> {child.value + 1}", str(child.value + 1))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (functions is None or node.name in functions):
            visit(node)
    # a node inside two selected functions (a nested def) is listed once
    return sorted(set(found), key=lambda m: (m.start, m.end, m.new))


def run_tests(copy: Path, selection: list[str], timeout: float) -> str:
    # bytecode is cached (the copy was compiled once; the mutated module's .pyc is checked
    # by hash, see `write_module`): every CLI process a test starts would otherwise compile
    # mdgrill again, several times the cost of the run itself
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("COVERAGE_PROCESS_CONFIG", None)
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p",
                               "no:cacheprovider", *selection], cwd=CHECKOUT, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if proc.returncode == 0 else "killed"


def write_module(target: Path, text: str) -> None:
    """Write a version of the module and its bytecode, checked by hash: a mutant written in
    the same second with the same size as the one before would pass a timestamp check and
    run the stale bytecode."""
    target.write_text(text, encoding="utf-8")
    py_compile.compile(str(target), doraise=False,
                       invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the module to mutate, e.g. src/mdgrill/core/gate.py")
    parser.add_argument("--functions", help="comma-separated names: mutate only these")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per test run")
    parser.add_argument("--limit", type=int, default=0, help="at most this many mutants")
    parser.add_argument("--only", help="comma-separated mutant numbers (as printed) to run")
    parser.add_argument("selection", nargs="+", help="pytest arguments (after --)")
    args = parser.parse_args(argv)
    module = Path(args.module)
    text = (CHECKOUT / module).read_text(encoding="utf-8")
    wanted = set(args.functions.split(",")) if args.functions else None
    found = mutants(text, wanted)
    if args.limit:
        found = found[:args.limit]
    chosen = {int(n) for n in args.only.split(",")} if args.only else None
    with tempfile.TemporaryDirectory(prefix="mdgrill-mutate-") as top:
        copy = Path(top)
        shutil.copytree(CHECKOUT / "src", copy / "src",
                        ignore=shutil.ignore_patterns("__pycache__"))
        compileall.compile_dir(str(copy / "src"), quiet=1)
        target = copy / module
        assert run_tests(copy, args.selection, args.timeout) == "survived", \
            "the selection fails without any mutant: fix it first"
        # a canary: the module broken as a whole must fail the selection, or it never
        # reaches this module (a test that builds its children's environment from scratch
        # drops PYTHONPATH, and its CLI processes run the unmutated code)
        write_module(target, text + "\nraise ImportError('bench/mutate.py canary')\n")
        assert run_tests(copy, args.selection, args.timeout) != "survived", \
            "the selection passes with the module broken: it never runs this module"
        write_module(target, text)
        counts = {"killed": 0, "timeout": 0, "survived": 0}
        started = time.monotonic()
        for i, m in enumerate(found, 1):
            if chosen is not None and i not in chosen:
                continue
            mutated = text[:m.start] + m.new + text[m.end:]
            try:
                compile(mutated, str(module), "exec")
            except SyntaxError:
                continue
            write_module(target, mutated)
            outcome = run_tests(copy, args.selection, args.timeout)
            counts[outcome] += 1
            mark = "SURVIVED" if outcome == "survived" else outcome
            print(f"[{i}/{len(found)}] {module}:{m.line}: {m.what}: {mark}", flush=True)
        write_module(target, text)
    total = sum(counts.values())
    dead = counts["killed"] + counts["timeout"]
    print(f"{module}: {total} mutants, {dead} killed ({counts['timeout']} by timeout), "
          f"{counts['survived']} survived: {100 * dead / max(total, 1):.1f}% killed "
          f"in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
