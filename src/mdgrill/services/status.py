"""Reading a spec without writing: `status` (one screen on it), `tree`, `ledger` and
`validate` (its diagnostics, with what changed on disk under its approvals)."""

from __future__ import annotations

import os

from mdgrill.core import reports
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.git.discovery import in_repository
from mdgrill.services.result import Ledger, Status, Tree
from mdgrill.shell import store
from mdgrill.shell.session import display, load

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.reports import StatusView
    from mdgrill.diagnostics import Diagnostic


def status(spec: store.Spec) -> Status:
    """One screen on a spec: phase, interview, pending questions, frontier, context,
    the last approval, the artifact gate and what changed under an approval."""
    return Status("status", dict(status_view(spec)))


def status_view(spec: store.Spec) -> StatusView:
    """`status`'s fields, typed (what the CLI renders as text)."""
    from mdgrill.shell.session import check_loaded

    prog = load(spec, check=False)
    problems: list[str] = []
    try:
        check_loaded(prog)
    except MdgrillError as exc:
        problems.append(f"{exc.code}: {exc.message}")
    iv = prog.data.get("interview")
    iv = iv if isinstance(iv, dict) else None
    pending = iv.get("pending") if iv else []
    _, frontier = reports.frontier_of(prog)
    view: StatusView = {
        "spec": spec.rel_folder, "goal": prog.data.get("goal"), "phase": prog.data.get("phase"),
        "mode": prog.data.get("mode", "interactive"), "interview": iv,
        "pending": reports.pending_questions(prog, [str(p) for p in pending]
                                             if isinstance(pending, list) else []),
        "frontier": frontier.to_json(), "context": _context_state(spec, prog, iv),
        "approval": _last_approval(spec), "problems": problems,
        "artifact": _artifact_state(spec, prog),
        "reopenings": [{"phase": b.phase, "from_phase": b.first("From phase"),
                        "reason": b.first("Reason"), "by": b.first("By"), "line": b.line + 1}
                       for b in prog.blocks if b.kind == "reopened"],
        "approved_changed": _approved_changed(spec, prog),
    }
    return view


def read_ahead(progress: str, root: str) -> None:
    """Make now the parse the next read of this `.progress.md` would make first, when the
    file still has the bytes a write left: a write keeps the parse of what it wrote to be
    made on the next read (a CLI process never reads again). A server calls this once a
    write's answer has gone, while the client reads it (issue 37, goal 2). Never a stale
    parse: it is kept for those very bytes; other bytes, or a file that cannot be read, are
    left to the next call, which reads them as ever."""
    from mdgrill.shell.session import PARSED

    key = (progress, display(progress))
    try:
        data = store.read_file(progress, key[1], root)
    except MdgrillError:
        return
    PARSED.get(key, data, False)  # a parse that fails is dropped, for the next call to say


def _approved_changed(spec: store.Spec, prog: Progress) -> list[dict[str, object]]:
    from mdgrill.shell.drift import changed_approvals

    try:
        found = changed_approvals(prog, spec.root)
    except MdgrillError:
        return []
    return [{"phase": s.phase, "path": s.path, "approved": s.sha256, "now": now}
            for s, now in found]


def _artifact_state(spec: store.Spec, prog: Progress) -> dict[str, object] | None:
    """The artifact gate, with whether the file still has the bytes that were submitted."""
    art = prog.data.get("artifact")
    if not isinstance(art, dict):
        return None
    state: dict[str, object] = dict(art)
    path = os.path.join(spec.root, str(art.get("path", "")))
    try:
        from mdgrill.model.digest import file_sha256

        now = file_sha256(store.read_file(path, str(art.get("path")), spec.root))
    except MdgrillError:
        now = None
    state["changed"] = now != art.get("sha256")
    return state


