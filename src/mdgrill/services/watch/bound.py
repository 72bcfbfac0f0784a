"""Bound files under watch: which saved files carry a settled decision, and whether a saved
one still matches its binding (issue 36, "watch reports a binding broken on save").

Kept cheap: the bindings are read from each spec's log as `watch` parses it anyway, and a
file is fingerprinted only when it is bound and was saved. The comparison is `drift`'s
(the work tree against the recorded fingerprint), without git: the commits are `drift`'s job.
"""

from __future__ import annotations

import ast
import os
import re
from typing import NamedTuple

from mdgrill.core import bindings as rules
from mdgrill.core import fingerprints as fp
from mdgrill.diagnostics import Diagnostic, error
from mdgrill.errors import InputError
from mdgrill.formats.progress import Progress

BINDING_BROKEN = "BINDING_BROKEN"


class Bound(NamedTuple):
    """One standing binding, with the spec that recorded it."""

    spec: str  # the spec folder, repository-relative
    binding: rules.Binding
    target: fp.Target


class Check(NamedTuple):
    """A saved bound target compared with its binding: the report if broken, and the one
    to give when it matches again."""

    key: tuple[str, str, str, str]  # (spec, decision, target, fingerprint)
    broken: Diagnostic | None
    healed: Diagnostic


def standing_bindings(prog: Progress, spec_rel: str) -> list[Bound]:
    """The bindings a spec's log leaves standing (a reopened decision's wait: not checked)."""
    if not any(b.kind in ("bound", "reaffirmed") for b in prog.blocks):
        return []
    from mdgrill.model.tree import ledger_of

    answered = ledger_of(prog).answers
    found: list[Bound] = []
    for binding in rules.read_bindings(prog.blocks).values():
        if binding.decision not in answered:
            continue
        try:
            found.append(Bound(spec_rel, binding, fp.parse_target(binding.target)))
        except InputError:
            continue
    return found


class BoundFiles:
    """Repository-relative path -> the bindings on it, over every spec watched."""

    __slots__ = ("by_spec", "by_path", "globs")

    def __init__(self) -> None:
        self.by_spec: dict[str, list[Bound]] = {}
        self.by_path: dict[str, list[Bound]] = {}
        self.globs: list[tuple[re.Pattern[str], Bound]] = []

    def update(self, spec_rel: str, bound: list[Bound]) -> bool:
        """Set one spec's bindings; True when they changed."""
        if self.by_spec.get(spec_rel, []) == bound:
            return False
        if bound:
            self.by_spec[spec_rel] = bound
        else:
            self.by_spec.pop(spec_rel, None)
        # built aside, then swapped in: the observer's thread reads them meanwhile
        by_path: dict[str, list[Bound]] = {}
        globs: list[tuple[re.Pattern[str], Bound]] = []
        for found in self.by_spec.values():
            for one in found:
                if one.target.is_glob:
                    globs.append((fp.glob_pattern(one.target.path), one))
                else:
                    by_path.setdefault(one.target.path, []).append(one)
        self.by_path, self.globs = by_path, globs
        return True

    def count(self) -> int:
        """How many bindings are followed."""
        return sum(len(found) for found in self.by_spec.values())

    def on(self, rel: str) -> list[Bound]:
        """The bindings a save of `rel` may break: its own, and the globs matching it."""
        found = list(self.by_path.get(rel, []))
        found.extend(one for regex, one in self.globs if regex.match(rel))
        return found


def check(root: str, one: Bound, shown: str,
          parsed: dict[str, ast.Module | None] | None = None) -> Check | None:
    """The saved target against its binding (the work tree, as `drift` reads it); None when
    it cannot be told (a Python file that does not parse while being edited). `parsed`
    keeps each file's tree for the next binding on it, within one save."""
    from mdgrill.services.bound_targets import glob_files, work_bytes

    b, target = one.binding, one.target
    key = (one.spec, b.decision, b.target, b.fingerprint)
    line = 1
    if target.is_glob:
        files = glob_files(root, target.path, None)
        now = fp.glob_fingerprint(files) if files else None
    else:
        data = work_bytes(root, target.path)
        if data is not None and target.symbol is not None and \
                fp.kind_of(b.fingerprint) == fp.PYTHON:
            # one parse for the symbol's fingerprint and line (a big module takes ~0.1 s)
            if parsed is None:
                parsed = {}
            if target.path not in parsed:
                parsed[target.path] = fp.parse_python(data)
            tree = parsed[target.path]
            if tree is None:
                return None  # mid-edit: the next save that parses tells
            node = fp.find_symbol(tree, target.symbol)
            now = None
            if node is not None:
                decorators: list[ast.expr] = getattr(node, "decorator_list", [])
                line = min([node.lineno, *(d.lineno for d in decorators)])
                now = fp.tree_fingerprint(node)
        else:
            now = fp.fingerprint(target, data, fp.kind_of(b.fingerprint)) \
                if data is not None else None
            if data is not None and target.section is not None:
                span = fp.section_span(data, target.section)
                line = span[2] if span is not None else 1
    what = f"{b.decision} '{b.answer}'"
    healed = error(shown, line, BINDING_BROKEN,
                   f"`{b.target}` matches the binding of {what} again")
    if now == b.fingerprint:
        return Check(key, None, healed)
    change = "is gone" if now is None else "no longer matches its binding"
    ruled = " (its owner ruled the change wrong: put it back)" if b.ruling else ""
    broken = error(shown, line, BINDING_BROKEN,
                   f"`{b.target}` {change}: decision {what} ({one.spec}) is bound to it"
                   f"{ruled}; `mdgrill drift` names the commits, and the owner answers with "
                   f"`mdgrill reaffirm {one.spec} --decision-id {b.decision} --reply ...`")
    return Check(key, broken, healed)


def relative(path: str, root: str) -> str | None:
    """`path` relative to the repository root, with `/`, or None outside it."""
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


__all__ = ["BINDING_BROKEN", "Bound", "BoundFiles", "Check", "check", "relative",
           "standing_bindings"]
