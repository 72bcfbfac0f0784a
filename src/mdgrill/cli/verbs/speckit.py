"""`mdgrill import-speckit SPEC_MD` and `mdgrill export-speckit SPEC`: spec-kit's
`## Clarifications` as mdgrill rounds, and the interview's answers back into it."""

from __future__ import annotations

import argparse
import datetime
import os

from mdgrill.cli.verbs import (
    Outcome,
    Verb,
    add_dry_run,
    refuse_invalid,
    spec_of,
    unified_diff,
)
from mdgrill.diagnostics import format_diagnostic
from mdgrill.errors import InputError
from mdgrill.formats.progress import Progress, single_line, with_record
from mdgrill.formats.schema import HEADING_WORD, PHASES
from mdgrill.formats.textfile import TextFile, decode
from mdgrill.integrations import speckit
from mdgrill.model.record import require_spec_name
from mdgrill.shell import store
from mdgrill.shell.session import display

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import SpeckitUpdate

SPEC_MD = "spec.md"


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec_md", metavar="SPEC_MD", help="a spec-kit feature's spec.md (or "
                   "its folder); it is read, never written")
    p.add_argument("--phase", choices=PHASES[2:], default="requirements",
                   help="the phase the clarify sessions were (default: requirements, as "
                   "spec-kit clarifies before /plan)")
    p.add_argument("--goal", metavar="TEXT", help="the goal, when spec.md has no "
                   "`**Input**:` line or title to take it from")
    p.add_argument("--update", action="store_true", help="the feature was imported "
                   "before: bring in the clarifications spec.md gained since, as new "
                   "rounds (refused while the phase's interview is open)")
    add_dry_run(p, "the file it would write")


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="the mdgrill spec folder (beside its "
                   "spec.md)")
    p.add_argument("--spec-md", metavar="PATH", help="the spec.md to write (default: the "
                   "one recorded at import, else SPEC/spec.md)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="the session the new answers go "
                   "under (default: today, as spec-kit dates its sessions)")
    add_dry_run(p, "the file it would write")


# -- import ---------------------------------------------------------------------------------

def _spec_md_path(arg: str) -> str:
    path = os.path.abspath(arg)
    if os.path.isdir(path):
        path = os.path.join(path, SPEC_MD)
    if not os.path.isfile(path):
        raise InputError("NOT_FOUND", f"{arg} is not a file: give a spec-kit feature's spec.md "
                         "(specs/NNN-feature/spec.md) or its folder")
    return path


