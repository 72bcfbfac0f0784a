"""`validate`'s entry points for a `.progress.md`, and the checks that compare the record with
its log."""

from __future__ import annotations

import gc

from mdgrill.checks.spec.blocks import check_blocks
from mdgrill.checks.spec.front import check_front_matter, check_log_digest, check_sections, key_line
from mdgrill.checks.spec.keys import LINE_COL_PREFIX
from mdgrill.checks.spec.tree import NodeChecks, check_ledger, check_nodes
from mdgrill.diagnostics import Diagnostic, error, sort_diagnostics
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.formats.schema import TERMINAL

# ---------------------------------------------------------------------------------------
# Entry points


def validate_progress_bytes(data: bytes, path: str) -> list[Diagnostic]:
    """Decode, parse and check a `.progress.md`; unreadable input is one error diagnostic.

    The parse is freed before the cycle collector is back on: it holds no reference cycle,
    so reference counting frees it, and a collection run while it was still alive would
    walk its ~15 objects a round once for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return validate_progress_parsed(data, path)[0]
    finally:
        if collecting:
            gc.enable()


def validate_progress_parsed(data: bytes, path: str) -> tuple[list[Diagnostic], Progress | None]:
    """`validate_progress_bytes`, and the parse it checked (None when the file does not read),
    for the checks that go on to read the files it names."""
    from mdgrill.formats.progress import read_progress

    if not data or data.isspace():  # not data.strip(): no copy of a large file
        return [error(path, 1, "EMPTY_FILE", "the file is empty: create it with `mdgrill init "
                      "SPEC --goal TEXT`, or restore it from git")], None
    try:
        prog = read_progress(data, path)
        return sort_diagnostics(check_progress(prog)), prog
    except InputError as exc:
        return [from_input_error(exc, path)], None
    except RecursionError:
        return [error(path, 1, "MALFORMED_FILE", "the file nests too deeply to read")], None


def from_input_error(exc: MdgrillError, path: str) -> Diagnostic:
    """An InputError raised while reading a file, as an error diagnostic at its line."""
    message = exc.message
    line = exc.line or 1
    col = 1
    m = LINE_COL_PREFIX.match(message, len(path)) if message.startswith(path + ":") else None
    if m is not None:
        line, col = int(m.group(1)), int(m.group(2))
        message = message[m.end():]
    return error(path, line, exc.code, message, col)


def check_progress(prog: Progress, nodes: NodeChecks | None = None) -> list[Diagnostic]:
    """Every problem of a parsed `.progress.md`: record, log, blocks, tree, ledger. One
    reading: the tree is checked from its lines' tokens (`check_nodes`), the rounds and the
    ledger from the log's (`Progress.read_log_rows`). `nodes`: what was said of an earlier
    version's nodes (the language server's revalidation, see `check_nodes`); its caller
    reads the log's rows when the ledger is to be read afresh (`lsp.revalidate`), and the
    round checks read them when the log's seal does not hold (`check_blocks`)."""
    # The parts, their bullets and the ledger are ~15 objects a round, all kept until the
    # checks end: the cycle collector, scanning them again and again as they pile up, made
    # a 10,000-round file cost 1.7 times as much. Paused here only, and put back as found.
    collecting = gc.isenabled()
    gc.disable()
    try:
        # the round checks and the ledger read every block, from one pass of the log's
        # line tokens (`read_log_rows`: no entry made for a block nobody asks about)
        if nodes is None:
            prog.read_log_rows()
        out: list[Diagnostic] = []
        out.extend(check_front_matter(prog))
        out.extend(check_sections(prog))
        out.extend(check_log_digest(prog))
        out.extend(check_blocks(prog))
        out.extend(check_nodes(prog, nodes))
        out.extend(check_ledger(prog))
        out.extend(check_phase_approval(prog))
        out.extend(check_record_against_log(prog))
        out.extend(check_asked(prog))
        out.extend(check_approval_scope(prog))
        return out
    finally:
        if collecting:
            gc.enable()


def check_approval_scope(prog: Progress) -> list[Diagnostic]:
    """An approved interview's scope (model/scope.py) still what the user approved: a tree,
    answer or brief changed after approval is APPROVAL_SCOPE_CHANGED, naming what changed."""
    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("status") not in ("complete", "skipped"):
        return []
    from mdgrill.model.scope import confirmed_id, scope_now, scope_refusal

    phase = str(iv.get("phase"))
    approved = confirmed_id(prog, phase)
    if approved is None:
        return []
    found = scope_now(prog, phase, str(iv.get("id")), approved, str(iv.get("context_digest")))
    if found is None:
        return []
    recorded, now, block = found
    why = scope_refusal(prog, recorded, now, block)
    if why is None:
        return []
    return [error(prog.path, block.line + 1, "APPROVAL_SCOPE_CHANGED", why)]


