"""The interview operations, each with its whole rule set around the write.

One function per interview verb (docs/contract.md), its keyword arguments the verb's flags.
Each applies, in this one place, who is acting (`by`, else git's identity) and the owners map
of `.mdgrill.yaml`, the freshness of the context digest, the approval evidence, the `- By:`
signature, the lock–read–check–write transaction and the approval commit with its retry.
Every entry point (the CLI verbs, `answer`, `collect`, `watch`, the LSP, the MCP server and
`mdgrill.Spec`) records through these functions, so a rule that holds on one holds on all.
"""

from __future__ import annotations

import os

from mdgrill.core import machine
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.schema import PHASES
from mdgrill.services.result import (
    Allowed,
    Amended,
    AnswerRecorded,
    Began,
    Cancelled,
    Confirmed,
    Digest,
    FactRecorded,
    Mode,
    Opened,
    OutOfScope,
    Presented,
    Reopened,
    Revised,
    SkillsRecorded,
    Skipped,
    StopRecorded,
)
from mdgrill.shell import store
from mdgrill.shell.context import context_sources
from mdgrill.shell.people import each_section_rule, phase_rule, section_rule, signed, who
from mdgrill.shell.session import load, spec_hint, transaction

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from mdgrill.core.evidence import Evidence
    from mdgrill.core.machine.reports import BeganReport, ConfirmReport, Written
    from mdgrill.formats.progress import Progress, Transition
    from mdgrill.shell.project import Owners

    W = TypeVar("W", bound=Written)
    Step = Callable[[Progress], Transition[W]]


def fresh(spec: store.Spec, verb: str, step: Step[W]) -> Step[W]:
    """`step`, after the context digest is recomputed: "the helper re-reads those sources and
    recomputes the digest at every gate"."""
    def checked(prog: Progress) -> Transition[W]:
        iv = prog.data.get("interview")
        if isinstance(iv, dict) and iv.get("phase") in PHASES:
            digest, context = context_sources(prog, spec, str(iv["phase"]))
            machine.require_fresh(prog.data, digest, context, verb)
        return step(prog)
    return checked


def acting(spec: store.Spec, by: str | None) -> tuple[str | None, str | None, Owners]:
    """Who this operation speaks for (`by`, else git's identity), the account that runs it
    (git's identity: what the owners rule is held to, since `by` is only a claim the account
    relays), and the project's owners."""
    from mdgrill.shell.project import owners

    account = who(spec, None)
    return (who(spec, by) if by is not None else account), account, owners(spec.root)


def retry_command(spec: store.Spec, verb: str, *, phase: str = "", interview_id: str = "",
                  decision_id: str | None = None) -> str:
    """The command that, run again, commits an approval whose commit failed."""
    import shlex

    where = spec_hint(spec)  # as the user types it from here, not relative to the repository
    if verb == "begin-interview":
        return (f"mdgrill begin-interview {where} --phase {shlex.quote(phase)} "
                f"--interview-id {shlex.quote(interview_id)}")
    return (f"mdgrill confirm {where} --decision-id {shlex.quote(decision_id or 'CID')} "
            "--source approve-and-delegate")


def _interview_phase(prog: Progress) -> object:
    iv = prog.data.get("interview")
    return iv.get("phase") if isinstance(iv, dict) else None


# -- the operations -----------------------------------------------------------------------

def mode(spec: store.Spec, *, quick: bool = False, interactive: bool = False) -> Mode:
    """The spec's mode; with `quick` or `interactive`, set it (quick mode resets nothing
    else: only this explicit choice authorizes the bypass)."""
    if quick and interactive:
        raise InputError("USAGE", "quick and interactive are exclusive: choose one")
    if not quick and not interactive:
        from mdgrill.model.interview import quick_authorized

        prog = load(spec)
        shown = str(prog.data.get("mode", "interactive"))
        # a `mode: quick` typed by hand never bypasses: say whether this one would (issue 38)
        return Mode("mode", {"mode": shown, "written": False,
                               "quick_authorized": shown == "quick" and quick_authorized(prog)})
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Mode("mode", transaction(spec, lambda prog: machine.set_mode(prog.data, prog,
                                                                          quick, now)))