def _import(args: argparse.Namespace) -> Outcome:
    path = _spec_md_path(args.spec_md)
    spec = store.resolve_spec(path, args.root, must_exist=False)
    shown_md = display(path)
    if os.path.lexists(spec.progress) and not args.update:
        raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists: the "
                         "feature was imported before, and mdgrill never overwrites an "
                         "interview (`--update` brings in the clarifications spec.md gained "
                         "since)", path=display(spec.progress))
    raw = store.read_file(path, shown_md, spec.root)
    feature = speckit.read(decode(raw, shown_md))
    if args.update:
        return _update(args, spec, path, raw, feature)
    name = os.path.basename(os.path.normpath(spec.folder))
    require_spec_name(name)
    goal_text = args.goal or feature.description or feature.title
    if not goal_text:
        raise InputError("GOAL_REQUIRED", f"{shown_md} has no `**Input**:` line and no title to "
                         "take the goal from: pass --goal TEXT")
    goal = single_line(goal_text, "goal")
    title = single_line(feature.title or name, "title")
    rel_md = store.relpath_posix(path, spec.root)
    sessions, skipped = _sessions(feature)
    text = _render(spec, name, goal, title, args.phase, rel_md, raw, sessions)
    diagnostics = refuse_invalid(text.encode("utf-8"), spec.rel_progress)
    stray = feature.clarifications.stray if feature.clarifications else []
    warnings: list[str] = []
    if feature.clarifications is None:
        warnings.append(f"{shown_md} has no `## Clarifications` section: the spec starts with "
                        "no rounds (export-speckit will add the section)")
    if stray:
        warnings.append(f"{len(stray)} line(s) of the Clarifications section are not "
                        "`### Session` headings or `- Q: … → A: …` bullets: they stay in "
                        f"spec.md and were not imported (lines {_ranges(stray)})")
    for line, why in skipped:
        warnings.append(f"{shown_md}:{line + 1}: not imported: {why}")
    warnings.extend(format_diagnostic(d) for d in diagnostics)
    from mdgrill.services.approvals import ignored_warning

    ignored = ignored_warning(spec)
    if ignored is not None:
        warnings.append(ignored)
    decisions = sum(len(pairs) for _, pairs in sessions)
    result: dict[str, object] = {
        "spec": spec.rel_folder, "path": spec.rel_progress, "spec_md": rel_md,
        "phase": args.phase, "goal": goal, "rounds": len(sessions), "decisions": decisions,
        "ids": {node_id: item.line + 1 for _, pairs in sessions for node_id, item in pairs},
        "sessions": [s.to_json() for s, _ in sessions],
        "not_imported": [{"line": i + 1, "text": t} for i, t in stray],
        "warnings": warnings, "dry_run": bool(args.dry_run),
    }
    if args.dry_run:
        shown = unified_diff("", text, display(spec.progress)) if args.diff else text
        result.update({"written": False, "text": shown})
        return Outcome(result, shown)
    with store.Lock(spec.folder):
        if os.path.lexists(spec.progress):
            raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists")
        store.atomic_write(spec.progress, text.encode("utf-8"))
    result["written"] = True
    ids = [node_id for _, pairs in sessions for node_id, _ in pairs]
    span = "none" if not ids else ids[0] if len(ids) == 1 else f"{ids[0]}…{ids[-1]}"
    lines = [f"imported {shown_md} into {display(spec.progress)}: {len(sessions)} session(s) "
             f"as {args.phase} rounds, {decisions} decision(s) ({span}); spec.md is unchanged",
             "the answers are history: the next approval is the user's, through mdgrill's "
             f"gate (mdgrill begin-interview {spec.rel_folder} --phase {args.phase} "
             "--interview-id ID)"]
    lines += [f"warning: {w}" for w in warnings]
    return Outcome(result, "\n".join(lines))


Pairs = list[tuple[str, speckit.Clarification]]


def _sessions(feature: speckit.Feature, known: set[tuple[str, str]] | None = None,
              taken: set[str] | None = None) -> tuple[list[tuple[speckit.Session, Pairs]],
                                                      list[tuple[int, str]]]:
    """Each session with an ID for each of its questions not `known` already (as
    (question, answer) compared loosely); sessions left with none are dropped. And the
    bullets mdgrill cannot keep on one line, with why."""
    skipped: list[tuple[int, str]] = []
    kept: list[tuple[speckit.Session, list[speckit.Clarification]]] = []
    for session in feature.clarifications.sessions if feature.clarifications else []:
        items = []
        for item in session.items:
            if speckit.unusable(item.question) or speckit.unusable(item.answer):
                skipped.append((item.line, "it holds control characters"))
            elif known is None or (speckit.same(item.question),
                                   speckit.same(item.answer)) not in known:
                items.append(item)
        if items:
            kept.append((session, items))
    ids = iter(speckit.question_ids(sum(len(items) for _, items in kept), taken or ()))
    return [(s, [(next(ids), item) for item in items]) for s, items in kept], skipped


