"""`.ci/redos.py` hands recheck (a JavaScript regex checker) Python's patterns in JavaScript's
syntax. JavaScript has no possessive repeat or atomic group, which the line tokenizer uses on
Python 3.11+: recheck could not parse them and CI would call the pattern undecided. They are
given as the greedy repeat and the plain group, which backtrack at least as much."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "redos.py"


@pytest.fixture(scope="module")
def to_js():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("ci_redos", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.to_js


@pytest.mark.parametrize(("python", "javascript"), [
    (r"a++b", "a+b"),
    (r"[ \t]*+:", r"[ \t]*:"),
    (r"(?:\*\*)?+x", r"(?:\*\*)?x"),
    (r"x{1,3}+y", "x{1,3}y"),
    (r"(?>ab)+c", "(?:ab)+c"),
    # not possessive: an escaped plus repeated, a plus inside a class, a lookbehind
    (r"\++", r"\++"),
    (r"[+]+", "[+]+"),
    (r"(?<! )a", "(?<! )a"),
])
def test_possessive_and_atomic_become_greedy(to_js, python: str, javascript: str) -> None:  # type: ignore[no-untyped-def]
    if sys.version_info >= (3, 11):  # possessive repeats and atomic groups came in 3.11
        re.compile(python)
    assert to_js(python, 0, "search") == (javascript, "")