def _context_state(spec: store.Spec, prog: Progress,
                   iv: dict[str, object] | None) -> dict[str, object]:
    if iv is None:
        return {"state": "no interview"}
    from mdgrill.shell.context import context_sources

    try:
        digest, _ = context_sources(prog, spec, str(iv.get("phase")))
    except MdgrillError as exc:
        return {"state": "unavailable", "reason": exc.message}
    recorded = iv.get("context_digest")
    return {"state": "current" if digest == recorded else "stale", "recorded": recorded,
            "current": digest}


def _last_approval(spec: store.Spec) -> dict[str, object]:
    if not in_repository(spec.root):
        return {"sha": None, "reason": "not a git repository"}
    try:
        from mdgrill.git import vcs

        commits = vcs.approval_commits(spec.root, spec.rel_folder)
    except (ImportError, AttributeError):
        return {"sha": None, "reason": "git history is not available in this build"}
    except MdgrillError as exc:
        return {"sha": None, "reason": exc.message}
    if not commits:
        return {"sha": None, "reason": "no approval commit yet"}
    last = commits[0]
    return {"sha": last.sha, "subject": last.subject, "date": last.date,
            "transition": last.trailers.get("Mdgrill-Transition")}


def validate(spec: store.Spec) -> list[Diagnostic]:
    """The spec's `.progress.md` checked as `mdgrill validate SPEC` checks it: its
    diagnostics, and those of the approved files that changed since."""
    from mdgrill.checks.spec import from_input_error, validate_progress_parsed
    from mdgrill.shell.drift import spec_diagnostics

    shown = display(spec.progress)
    try:
        data = store.read_file(spec.progress, shown, spec.root)
    except InputError as exc:
        return [from_input_error(exc, shown)]
    found, prog = validate_progress_parsed(data, shown)
    if prog is None or prog.fm is None or any(d.code == "MERGE_CONFLICT" for d in found):
        return found
    try:
        return found + spec_diagnostics(prog, spec)
    except InputError:
        return found


def tree(spec: store.Spec, *, format: str = "text", color: bool = False) -> Tree:
    """The design tree: its nodes with their status, and drawn as text or Mermaid."""
    if format not in ("text", "mermaid"):
        raise InputError("USAGE", f"unknown format `{format}`: text or mermaid")
    prog = load(spec, check=False)
    _, frontier = reports.frontier_of(prog)
    nodes = [{"id": n.id, "title": n.title, "section": n.section,
              "status": frontier.statuses.get(n.id), "depends_on": n.depends_on,
              "spawned_by": n.spawned_by, "line": n.line + 1} for n in prog.nodes]
    text = reports.tree_mermaid(prog) if format == "mermaid" else reports.tree_text(prog, color)
    return Tree("tree", {"format": format, "nodes": nodes, "text": text})


def ledger(spec: store.Spec, *, new: bool = False) -> Ledger:
    """The settled decisions as the elicitation ledger (`new`: those of the last round)."""
    prog = load(spec, check=False)
    entries = reports.ledger_entries(prog)
    shown = reports.new_entries(prog, entries) if new else entries
    text = reports.ledger_text(shown, outline=not new)
    if new and not shown:
        text = "the last round settled no decision"
    return Ledger("ledger", {"entries": [e.to_json() for e in shown], "new": new,
                             "outline": reports.outline_lines(shown) if shown else [],
                             "text": text})


def validate_glossary(path: str, root: str) -> list[Diagnostic]:
    """A glossary (`CONTEXT.md`) checked as `validate` checks it."""
    from mdgrill.checks.spec import from_input_error, validate_glossary_bytes

    shown = display(path)
    try:
        data = store.read_file(path, shown, root)
    except InputError as exc:
        return [from_input_error(exc, shown)]
    return validate_glossary_bytes(data, shown)


def validate_repository(root: str, top: str | None = None) -> list[Diagnostic]:
    """Every spec and glossary under `top` (default: all of `root`), checked as `validate`
    checks them."""
    from mdgrill.services.watch.targets import GLOSS, SPEC, find_targets

    found: list[Diagnostic] = []
    for kind, path in find_targets(top or root):
        if kind == SPEC:
            found += validate(store.Spec(path, root))
        elif kind == GLOSS:
            found += validate_glossary(path, root)
    return found