def _update(args: argparse.Namespace, spec: store.Spec, path: str, raw: bytes,
            feature: speckit.Feature) -> Outcome:
    """The clarifications spec.md gained since the import, appended as closed rounds (and
    an Imported block) after what the log holds; what it holds already is left alone."""
    import hashlib

    from mdgrill.checks.spec import next_round
    from mdgrill.core.reports import frontier_of
    from mdgrill.formats.progress import Change, Transition
    from mdgrill.shell.session import transaction

    rel_md = store.relpath_posix(path, spec.root)

    def step(prog: Progress) -> Transition[SpeckitUpdate]:
        record = prog.data.get("speckit")
        if not isinstance(record, dict):
            raise InputError("INVALID_INPUT", f"{spec.rel_progress} was not imported from "
                             "spec-kit (its front matter has no `speckit:`): nothing to update")
        phase = str(record.get("phase") or args.phase)
        iv = prog.data.get("interview")
        if isinstance(iv, dict) and iv.get("phase") == phase and \
                iv.get("status") in ("collecting", "awaiting_confirmation"):
            raise InputError("ILLEGAL_TRANSITION", f"the {phase} interview {iv.get('id')} is "
                             "open: finish it (or cancel it) before bringing in more spec-kit "
                             "sessions, which would end it")
        answered, _ = _answered(prog)
        known = {(speckit.same(q), speckit.same(a)) for q, a in answered}
        taken = set(prog.node_ids())
        sessions, skipped = _sessions(feature, known, taken)
        result: SpeckitUpdate = {
            "spec": spec.rel_folder, "path": spec.rel_progress, "spec_md": rel_md,
            "phase": phase, "rounds": len(sessions),
            "decisions": sum(len(pairs) for _, pairs in sessions),
            "ids": {node_id: item.line + 1 for _, pairs in sessions for node_id, item in pairs},
            "sessions": [s.to_json() for s, _ in sessions],
            "warnings": [f"{rel_md}:{line + 1}: not imported: {why}" for line, why in skipped],
        }
        change = Change()
        if not sessions:
            return Transition(change, result)
        first = next_round(prog.blocks, phase)
        _, frontier = frontier_of(prog)
        for _, pairs in sessions:
            change.insert_nodes.extend(speckit.node_lines(node_id, item, rel_md)
                                       for node_id, item in pairs)
        for heading, lines in speckit.round_blocks(sessions, HEADING_WORD[phase], rel_md,
                                                   first, frontier.frontier):
            change.block(heading, lines)
        change.updates["speckit"] = {**record, "sha256": hashlib.sha256(raw).hexdigest(),
                                     "sessions": int(record.get("sessions") or 0)
                                     + len(sessions)}
        return Transition(change, result)

    if args.dry_run:
        from mdgrill.shell.session import load

        prog = load(spec)
        change, result = step(prog)
        from mdgrill.formats.progress import apply_change

        text = apply_change(prog, change) if change.touches_log else prog.tf.text
        shown = unified_diff(prog.tf.text, text, display(spec.progress)) if args.diff else text
        result.update({"written": False, "text": shown, "dry_run": True})
        return Outcome(dict(result), shown)
    result = transaction(spec, step)
    head = (f"brought in {result['decisions']} clarification(s) from {display(path)} as "
            f"{result['rounds']} round(s)" if result["rounds"] else
            f"{display(path)} holds no clarification the spec lacks: nothing written")
    return Outcome(dict(result), "\n".join([head, *(f"warning: {w}" for w in result["warnings"])]))


def _render(spec: store.Spec, name: str, goal: str, title: str, phase: str, rel_md: str,
            raw: bytes, sessions: list[tuple[speckit.Session, Pairs]]) -> str:
    import hashlib

    body = "\n".join(speckit.body_lines(title, goal, HEADING_WORD[phase], rel_md, sessions))
    record: dict[str, object] = {
        "mdgrill": 1, "spec": name, "goal": goal, "phase": phase, "mode": "interactive",
        "required_sections": [], "interview": None, "skills": [],
        "speckit": {"spec_md": rel_md, "sha256": hashlib.sha256(raw).hexdigest(),
                    "sessions": len(sessions), "phase": phase},
    }
    return with_record(Progress(TextFile(body), spec.rel_progress), record)


def _ranges(rows: list[tuple[int, str]]) -> str:
    """`3-5, 9` from 0-based line numbers."""
    numbers = [i + 1 for i, _ in rows]
    out: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:] + [0]:
        if n == prev + 1:
            prev = n
            continue
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
        start = prev = n
    return ", ".join(out)


# -- export ---------------------------------------------------------------------------------