def record_skill_load(spec: store.Spec, *, input: str) -> SkillsRecorded:
    """Record the skill-load manifest (`input`: a JSON file, or - for stdin)."""
    from mdgrill.shell.skills import read_manifest

    header, skills = read_manifest(input, spec)
    return SkillsRecorded("record-skill-load", transaction(
        spec, lambda prog: machine.record_skill_load(prog.data, header, skills)))


def begin_interview(spec: store.Spec, *, phase: str, interview_id: str,
                    round: int | None = None, discovery_revision: str | None = None,
                    no_commit: bool = False) -> Began:
    """Begin (or resume) the phase's interview, recording the context digest; a quick-mode
    bypass is committed (or its failed commit retried)."""
    from mdgrill.core.skill_load import require_manifest
    from mdgrill.services.approvals import commit_transition, ignored_warning, retry_bypass
    from mdgrill.shell.context import skills_stale
    from mdgrill.shell.project import declared_skills

    def step(prog: Progress) -> Transition[BeganReport]:
        from mdgrill.core.artifact_gate import check_phase_order
        from mdgrill.shell.drift import guard_begin

        check_phase_order(prog, phase, interview_id)
        guard_begin(spec, prog, phase)
        warnings = machine.check_skills(prog.data, phase, interview_id, discovery_revision,
                                        skills_stale(prog.data, spec))
        require_manifest(prog.data, declared_skills(spec.root))
        digest, context = context_sources(prog, spec, phase)
        done = machine.begin_interview(prog.data, phase, interview_id, round,
                                       discovery_revision, digest, context, prog)
        done.report["warnings"] = warnings
        return done

    def retry() -> str:  # said only by a quick bypass's commit (resuming needs no shlex)
        return retry_command(spec, "begin-interview", phase=phase, interview_id=interview_id)

    try:
        result = transaction(spec, step)
    except GateRefusal as exc:
        # A quick bypass whose commit failed: the same begin-interview retries the commit.
        retried = None if exc.code != "INTERVIEW_TERMINAL" or no_commit else \
            retry_bypass(spec, phase, interview_id, retry=retry())
        if retried is None:
            raise
        return Began("begin-interview", retried, already_recorded=True)
    ignored = ignored_warning(spec)
    if ignored is not None:
        result["warnings"].append(ignored)
    data: dict[str, object] = dict(result)
    if result["status"] == "bypassed_quick" and not result["resumed"]:
        data.update(commit_transition(spec, "bypass", no_commit=no_commit, retry=retry()))
    return Began("begin-interview", data)


def open_frontier(spec: store.Spec, *, round: int, decision_ids: list[str]) -> Opened:
    """Open the current or next round for these decisions and record its Asked line."""
    return Opened("open-frontier", transaction(spec, fresh(
        spec, "open-frontier", lambda prog: machine.open_frontier(
            prog.data, prog, round, list(decision_ids), spec.rel_folder))))


def record_answer(spec: store.Spec, *, decision_id: str, answer: str, by: str | None = None,
                  other: bool = False, assumption: str | None = None) -> AnswerRecorded:
    """Record the user's answer to one pending decision: the one route every reply takes
    (`record-answer`, `answer`, `collect`, `watch`, the LSP, the MCP tools, `Spec`)."""
    if not answer.strip():
        raise InputError("EMPTY_ANSWER", "--answer is empty: record what the user decided")
    person, account, own = acting(spec, by)
    return AnswerRecorded("record-answer", transaction(spec, fresh(spec, "record-answer", signed(
        lambda prog: machine.record_answer(prog.data, prog, decision_id, answer, assumption,
                                           other),
        person, decision_id, section_rule(own, account, decision_id, "record-answer")))))


def record_fact(spec: store.Spec, *, text: str, decision_id: str | None = None,
                by: str | None = None) -> FactRecorded:
    """Record a fact found in the code or docs (it resolves the decision it names, so the
    owners of that decision's section are held to as for its answer)."""
    person, account, own = acting(spec, by)
    owned = None if decision_id is None else \
        section_rule(own, account, decision_id, "record-fact")
    return FactRecorded("record-fact", transaction(spec, fresh(spec, "record-fact", signed(
        lambda prog: machine.record_fact(prog.data, prog, text, decision_id),
        person, decision_id, owned))))