def check_asked(prog: Progress) -> list[Diagnostic]:
    """Every ID the interview's rounds asked has an outcome or is still pending, and keeps
    its node: an asked decision never vanishes by hand (issue 31.5)."""
    iv = prog.data.get("interview")
    if not isinstance(iv, dict):
        return []
    from mdgrill.model.interview import KEPT_ELSEWHERE, asked_gaps

    out: list[Diagnostic] = []
    for gap in asked_gaps(prog, iv):
        where = f"round {gap.round}" if gap.round is not None else "a round"
        if gap.code == "ASKED_WITHOUT_OUTCOME":
            message = (f"{gap.node_id} was asked in {where} and has no outcome: no answer, "
                       "fact, out-of-scope reply or skip settles it, and `pending:` no longer "
                       "lists it. An asked decision is answered, placed out of scope by the "
                       f"user or skipped, or stays pending: put {gap.node_id} back in "
                       "`pending:` (git holds the version that lists it) and record the "
                       "user's reply")
        else:
            message = (f"{gap.node_id} was asked in {where}, but its node is gone from the "
                       f"design tree: a node that was asked stays in the tree (its answer, or "
                       f"the question the user saw, refers to it). Put `### {gap.node_id}: …` "
                       "back in `## Design Tree` (git holds it); a decision kept outside the "
                       f"tree is named on a `- {KEPT_ELSEWHERE}:` line when it is asked")
        out.append(error(prog.path, gap.line + 1, gap.code, message))
    return out


def check_record_against_log(prog: Progress) -> list[Diagnostic]:
    """The interview record agrees with the log: its round is the log's open round, a
    terminal status has the block that recorded it, quick mode has its authorization."""
    iv = prog.data.get("interview")
    out: list[Diagnostic] = []
    if prog.data.get("mode") == "quick":
        from mdgrill.model.interview import quick_authorized

        if not quick_authorized(prog):
            out.append(error(prog.path, key_line(prog, "mode"), "QUICK_NOT_AUTHORIZED",
                             "`mode: quick` without its authorization block: only `mdgrill "
                             "mode SPEC --quick` authorizes a bypass; set `mode: interactive`, "
                             "or run that command"))
    if not isinstance(iv, dict):
        return out
    phase, status, iid = iv.get("phase"), iv.get("status"), iv.get("id")
    from mdgrill.model.interview import interview_blocks

    line = key_line(prog, "interview")
    blocks = [b for b in prog.blocks if b.phase == phase]
    if status in TERMINAL:
        kind = "bypassed" if status == "bypassed_quick" else "confirmed"
        recorded = [b for b in blocks if b.kind == kind]
        # smart-ralph's own Confirmed blocks name no interview: read as this one's
        if not any(b.first("Interview") in (iid, None) for b in recorded):
            word = "Bypassed" if kind == "bypassed" else "Confirmed"
            out.append(error(prog.path, line, "APPROVAL_NOT_RECORDED",
                             f"interview {iid} is {status}, but the log has no `{word}` block "
                             f"for it: a status typed by hand is not an approval; set it back "
                             "and run `mdgrill confirm` (or restore the file from git)"))
        return out
    # headings are enough here: a 10,000-round log is not parsed line by line
    rounds = [b for b in interview_blocks(blocks, str(phase)) if b.kind == "round"]
    if status == "collecting" and rounds and rounds[-1].round != iv.get("round"):
        out.append(error(prog.path, line, "ROUND_MISMATCH",
                         f"the record says round {iv.get('round')} but the log's last round of "
                         f"this interview is {rounds[-1].round}: the next verb would write a "
                         "round out of sequence; restore the front matter from git (`mdgrill "
                         "restore`) or set `round:` to the log's"))
    return out


def check_phase_approval(prog: Progress) -> list[Diagnostic]:
    """A spec past its artifact's phase has the `Approved` block of that artifact."""
    art = prog.data.get("artifact")
    phase = prog.data.get("phase")
    if not isinstance(art, dict) or phase == art.get("phase"):
        return []
    from mdgrill.model.artifact import next_phase

    if phase != next_phase(str(art.get("phase"))):
        return []
    if any(b.kind == "artifact_approved" and b.phase == art.get("phase")
           for b in prog.blocks):
        return []
    return [error(prog.path, key_line(prog, "phase"), "PHASE_NOT_APPROVED",
                  f"`phase: {phase}` is past the {art.get('phase')} artifact, but the log has "
                  f"no `{str(art.get('phase')).title()} Artifact - Approved` block: a phase "
                  "advances only by `mdgrill approve-artifact`; set the phase back")]