def _export(args: argparse.Namespace) -> Outcome:
    spec = spec_of(args)
    date = args.date or datetime.date.today().isoformat()
    if not _is_day(date):
        raise InputError("INVALID_INPUT", f"--date {date} is not a day as YYYY-MM-DD")
    from mdgrill.shell.session import load

    prog = load(spec)
    path = _target(args, spec, prog)
    shown = display(path)
    with store.Lock(spec.folder):
        raw = store.read_file(path, shown, spec.root)
        tf = decode(raw, shown)
        feature = speckit.read(tf)
        answered, unnamed = _answered(prog)
        pairs = speckit.missing(feature, answered)
        text = speckit.write_back(tf, feature, pairs, date)
        result: dict[str, object] = {
            "spec": spec.rel_folder, "spec_md": store.relpath_posix(path, spec.root),
            "session": date, "added": [{"question": q, "answer": a} for q, a in pairs],
            "already_there": sum(1 for q, a in answered if speckit.fits(q, a)) - len(pairs),
            "dry_run": bool(args.dry_run),
            "approved": _approved(prog), "warnings": [],
        }
        warnings: list[str] = []
        unfit = [q for q, a in answered if not speckit.fits(q, a)]
        if unfit:
            warnings.append(f"not exported, as spec-kit's `- Q: … → A: …` line cannot hold it "
                            f"(its question or answer holds `→ A:`): {'; '.join(unfit)}")
        if unnamed:
            warnings.append(f"{', '.join(unnamed)}: answered with no node to give the "
                            "question's words: add the node (`mdgrill node add`) to export it")
        if pairs and not result["approved"]:
            warnings.append("these answers are not approved yet: the phase's interview is not "
                            "confirmed in mdgrill")
        result["warnings"] = warnings
        if args.dry_run:
            out = unified_diff(tf.text, text, shown) if args.diff else text
            result.update({"written": False, "text": out})
            return Outcome(result, out)
        if text != tf.text:
            store.atomic_write(path, tf.with_text(text).encode(), expect=raw)
    result["written"] = text != tf.text
    head = (f"added {len(pairs)} answer(s) to {shown} under `### Session {date}`" if pairs
            else f"{shown} already holds every answered decision: nothing written")
    return Outcome(result, "\n".join([head, *(f"warning: {w}" for w in warnings)]))


def _is_day(text: str) -> bool:
    try:
        return datetime.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def _target(args: argparse.Namespace, spec: store.Spec, prog: Progress) -> str:
    if args.spec_md:
        path = os.path.abspath(str(args.spec_md))
    else:
        record = prog.data.get("speckit")
        rel = record.get("spec_md") if isinstance(record, dict) else None
        path = os.path.join(spec.root, rel) if isinstance(rel, str) else \
            os.path.join(spec.folder, SPEC_MD)
    path = store.require_in_work_tree(path, spec.root)  # `speckit.spec_md` may say anything
    if not os.path.isfile(path):
        raise InputError("NOT_FOUND", f"{display(path)} does not exist: give the feature's "
                         "spec.md with --spec-md PATH")
    return path


def _answered(prog: Progress) -> tuple[list[tuple[str, str]], list[str]]:
    """(question, answer) of each settled decision in ledger order, and the IDs settled with
    no node (no words for the question). Defaults a skip assumed are no one's answer."""
    from mdgrill.core.reports import ledger_entries
    from mdgrill.model.tree import DEFAULTED_ANSWER

    out: list[tuple[str, str]] = []
    unnamed: list[str] = []
    for entry in ledger_entries(prog):
        if entry.answer == DEFAULTED_ANSWER:
            continue
        if entry.question == entry.id:
            unnamed.append(entry.id)
            continue
        out.append((entry.question, entry.answer))
    return out, unnamed


def _approved(prog: Progress) -> bool:
    iv = prog.data.get("interview")
    return isinstance(iv, dict) and iv.get("status") == "complete"


VERBS = (
    Verb("import-speckit", "Turn a spec-kit spec.md's clarify sessions into rounds (spec.md is not"
         " touched).",
         _import_arguments, _import),
    Verb("export-speckit", "Write the answered decisions into spec.md's ## Clarifications, spec-"
         "kit's shape.",
         _export_arguments, _export),
)