def out_of_scope(spec: store.Spec, *, decision_id: str, reply: str,
                 by: str | None = None) -> OutOfScope:
    """Record that the user placed an asked decision out of scope (`reply`: their words)."""
    person, account, own = acting(spec, by)
    return OutOfScope("out-of-scope", transaction(spec, fresh(spec, "out-of-scope", signed(
        lambda prog: machine.out_of_scope(prog.data, prog, decision_id, reply),
        person, decision_id, section_rule(own, account, decision_id, "out-of-scope")))))


def record_stop(spec: store.Spec, *, choice: str, section: str | None = None) -> StopRecorded:
    """Record the user's answer to `Ready to build?`: ship, keep-asking or refine."""
    return StopRecorded("record-stop", transaction(spec, fresh(
        spec, "record-stop", lambda prog: machine.record_stop(prog.data, prog, choice,
                                                              section))))


def cancel(spec: store.Spec, *, reply: str | None = None, by: str | None = None) -> Cancelled:
    """Record the user's Cancel: the interview stays open, nothing is delegated."""
    person = who(spec, by)
    return Cancelled("cancel", transaction(spec, signed(
        lambda prog: machine.cancel(prog.data, reply), person)))


def await_confirmation(spec: store.Spec, *, decision_id: str, approach: str,
                       brief_file: str | None = None) -> Presented:
    """Close the rounds and present the approach (and the brief, quoted) for approval."""
    brief: list[str] = []
    if brief_file:
        from mdgrill.formats.textfile import decode

        raw = store.read_file(brief_file, brief_file)
        brief = [line.rstrip("\r") for line in decode(raw, brief_file).text.split("\n")]
        while brief and not brief[-1].strip():
            brief.pop()
    return Presented("await-confirmation", transaction(spec, fresh(
        spec, "await-confirmation", lambda prog: machine.await_confirmation(
            prog.data, prog, decision_id, approach, brief))))


def evidence_for(spec: store.Spec, prog: Progress, decision_id: str, reply: str | None,
                 entries: list[dict[str, object]]) -> Evidence | None:
    """The captured answer that approves this brief (`services.evidence`); `--reply`, when
    given, must be those words. None when the brief is not awaiting (the machine refuses)."""
    from mdgrill.formats.progress import single_line
    from mdgrill.services.evidence import interview_evidence

    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("status") != "awaiting_confirmation":
        return None  # confirm refuses it (or retries its commit, which re-checks)
    found = interview_evidence(spec, prog, decision_id, entries)
    words = single_line(found.words, "the captured reply")
    if reply is not None and single_line(reply, "--reply") != words:
        raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                          f"--reply `{reply}` is not the user's captured answer to the approval "
                          f"question (`{words}`): record the user's own reply; nothing was "
                          "written")
    return found._replace(words=words)


def confirm(spec: store.Spec, *, decision_id: str, source: str = "approve-and-delegate",
            reply: str | None = None, by: str | None = None, no_commit: bool = False,
            sign: bool = False) -> Confirmed:
    """Record the user's explicit approval and commit it (a failed commit is retried by the
    same call); the owners of the phase, the captured reply and the channel that carried it
    (docs/approvals.md#channels) are checked first. `sign`: sign the commit (`git -S`)."""
    return confirm_over(spec, decision_id=decision_id, source=source, reply=reply, by=by,
                        no_commit=no_commit, sign=sign, terminal=False)


def journal_evidence(spec: store.Spec, decision_id: str,
                     reply: str | None) -> tuple[str, str] | None:
    """The user's captured answer to the brief `decision_id` answers, as (words, sha256);
    None where no journal is kept and the project does not ask for one; a refusal where one
    is and holds no such answer (`services.evidence`)."""
    from mdgrill.services.evidence import journal_entries

    entries = journal_entries(spec)
    if entries is None:
        return None
    found = evidence_for(spec, load(spec), decision_id, reply, entries)
    return None if found is None else (found.words, found.sha256)


