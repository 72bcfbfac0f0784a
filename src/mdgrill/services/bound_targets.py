"""Bound targets read back: what `drift` finds for each binding, and the reading of targets
(files, globs, symbols, sections) at HEAD and in the work tree that `bind` shares.

`drift` asks git which bound files changed since each binding's commit and fingerprints only
those again; a change of form leaves the fingerprint as it was. Not `shell/drift.py`, which
is an approved artifact whose bytes changed: this is a bound target whose substance changed
(docs/bindings.md).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from mdgrill.core import bindings as rules
from mdgrill.core import fingerprints as fp
from mdgrill.errors import InputError
from mdgrill.git.discovery import in_repository
from mdgrill.shell import store

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mdgrill.core.askround import ToolQuestion
    from mdgrill.formats.progress import Progress
    from mdgrill.git.vcs.changes import PathCommit, Touched

OK = "ok"
CHANGED = "changed"
MOVED = "moved"
MISSING = "missing"
PENDING = "pending"  # a `- Binds:` key written by hand, not fingerprinted yet
RED = frozenset({CHANGED, MOVED, MISSING})


class Finding(NamedTuple):
    """One binding checked against the work tree."""

    spec: str  # the spec folder, repository-relative
    binding: rules.Binding
    status: str  # ok, changed, moved, missing, pending
    now: str | None  # where the target is now (a moved one's new place)
    path: str  # the file to point at (the new one when moved)
    line: int  # 1-based line of the target in that file
    commits: list[PathCommit]
    uncommitted: bool  # the work tree differs from HEAD for the target's file
    altered: bool = False  # its fingerprint differs (a moved target may be unchanged)
    history: bool = True  # False: the binding's commit is not in this clone (a shallow one)

    @property
    def red(self) -> bool:
        return self.status in RED

    def to_json(self) -> dict[str, object]:
        return {"spec": self.spec, **self.binding.to_json(), "status": self.status,
                "now": self.now, "path": self.path, "target_line": self.line,
                "commits": [c.to_json() for c in self.commits],
                "uncommitted": self.uncommitted, "altered": self.altered,
                "history": self.history}



# -- reading targets -------------------------------------------------------------------------


def require_git(spec: store.Spec) -> str:
    """HEAD's sha: a binding names the commit whose files it fingerprinted."""
    if not in_repository(spec.root):
        raise InputError("NOT_A_REPOSITORY", f"{spec.root} is not a git repository: a binding "
                         "names the commit it fingerprinted (run `git init` and commit)")
    from mdgrill.git.vcs.changes import head_sha

    head = head_sha(spec.root)
    if head is None:
        raise InputError("NOT_FOUND", "the repository has no commit yet: commit the code and "
                         "docs the decision is bound to, then bind it")
    return head


def resolve_target(spec: store.Spec, text: str, head: str) -> fp.Target:
    """The target with its path made repository-relative (a path found only in the spec
    folder, such as `requirements.md#Login`, is taken from there)."""
    target = fp.parse_target(text)
    if target.is_glob:
        return target
    from mdgrill.git import vcs

    if vcs.blob_at(spec.root, head, target.path) is None and spec.rel_folder not in ("", "."):
        inside = f"{spec.rel_folder}/{target.path}"
        if vcs.blob_at(spec.root, head, inside) is not None:
            return fp.parse_target(f"{spec.rel_folder}/{text.strip()}")
    return target


def glob_files(root: str, pattern: str, rev: str | None) -> list[tuple[str, bytes]]:
    """The files the glob matches: at `rev`, or in the work tree (tracked files) when None."""
    from mdgrill.git import vcs
    from mdgrill.git.vcs.changes import tracked_at

    regex = fp.glob_pattern(pattern)
    if rev is not None:
        paths = [p for p in tracked_at(root, rev) if regex.match(p)]
        blobs = vcs.blobs_at(root, [(rev, p) for p in paths])
        return [(p, b) for p, b in zip(paths, blobs, strict=True) if b is not None]
    found = []
    for path in vcs.tracked_files(root):
        if regex.match(path):
            data = work_bytes(root, path)
            if data is not None:
                found.append((path, data))
    return found