def confirm_over(spec: store.Spec, *, decision_id: str, source: str, reply: str | None,
                 by: str | None, no_commit: bool, sign: bool, terminal: bool) -> Confirmed:
    """`confirm`, with `terminal` when `mdgrill approve` read the selection from the
    controlling terminal itself (the journal is then not asked)."""
    from mdgrill.services.approvals import (
        commit_transition,
        require_verified_record,
        retry_confirm,
    )
    from mdgrill.services.channels import confirm_carrier, relayed, require_accepted

    retry = retry_command(spec, "confirm", decision_id=decision_id)
    person: str | None = None
    evidence: tuple[str, str] | None = None
    try:
        person, account, own = acting(spec, by)
        require_verified_record(spec)
        # confirmed already, its commit failed: the commit is retried (with the evidence its
        # block names re-checked) before a channel is chosen, for the journal has nothing to
        # say about a brief no longer awaiting and `approval:` would refuse it as the agent's
        retried = None if no_commit else \
            retry_confirm(spec, decision_id, source, person=person, retry=retry, sign=sign)
        if retried is not None:
            return Confirmed("confirm", retried, already_recorded=True)
        signing = not no_commit and (sign or _signs_commits(spec))
        carrier = confirm_carrier(
            spec, reply, signing=signing, terminal=terminal,
            evidence_of=lambda spec, reply: journal_evidence(spec, decision_id, reply))
        require_accepted(spec, carrier.channel, decision_id)
        evidence = carrier.evidence

        def step(prog: Progress) -> Transition[ConfirmReport]:
            said = reply
            if evidence is not None:
                # the captured answer held again under the lock: the brief it answers must
                # still be the one shown (a brief put up meanwhile is another approval)
                from mdgrill.services.evidence import journal_entries

                found = evidence_for(spec, prog, decision_id, reply, journal_entries(spec) or [])
                if found is None or found.sha256 != evidence[1]:
                    raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                                      "the brief changed while the approval was being "
                                      "recorded: ask the approval question again; nothing "
                                      "was written")
                said = found.words
            done = machine.confirm(prog.data, prog, decision_id, source, said)
            change, result = done
            heading, lines = change.new_blocks[-1]
            lines = [*lines, f"- Channel: {carrier.channel}"]
            if evidence is not None:  # the Confirmed block names the captured reply
                lines.append(f"- Reply sha256: {evidence[1]}")
                result["reply_sha256"] = evidence[1]
            change.new_blocks[-1] = (heading, lines)
            result["channel"] = carrier.channel
            return done

        result = transaction(spec, fresh(spec, "confirm", relayed(signed(
            step, person, None, phase_rule(own, account, _interview_phase, "confirm")),
            person, account)))
    except GateRefusal as exc:
        # Already confirmed but its commit failed: the same confirm retries just the commit.
        retried = None if exc.code != "ILLEGAL_TRANSITION" or no_commit else \
            retry_confirm(spec, decision_id, source, person=person, retry=retry, sign=sign)
        if retried is None:
            raise
        return Confirmed("confirm", retried, already_recorded=True)
    data: dict[str, object] = dict(result)
    if not no_commit:
        data.update(commit_transition(spec, "approve", person=person, retry=retry,
                                      reply_sha256=evidence[1] if evidence else None,
                                      sign=sign))
    return Confirmed("confirm", data)


def _signs_commits(spec: store.Spec) -> bool:
    """Whether git will sign this spec's approval commit (`commit.gpgsign`)."""
    from mdgrill.git.discovery import in_repository

    if not in_repository(spec.root):
        return False
    from mdgrill.git.vcs import signs_commits

    return signs_commits(spec.root)


def skip(spec: store.Spec, *, reason: str, assumptions: list[str],
         decision_id: str = "skip-confirmation", by: str | None = None) -> Skipped:
    """Skip the remaining decisions with recorded assumptions (confirm follows); each
    decision it defaults is held to its section's owners, as its answer would be."""
    person, account, own = acting(spec, by)
    return Skipped("skip", transaction(spec, fresh(spec, "skip", signed(
        _each_owned(lambda prog: machine.skip(prog.data, prog, reason, list(assumptions),
                                              decision_id),
                    lambda report: report["defaulted"], own, account, "skip"),
        person))))


def _each_owned(step: Step[W], ids: Callable[[W], list[str]], own: Owners,
                account: str | None, verb: str) -> Step[W]:
    """`step`, refused where a decision its report names (`ids`) lies in a section whose
    owners do not include the account: a skip's default settles a decision as an answer
    does, and a revise's reopening takes its answer back. Checked on the transition (which
    works out those decisions), before anything is written."""
    def run(prog: Progress) -> Transition[W]:
        done = step(prog)
        each_section_rule(own, account, ids(done.report), verb)(prog)
        return done
    return run


def reopen(spec: store.Spec, *, phase: str, reason: str, by: str | None = None,
           no_commit: bool = False) -> Reopened:
    """Go back to an earlier phase, setting aside the approvals since (committed)."""
    from mdgrill.core.artifact_gate import reopen as reopen_phase

    person, account, own = acting(spec, by)
    report = transaction(spec, signed(
        lambda prog: reopen_phase(prog.data, prog.blocks, phase, reason), person, None,
        phase_rule(own, account, lambda prog: phase, "reopen")))
    result: dict[str, object] = dict(report)
    if no_commit:
        result.update({"commit": None, "commit_skipped": "--no-commit"})
    else:
        from mdgrill.services.approvals import commit_reopen

        result.update(commit_reopen(spec, report, person))
    return Reopened("reopen", result)


def amend(spec: store.Spec, *, decision_id: str, answer: str, reason: str,
          by: str | None = None) -> Amended:
    """Correct a recorded answer's wording (an Amended block; the log stays append-only):
    the decision's section owners and the context's freshness hold as for its answer."""
    person, account, own = acting(spec, by)
    return Amended("amend", transaction(spec, fresh(spec, "amend", signed(
        lambda prog: machine.amend(prog.data, prog, decision_id, answer, reason),
        person, decision_id, section_rule(own, account, decision_id, "amend")))))


def revise(spec: store.Spec, *, decision_ids: list[str],
           keep: list[str] | None = None) -> Revised:
    """Reopen decisions (and their answered dependents, but those in `keep`) after the
    brief: each decision it reopens, a dependent too, is held to its section's owners, as
    its answer was (a dependent in a section that is not the account's can be kept)."""
    _, account, own = acting(spec, None)
    return Revised("revise", transaction(spec, fresh(spec, "revise", _each_owned(
        lambda prog: machine.revise(prog.data, prog, list(decision_ids), list(keep or [])),
        lambda report: report["reopened"], own, account, "revise"))))


def check_delegation(spec: store.Spec, *, phase: str, interview_id: str,
                     context_digest: str | None = None,
                     discovery_revision: str | None = None, prompt: str | None = None,
                     prompt_file: str | None = None) -> Allowed:
    """Allow delegation only for an approved, current interview (refusals raise); the
    delegated prompt (`prompt`, or the file `prompt_file`), when given, must pass the prompt
    checks."""
    from mdgrill.services.delegation import check_delegation as check

    if prompt is not None and prompt_file is not None:
        raise InputError("USAGE", "give the prompt as text or as a file, not both")
    delegated = ("prompt", prompt) if prompt is not None else None
    if prompt_file is not None:
        from mdgrill.formats.textfile import decode

        data = store.read_file(os.path.abspath(prompt_file), prompt_file)
        delegated = (prompt_file, decode(data, prompt_file).text)
    result, _ = check(spec, phase, interview_id, context_digest, discovery_revision, delegated)
    return Allowed("check-delegation", result)


def digest(spec: store.Spec, *, phase: str | None = None, compat: str | None = None) -> Digest:
    """The context digest the spec's phase would record now (and whether it went stale)."""
    prog = load(spec, check=False)
    iv = prog.data.get("interview")
    chosen = phase or (iv.get("phase") if isinstance(iv, dict) else None) or \
        prog.data.get("phase")
    if not isinstance(chosen, str) or chosen not in PHASES:
        raise InputError("INVALID_PHASE", "the spec has no phase: pass --phase")
    if compat == "ralph":
        from mdgrill.shell.context import ralph_digest

        value, sources = ralph_digest(prog, spec, chosen)
        return Digest("digest", {"phase": chosen, "context_digest": value, "compat": "ralph",
                                 "sources": sources})
    if compat is not None:
        raise InputError("USAGE", f"unknown compat `{compat}`: the one known is ralph")
    value, context = context_sources(prog, spec, chosen, exact_goal=False)
    recorded = iv.get("context_digest") if isinstance(iv, dict) and iv.get("phase") == chosen \
        else None
    return Digest("digest", {"phase": chosen, "context_digest": value, "sources": context,
                             "recorded": recorded,
                             "stale": recorded is not None and recorded != value})