def work_bytes(root: str, rel: str) -> bytes | None:
    full = os.path.join(root, *rel.split("/"))
    if not os.path.isfile(full):
        return None
    try:
        with open(full, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def fingerprint_at_head(spec: store.Spec, target: fp.Target, head: str) -> str:
    """The target's fingerprint as committed at `head`, or a refusal saying what is missing."""
    if target.is_glob:
        files = glob_files(spec.root, target.path, head)
        if not files:
            raise InputError("NOT_FOUND", f"`{target.text}` matches no file committed at HEAD")
        return fp.glob_fingerprint(files)
    from mdgrill.git import vcs

    data = vcs.blob_at(spec.root, head, target.path)
    if data is None:
        hint = " (it is not committed yet: commit it first)" \
            if os.path.exists(os.path.join(spec.root, target.path)) else ""
        raise InputError("NOT_FOUND", f"{target.path} is not in HEAD{hint}: a binding "
                         "fingerprints the committed version", path=target.path)
    same = fp.section_count(data, target.section) if target.section is not None else 1
    if same > 1:
        raise InputError("INVALID_INPUT", f"{target.path} has {same} "
                         f"sections named `{target.section}`: the first would be bound; rename "
                         "one, or bind the whole file", path=target.path)
    found = fp.fingerprint(target, data)
    if found is None:
        what = f"symbol `{target.symbol}`" if target.symbol else f"section `{target.section}`"
        if target.symbol and fp.parse_python(data) is None:
            what = "Python that parses"
        raise InputError("NOT_FOUND", f"{target.path} at HEAD holds no {what}", path=target.path)
    return found



def is_dirty(root: str, head: str, target: fp.Target) -> bool:
    from mdgrill.git import vcs

    now = work_bytes(root, target.path)
    return now is not None and now != vcs.blob_at(root, head, target.path)


def commit_binding(spec: store.Spec, result: dict[str, object], transition: str, person: str | None,
            no_commit: bool, what: str,
            extra: list[tuple[str, str]] | None = None) -> dict[str, object]:
    from mdgrill.services.approvals import commit_blocker
    from mdgrill.shell.session import load

    why_not = "--no-commit" if no_commit else commit_blocker(load(spec, check=False), spec)
    if why_not is not None:
        return {"commit": None, "commit_skipped": why_not}
    from mdgrill.git import vcs
    from mdgrill.shell.people import author

    trailers = [(vcs.TRAILER_SPEC, spec.rel_folder), (vcs.TRAILER_PHASE, str(result["phase"])),
                (vcs.TRAILER_TRANSITION, transition),
                ("Mdgrill-Decision", str(result["decision"])), *(extra or [])]
    if person:
        trailers.append((vcs.TRAILER_BY, person))
    commit = vcs.commit_paths(spec.root, [spec.rel_progress],
                              vcs.format_message(f"grill({result['phase']}): {what}", trailers),
                              author=author(person))
    return {"commit": commit.sha, "transition": transition, "branch": commit.branch}



# -- drift -----------------------------------------------------------------------------------


def drift(specs: list[store.Spec], root: str) -> list[Finding]:
    """Every binding of these specs checked against the work tree; only the targets git says
    changed since their binding's commit are read and fingerprinted again."""
    from mdgrill.model.tree import ledger_of
    from mdgrill.shell.session import load

    loaded: list[tuple[store.Spec, Progress, list[rules.Binding]]] = []
    for spec in specs:
        prog = load(spec, check=False)
        answered = ledger_of(prog).answers
        # a reopened decision's bindings wait for its new answer (and a new bind)
        standing = [b for b in rules.read_bindings(prog.blocks).values()
                    if b.decision in answered]
        loaded.append((spec, prog, standing))
    commits = [b.at for _, _, found in loaded for b in found]
    touched: dict[str, Touched] = {}
    if commits:
        from mdgrill.git.vcs.changes import touched_since

        # only the bound paths: a change elsewhere in a big repository is not even listed
        touched = touched_since(root, commits, _pathspecs(b for _, _, f in loaded for b in f))
    findings: list[Finding] = []
    for spec, prog, standing in loaded:
        for binding in standing:
            findings.append(_check(root, spec.rel_folder, binding, touched.get(binding.at)))
        bound = {(b.decision, b.target) for b in standing}
        for decision, target, line in rules.written_bindings(prog):
            if (decision, target) not in bound:
                pending = rules.Binding(decision, "", target, "", "", None, line)
                findings.append(Finding(spec.rel_folder, pending, PENDING, None,
                                        spec.rel_progress, line, [], False))
    return findings


def _pathspecs(found: Iterable[rules.Binding]) -> list[str]:
    specs: set[str] = set()
    for binding in found:
        try:
            target = fp.parse_target(binding.target)
        except InputError:
            continue
        specs.add((":(glob)" if target.is_glob else ":(literal)") + target.path)
    return sorted(specs)


_EVERYTHING: dict[tuple[str, str], Touched] = {}


def _everything(root: str, at: str) -> Touched:
    """Every path changed since `at`, with git's renames: asked only when a target is gone."""
    key = (root, at)
    if key not in _EVERYTHING:
        from mdgrill.git.vcs.changes import Touched, touched_since

        _EVERYTHING[key] = touched_since(root, [at]).get(at) or Touched(frozenset(), {})
    return _EVERYTHING[key]


def _all_tracked(root: str, target: fp.Target) -> Touched:
    """Every path that may hold the target, as if all had changed."""
    from mdgrill.git import vcs
    from mdgrill.git.vcs.changes import Touched

    paths = vcs.tracked_files(root) if target.is_glob else [target.path]
    return Touched(frozenset(paths), {}, frozenset())


def _check(root: str, spec_rel: str, binding: rules.Binding, touched: Touched | None) -> Finding:
    try:
        target = fp.parse_target(binding.target)
    except InputError:
        return Finding(spec_rel, binding, MISSING, None, binding.target, 1, [], False)
    if touched is None:
        # The binding's commit is not here (a shallow clone, a squashed branch): git cannot
        # say what changed since, so the target is fingerprinted again whatever it is.
        checked = _check(root, spec_rel, binding, _all_tracked(root, target))
        return checked._replace(history=False)
    if target.is_glob:
        return _check_glob(root, spec_rel, binding, target, touched)
    if target.path not in touched.paths:  # unchanged since the binding: nothing is read
        return Finding(spec_rel, binding, OK, binding.target, target.path, 1, [], False)
    kind = fp.kind_of(binding.fingerprint)
    path = target.path
    data = work_bytes(root, path)
    if data is None:
        touched = _everything(root, binding.at)
        if path in touched.renamed:
            path = touched.renamed[path]
            data = work_bytes(root, path)
    now = target.at(path)
    found = fp.fingerprint(now, data, kind) if data is not None else None
    if found is None:
        touched = _everything(root, binding.at)
        elsewhere = _search(root, target, binding.fingerprint, touched)
        if elsewhere is not None:
            now, found = elsewhere
            path = now.path
    if found == binding.fingerprint and now.text == binding.target:
        # the file changed, the target did not: no need to ask git who changed what
        return Finding(spec_rel, binding, OK, binding.target, target.path, 1, [], False)
    commits = _substantive(root, binding, target, now,
                           _commits(root, binding.at, [target.path, path]))
    dirty = path in touched.uncommitted
    if found is None:
        return Finding(spec_rel, binding, MISSING, None, target.path, 1, commits, dirty)
    status = MOVED if now.text != binding.target else CHANGED
    return Finding(spec_rel, binding, status, now.text, path, _line(root, now), commits, dirty,
                   found != binding.fingerprint)


def _check_glob(root: str, spec_rel: str, binding: rules.Binding, target: fp.Target,
                touched: Touched) -> Finding:
    regex = fp.glob_pattern(target.path)
    hit = sorted(p for p in touched.paths if regex.match(p))
    if not hit:
        return Finding(spec_rel, binding, OK, binding.target, target.path, 1, [], False)
    files = glob_files(root, target.path, None)
    found = fp.glob_fingerprint(files) if files else None
    status = MISSING if found is None else OK if found == binding.fingerprint else CHANGED
    first = hit[0]
    return Finding(spec_rel, binding, status, binding.target, first, 1,
                   _commits(root, binding.at, hit), any(p in touched.uncommitted for p in hit))


def _search(root: str, target: fp.Target, fingerprint: str,
            touched: Touched) -> tuple[fp.Target, str] | None:
    """A symbol or section gone from its file, found in another file git says changed:
    the same name (or, for a symbol, the same fingerprint under another name)."""
    if target.symbol is None and target.section is None:
        return None
    suffixes = (".py", ".pyi") if target.symbol else (".md", ".markdown", ".mdx")
    same_body: tuple[fp.Target, str] | None = None
    for path in sorted(touched.paths):
        if not path.endswith(suffixes) or path == target.path:
            continue
        data = work_bytes(root, path)
        if data is None:
            continue
        if target.section is not None:
            there = fp.parse_target(f"{path}#{target.section}")
            found = fp.fingerprint(there, data, fp.kind_of(fingerprint))
            if found is not None:
                return there, found
            continue
        tree = fp.parse_python(data)
        if tree is None:
            continue
        assert target.symbol is not None
        name = target.symbol.rsplit(".", 1)[-1]
        for qualified in fp.symbols(tree):
            there = fp.parse_target(f"{path}::{qualified}")
            if qualified == target.symbol or qualified.rsplit(".", 1)[-1] == name:
                found = fp.fingerprint(there, data, fp.kind_of(fingerprint))
                if found is not None:
                    return there, found
            elif same_body is None:
                found = fp.fingerprint(there, data, fp.kind_of(fingerprint))
                if found == fingerprint:  # renamed, body unchanged
                    same_body = there, found
    return same_body


def _substantive(root: str, binding: rules.Binding, target: fp.Target, now: fp.Target,
                 commits: list[PathCommit]) -> list[PathCommit]:
    """The commits that changed the target itself (oldest kept last, as git lists them):
    the file's other commits (a neighbour, a reformatting) are left out, and so is a rename
    unless the target is still moved."""
    if not commits:
        return commits
    from mdgrill.git import vcs

    wanted = [(c.sha, p) for c in commits for p in (target.path, now.path)]
    blobs = vcs.blobs_at(root, wanted)
    kind = fp.kind_of(binding.fingerprint)
    previous: tuple[str | None, str] = (binding.fingerprint, target.path)
    kept: list[PathCommit] = []
    for index in range(len(commits) - 1, -1, -1):  # oldest first
        old_blob, new_blob = blobs[2 * index], blobs[2 * index + 1]
        if old_blob is not None:
            state = (fp.fingerprint(target, old_blob, kind), target.path)
        elif new_blob is not None:
            state = (fp.fingerprint(now, new_blob, kind), now.path)
        elif index > 0:
            continue  # gone for a while under a name not asked for (moved away and back)
        else:
            state = (None, "")  # gone since this, the newest commit
        if state[0] != previous[0] or (state[1] != previous[1] and now.path != target.path):
            kept.append(commits[index])
        previous = state
    kept.reverse()
    return kept


def _commits(root: str, since: str, paths: list[str]) -> list[PathCommit]:
    from mdgrill.git.vcs.changes import commits_touching

    return commits_touching(root, since, paths)


def _line(root: str, target: fp.Target) -> int:
    if target.symbol is None and target.section is None:
        return 1
    data = work_bytes(root, target.path)
    if data is None:
        return 1
    if target.symbol is not None:
        return fp.symbol_line(data, target.symbol) or 1
    span = fp.section_span(data, target.section or "")
    return span[2] if span is not None else 1


def all_specs(root: str) -> list[store.Spec]:
    """Every spec under the repository root."""
    return [store.Spec(folder, root) for folder in store.find_specs(root)]


def question_text(f: Finding) -> str:
    """A drifted binding as the question to the decision's owner."""
    b = f.binding
    if f.commits:
        c = f.commits[0]
        change = f"changed in {c.sha[:7]} ({c.subject})"
        if len(f.commits) > 1:
            change += f" and {len(f.commits) - 1} more commit{'s' * (len(f.commits) > 2)}"
    else:
        change = "changed (not committed yet)"
    if f.status == MOVED:
        change = f"moved to `{f.now}`" + (" and changed" if f.altered else "") + \
            (f" in {f.commits[0].sha[:7]} ({f.commits[0].subject})" if f.commits else "")
    elif f.status == MISSING:
        change = "is gone" + (f" since {f.commits[0].sha[:7]} ({f.commits[0].subject})"
                              if f.commits else "")
    if not f.history:
        change += (f" (its binding commit {b.at[:12]} is not in this clone, so the commits "
                   "cannot be named: fetch the history, `fetch-depth: 0` in CI)")
    ruling = " The owner said the change was wrong: put it back." if b.ruling else ""
    return f"`{b.target}` {change}: does {b.decision} '{b.answer}' still hold?{ruling}"


def drifted_now(root: str, folders: list[str] | None = None) -> list[Finding] | None:
    """The red findings of every spec in the repository (or of these spec folders), as
    `drift` reports them now; None when no spec has a binding (or there is no git)."""
    from mdgrill.errors import MdgrillError
    from mdgrill.shell.session import load

    if not in_repository(root):
        return None
    candidates = all_specs(root) if folders is None else \
        [store.Spec(os.path.join(root, *f.split("/")), root) for f in folders]
    specs: list[store.Spec] = []
    for spec in candidates:
        try:
            blocks = load(spec, check=False).blocks
        except (MdgrillError, OSError):
            continue  # a spec that does not read is `validate`'s to report, not the review's
        if any(b.kind in ("bound", "reaffirmed") for b in blocks):
            specs.append(spec)
    if not specs:
        return None
    return [f for f in drift(specs, root) if f.red]


def drift_questions(spec: store.Spec) -> list[ToolQuestion]:
    """The spec's drifted decisions the owner has not ruled on, as question-tool questions
    (one per decision, its first drifted target; `reaffirm` records the selection)."""
    from mdgrill.shell.session import load

    if not in_repository(spec.root) or \
            not any(b.kind == "bound" for b in load(spec, check=False).blocks):
        return []
    asked: dict[str, ToolQuestion] = {}
    for finding in drift([spec], spec.root):
        decision = finding.binding.decision
        if not finding.red or finding.binding.ruling or decision in asked:
            continue
        asked[decision] = {
            "question": question_text(finding), "header": decision[:12],
            "options": [{"label": o.split(": ", 1)[0], "description": o.split(": ", 1)[1]}
                        for o in rules.OPTIONS],
            "multiSelect": False, "decision_id": decision}
    return list(asked.values())



__all__ = ["CHANGED", "Finding", "MISSING", "MOVED", "OK", "PENDING", "RED", "all_specs",
           "commit_binding", "drift", "drift_questions", "drifted_now", "fingerprint_at_head",
           "glob_files", "is_dirty", "question_text", "require_git", "resolve_target", "work_bytes"]
