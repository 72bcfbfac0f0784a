"""The interview verbs (docs/contract.md): thin wrappers around `machine` inside a transaction."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mdgrill.cli.verbs import Outcome, spec_of
from mdgrill.core import machine
from mdgrill.core.gate import quick_authorized
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Change, Progress
from mdgrill.model.record import PHASES
from mdgrill.shell import store
from mdgrill.shell.context import context_sources, skills_stale
from mdgrill.shell.people import phase_rule, section_rule, signed, who
from mdgrill.shell.session import load, transaction

if TYPE_CHECKING:
    from collections.abc import Callable

    from mdgrill.shell.project import Owners


# The verbs that record what a person said: each names them (`- By:`).
BY_VERBS = frozenset({"record-answer", "record-fact", "out-of-scope", "confirm", "skip",
                      "cancel", "amend", "reopen"})


def configure(verb: str, p: argparse.ArgumentParser) -> None:  # noqa: C901 - one branch a verb
    if verb != "classify-reply":
        p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
    if verb in ("confirm", "cancel"):
        p.add_argument("--reply", metavar="TEXT", help="the user's verbatim reply to the "
                       "approval question; recorded in the block (for confirm it must be the "
                       "explicit selection `Approve and delegate`)")
    if verb in BY_VERBS:
        p.add_argument("--by", metavar="NAME", help="who gave it (`Name <email>` or a name); "
                       "default: git's identity (`git var GIT_AUTHOR_IDENT`)")
    if verb == "mode":
        group = p.add_mutually_exclusive_group()
        group.add_argument("--quick", action="store_true", help="quick mode: interviews are "
                           "bypassed (only this exact flag authorizes it)")
        group.add_argument("--interactive", action="store_true", help="interactive mode")
    elif verb == "record-skill-load":
        p.add_argument("--input", required=True, metavar="FILE", help="manifest JSON file, or - "
                       "for stdin")
    elif verb == "begin-interview":
        p.add_argument("--phase", required=True, choices=PHASES)
        p.add_argument("--interview-id", required=True, metavar="ID")
        p.add_argument("--round", type=int, metavar="N", help="round to begin at (default 1)")
        p.add_argument("--discovery-revision", metavar="R")
        p.add_argument("--no-commit", action="store_true", help="in quick mode, do not commit "
                       "the bypass")
    elif verb == "open-frontier":
        p.add_argument("--round", type=int, required=True, metavar="N")
        p.add_argument("--decision-id", action="append", required=True, metavar="ID",
                       help="repeat for each decision asked in this round")
    elif verb == "record-answer":
        p.add_argument("--decision-id", required=True, metavar="ID")
        p.add_argument("--answer", required=True, metavar="TEXT",
                       help="the user's reply: an option's label or number, `go with your "
                       "recommendation` (records the recommended option), or their own words")
        p.add_argument("--assumption", metavar="TEXT")
        p.add_argument("--other", action="store_true", help="the user chose `Other` and wrote "
                       "this: a specific follow-up node (`node add --spawned-by`) is then "
                       "required before await-confirmation")
    elif verb == "record-fact":
        p.add_argument("text", metavar="TEXT", help="the fact, e.g. `sessions are JWT "
                       "(src/auth/session.py)`")
        p.add_argument("--decision-id", metavar="ID", help="the node this fact resolves")
    elif verb == "out-of-scope":
        p.add_argument("--decision-id", required=True, metavar="ID")
        p.add_argument("--reply", required=True, metavar="TEXT", help="the user's own words "
                       "that place it out of scope (out of scope is the user's call)")
    elif verb == "record-stop":
        p.add_argument("--choice", required=True, choices=["ship", "keep-asking", "refine"],
                       help="the user's answer to Ready to build?")
        p.add_argument("--section", metavar="S", help="with refine: the section to refine")
    elif verb == "classify-reply":
        p.add_argument("--text", required=True, metavar="T")
        p.add_argument("--spec", metavar="SPEC", help="with --decision-id: read the decision's "
                       "options, so a label or number is recognised as that option")
        p.add_argument("--decision-id", metavar="ID")
        p.add_argument("--option", action="append", default=[], metavar="T",
                       help="an option of the decision (instead of --spec); --recommend N marks "
                       "the recommended one")
        p.add_argument("--recommend", type=int, metavar="N")
    elif verb == "await-confirmation":
        p.add_argument("--decision-id", required=True, metavar="CID", help="the confirmation ID")
        p.add_argument("--approach", required=True, metavar="TEXT")
        p.add_argument("--brief-file", metavar="F", help="the decision brief (Markdown), quoted "
                       "into the log")
    elif verb == "confirm":
        p.add_argument("--decision-id", required=True, metavar="CID")
        p.add_argument("--source", required=True, help="must be approve-and-delegate")
        p.add_argument("--no-commit", action="store_true", help="do not commit the approval")
    elif verb == "skip":
        p.add_argument("--reason", required=True, metavar="T")
        p.add_argument("--assumption", action="append", default=[], metavar="T",
                       help="at least one: what stands in for the defaulted decisions")
        p.add_argument("--decision-id", default="skip-confirmation", metavar="CID")
    elif verb == "reopen":
        p.add_argument("--phase", required=True, choices=PHASES, help="the phase to go back to "
                       "(or the current one, to redo it)")
        p.add_argument("--reason", required=True, metavar="TEXT", help="why (one line)")
        p.add_argument("--no-commit", action="store_true", help="do not commit the reopening")
    elif verb == "amend":
        p.add_argument("--decision-id", required=True, metavar="ID")
        p.add_argument("--answer", required=True, metavar="TEXT", help="the corrected wording")
        p.add_argument("--reason", required=True, metavar="TEXT", help="why (e.g. `typo`)")
    elif verb == "revise":
        p.add_argument("--decision-id", action="append", required=True, metavar="ID")
    elif verb == "check-delegation":
        p.add_argument("--phase", required=True, choices=PHASES)
        p.add_argument("--interview-id", required=True, metavar="ID")
        p.add_argument("--context-digest", metavar="D")
        p.add_argument("--discovery-revision", metavar="R")
    elif verb == "digest":
        p.add_argument("--phase", choices=PHASES, help="default: the spec's phase")
        p.add_argument("--compat", choices=["ralph"], help="smart-ralph's digest "
                       "(ralph-phase-context-v1, absolute paths)")


def run(args: argparse.Namespace) -> Outcome:
    verb = args.verb
    if verb == "classify-reply":
        return _classify(args)
    spec = spec_of(args)
    handler = _HANDLERS[verb]
    return handler(spec, args)


def _classify(args: argparse.Namespace) -> Outcome:
    from mdgrill.model.replies import classify, overall, split_by_question

    options: list[str] = list(args.option)
    recommended = args.recommend
    if args.spec is not None:
        if args.decision_id is None:
            raise InputError("USAGE", "--spec goes with --decision-id (the decision answered)")
        spec = store.resolve_spec(args.spec, args.root)
        node = load(spec).node(machine.require_id(args.decision_id))
        if node is not None:
            options, recommended = node.choices()
    reply = classify(args.text, options, recommended)
    result = reply.to_json()
    parts = split_by_question(args.text)
    if len(parts) > 1:
        classified = [(n, classify(text)) for n, text in parts]
        result["parts"] = [{"question": n, "text": text, **r.to_json()}
                           for (n, r), (_, text) in zip(classified, parts, strict=True)]
        result["classification"] = overall([r.kind for _, r in classified])
    return Outcome(result, str(result["classification"]))


def _fresh(spec: store.Spec, verb: str,
           step: Callable[[Progress], tuple[Change, dict[str, object]]],
           ) -> Callable[[Progress], tuple[Change, dict[str, object]]]:
    """`step`, after the context digest is recomputed: "the helper re-reads those sources and
    recomputes the digest at every gate"."""
    def checked(prog: Progress) -> tuple[Change, dict[str, object]]:
        iv = prog.data.get("interview")
        if isinstance(iv, dict) and iv.get("phase") in PHASES:
            digest, context = context_sources(prog, spec, str(iv["phase"]))
            machine.require_fresh(prog.data, digest, context, verb)
        return step(prog)
    return checked


def _mode(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    if not args.quick and not args.interactive:
        prog = load(spec)
        mode = str(prog.data.get("mode", "interactive"))
        return Outcome({"mode": mode, "written": False}, f"mode: {mode}")
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    result = transaction(spec, lambda prog: machine.set_mode(prog.data, prog, bool(args.quick),
                                                             now))
    text = f"mode: {result['mode']}" + (" (the interview was reset)" if result["interview_reset"]
                                        else "")
    return Outcome(result, text)


def _record_skill_load(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.shell.skills import read_manifest

    header, skills = read_manifest(args.input, spec)
    result = transaction(spec, lambda prog: machine.record_skill_load(prog.data, header, skills))
    text = f"recorded {len(skills)} skill(s)"
    if result["interview_reset"]:
        text += "; the manifest changed, so the interview was reset"
    for warning in result["warnings"]:  # type: ignore[attr-defined]
        text += f"\nwarning: {warning}"
    return Outcome(result, text)


def _begin(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    def step(prog: Progress) -> tuple[Change, dict[str, object]]:
        from mdgrill.core.artifact_gate import check_phase_order
        from mdgrill.shell.drift import guard_begin

        check_phase_order(prog.data, prog.blocks, args.phase, args.interview_id)
        guard_begin(spec, prog, args.phase)
        warnings = machine.check_skills(prog.data, args.phase, args.interview_id,
                                        args.discovery_revision, skills_stale(prog.data, spec))
        digest, context = context_sources(prog, spec, args.phase)
        change, result = machine.begin_interview(prog.data, args.phase, args.interview_id,
                                                 args.round, args.discovery_revision, digest,
                                                 context, quick_authorized(prog))
        result["warnings"] = warnings
        return change, result

    try:
        result = transaction(spec, step)
    except GateRefusal as exc:
        # A quick bypass whose commit failed: the same begin-interview retries the commit.
        from mdgrill.services.approvals import retry_bypass

        retried = None if exc.code != "INTERVIEW_TERMINAL" or args.no_commit else \
            retry_bypass(spec, args.phase, args.interview_id, retry=_retry_text(spec, args))
        if retried is None:
            raise
        return Outcome(retried, f"{args.phase} interview {args.interview_id} is bypassed_quick "
                       "(already recorded)" + _commit_text(retried))
    verb = "resumed" if result["resumed"] else "began"
    text = f"{verb} {args.phase} interview {args.interview_id}: {result['status']}, round " \
           f"{result['round']}"
    from mdgrill.services.approvals import ignored_warning

    warnings = result["warnings"]
    assert isinstance(warnings, list)
    ignored = ignored_warning(spec)
    if ignored is not None:
        warnings.append(ignored)
    text += "".join(f"\nwarning: {w}" for w in warnings)
    if result["status"] == "bypassed_quick" and not result["resumed"]:
        from mdgrill.services.approvals import commit_transition

        commit = commit_transition(spec, "bypass", no_commit=args.no_commit,
                                   retry=_retry_text(spec, args))
        result.update(commit)
        text += _commit_text(commit)
    return Outcome(result, text)


def _open_frontier(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    result = transaction(spec, _fresh(spec, "open-frontier", lambda prog: machine.open_frontier(
        prog.data, prog, args.round, args.decision_id, args.spec)))
    pending = result["pending"]
    assert isinstance(pending, list)
    text = f"round {result['round']}: pending {', '.join(pending) or 'none'}"
    rest = result.get("frontier_not_yet_asked")
    if isinstance(rest, list) and rest:
        text += f"\nthis round must still ask: {', '.join(rest)}"
    return Outcome(result, text + _warnings(result))


def _warnings(result: dict[str, object]) -> str:
    warnings = result.get("warnings") or []
    return "".join(f"\nwarning: {w}" for w in warnings) if isinstance(warnings, list) else ""


def _retry_text(spec: store.Spec, args: argparse.Namespace) -> str:
    """The command that, run again, commits an approval whose commit failed."""
    import shlex

    where = getattr(args, "spec", None) or spec.rel_folder
    if args.verb == "begin-interview":
        return (f"mdgrill begin-interview {shlex.quote(where)} --phase "
                f"{shlex.quote(str(args.phase))} --interview-id "
                f"{shlex.quote(str(args.interview_id))}")
    cid = getattr(args, "decision_id", None) or "CID"
    return (f"mdgrill confirm {shlex.quote(where)} --decision-id {shlex.quote(str(cid))} "
            "--source approve-and-delegate")


def _person(spec: store.Spec, args: argparse.Namespace) -> tuple[str | None, Owners]:
    """Who this verb speaks for (kept on `args` for the approval commit), and the owners."""
    from mdgrill.shell.project import owners

    args.person = who(spec, args.by)
    return args.person, owners(spec.root)


def _interview_phase(prog: Progress) -> object:
    iv = prog.data.get("interview")
    return iv.get("phase") if isinstance(iv, dict) else None


def _record_answer(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    if not args.answer.strip():
        raise InputError("EMPTY_ANSWER", "--answer is empty: record what the user decided")
    person, own = _person(spec, args)
    result = transaction(spec, _fresh(spec, "record-answer", signed(
        lambda prog: machine.record_answer(prog.data, prog, args.decision_id, args.answer,
                                           args.assumption, args.other),
        person, args.decision_id,
        section_rule(own, person, args.decision_id, "record-answer"))))
    pending = result["pending"]
    assert isinstance(pending, list)
    text = f"recorded {args.decision_id} -> {result['recorded']}; pending: " \
           f"{', '.join(pending) or 'none'}"
    if result.get("next"):
        text += f"\nnext: {result['next']}"
    return Outcome(result, text)


def _record_fact(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    person, _ = _person(spec, args)
    result = transaction(spec, _fresh(spec, "record-fact", signed(
        lambda prog: machine.record_fact(prog.data, prog, args.text, args.decision_id),
        person, args.decision_id)))
    return Outcome(result, "recorded the fact")


def _out_of_scope(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    person, own = _person(spec, args)
    result = transaction(spec, _fresh(spec, "out-of-scope", signed(
        lambda prog: machine.out_of_scope(prog.data, prog, args.decision_id, args.reply),
        person, args.decision_id,
        section_rule(own, person, args.decision_id, "out-of-scope"))))
    return Outcome(result, f"{args.decision_id} is out of scope")


def _record_stop(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    result = transaction(spec, _fresh(spec, "record-stop", lambda prog: machine.record_stop(
        prog.data, prog, args.choice, args.section)))
    return Outcome(result, f"recorded the choice {args.choice}\nnext: {result['next']}")


def _cancel(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    person, _ = _person(spec, args)
    result = transaction(spec, signed(lambda prog: machine.cancel(prog.data, args.reply),
                                      person))
    return Outcome(result, f"cancelled: the interview stays {result['status']}; "
                           "stop without delegating")


def _await(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    brief: list[str] = []
    if args.brief_file:
        from mdgrill.formats.textfile import decode

        raw = store.read_file(args.brief_file, args.brief_file)
        brief = [line.rstrip("\r") for line in decode(raw, args.brief_file).text.split("\n")]
        while brief and not brief[-1].strip():
            brief.pop()
    result = transaction(spec, _fresh(spec, "await-confirmation",
                                      lambda prog: machine.await_confirmation(
                                          prog.data, prog, args.decision_id, args.approach,
                                          brief)))
    return Outcome(result, f"awaiting confirmation {args.decision_id}: ask "
                           + " / ".join(machine.APPROVAL_OPTIONS))


def _commit_text(commit: dict[str, object]) -> str:
    if commit.get("commit"):
        return f"\ncommitted {str(commit['commit'])[:12]}"
    if commit.get("commit_skipped"):
        return f"\nnot committed: {commit['commit_skipped']}"
    return ""


def _evidence(spec: store.Spec, args: argparse.Namespace) -> tuple[str, str] | None:
    """(the user's words, their sha256) from the reply journal when the repository keeps one
    (or the project requires one); None when the approval rests on `--reply`."""
    from mdgrill.formats.progress import single_line
    from mdgrill.shell import journal
    from mdgrill.shell.project import requires_evidence

    found = journal.entries(spec.root)
    if found is None and not requires_evidence(spec.root):
        return None
    iv = load(spec).data.get("interview")
    interview = str(iv.get("id")) if isinstance(iv, dict) else ""
    entry = journal.last_reply_while_awaiting(spec.root, spec.rel_folder, interview)
    if entry is None:
        raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                          f"no reply of the user was captured while interview {interview} "
                          "awaited confirmation (the plugin's UserPromptSubmit and "
                          "AskUserQuestion hooks keep them): ask the approval question "
                          "(`mdgrill ask SPEC`) and let the user answer; nothing was written")
    words = single_line(journal.reply_words(entry), "the captured reply")
    if args.reply is not None and single_line(args.reply, "--reply") != words:
        raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                          f"--reply `{args.reply}` is not what the user said last (captured: "
                          f"`{words}`): record the user's own reply; nothing was written")
    return words, str(entry.get("sha256"))


def _confirm(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    try:
        person, own = _person(spec, args)
        evidence = _evidence(spec, args)
        reply = evidence[0] if evidence else args.reply

        def step(prog: Progress) -> tuple[Change, dict[str, object]]:
            change, result = machine.confirm(prog.data, prog, args.decision_id, args.source,
                                             reply)
            if evidence is not None:  # the Confirmed block names the captured reply
                heading, lines = change.new_blocks[-1]
                change.new_blocks[-1] = (heading, [*lines, f"- Reply sha256: {evidence[1]}"])
                result["reply_sha256"] = evidence[1]
            return change, result

        result = transaction(spec, _fresh(spec, "confirm", signed(
            step, person, None, phase_rule(own, person, _interview_phase, "confirm"))))
    except GateRefusal as exc:
        # Already confirmed but its commit failed: the same confirm retries just the commit.
        from mdgrill.services.approvals import retry_confirm

        retried = None if exc.code != "ILLEGAL_TRANSITION" or args.no_commit else \
            retry_confirm(spec, args.decision_id, args.source,
                          person=getattr(args, "person", None), retry=_retry_text(spec, args))
        if retried is None:
            raise
        return Outcome(retried, f"interview {retried['status']} (already recorded)"
                       + _commit_text(retried))
    text = f"interview {result['status']}"
    if not args.no_commit:
        from mdgrill.services.approvals import commit_transition

        commit = commit_transition(spec, "approve", person=person,
                                   retry=_retry_text(spec, args),
                                   reply_sha256=evidence[1] if evidence else None)
        result.update(commit)
        text += _commit_text(commit)
    exit_code = 0
    return Outcome(result, text, exit_code)


def _skip(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    person, _ = _person(spec, args)
    result = transaction(spec, _fresh(spec, "skip", signed(
        lambda prog: machine.skip(prog.data, prog, args.reason, args.assumption,
                                  args.decision_id), person)))
    return Outcome(result, f"skip recorded; confirm {args.decision_id} to finish")


def _reopen(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core.artifact_gate import reopen

    person, own = _person(spec, args)
    result = transaction(spec, signed(
        lambda prog: reopen(prog.data, prog.blocks, args.phase, args.reason), person, None,
        phase_rule(own, person, lambda prog: args.phase, "reopen")))
    superseded = result["superseded"]
    assert isinstance(superseded, list)
    text = f"reopened {args.phase} (from {result['from_phase']}): set aside " \
           f"{'; '.join(superseded)}\nnext: begin the {args.phase} interview under a new ID"
    if not args.no_commit:
        from mdgrill.services.approvals import commit_reopen

        commit = commit_reopen(spec, result, person)
        result.update(commit)
        text += _commit_text(commit)
    else:
        result.update({"commit": None, "commit_skipped": "--no-commit"})
    return Outcome(result, text)


def _amend(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    person, _ = _person(spec, args)
    result = transaction(spec, signed(
        lambda prog: machine.amend(prog.data, prog, args.decision_id, args.answer, args.reason),
        person, args.decision_id))
    return Outcome(result, f"amended {args.decision_id}: {result['was']} -> {result['answer']}")


def _revise(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    result = transaction(spec, _fresh(spec, "revise", lambda prog: machine.revise(
        prog.data, prog, args.decision_id)))
    pending = result["pending"]
    assert isinstance(pending, list)
    text = f"revising: round {result['round']}, pending {', '.join(pending)}"
    dependents = result.get("dependents")
    if isinstance(dependents, list) and dependents:
        text += f"\nreopened with them (they depend on what changed): {', '.join(dependents)}"
    return Outcome(result, text)


def _check_delegation(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.delegation import check_delegation

    result, text = check_delegation(spec, args.phase, args.interview_id, args.context_digest,
                                    args.discovery_revision)
    return Outcome(result, text)


def _digest(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    prog = load(spec, check=False)
    iv = prog.data.get("interview")
    phase = args.phase or (iv.get("phase") if isinstance(iv, dict) else None) or \
        prog.data.get("phase")
    if not isinstance(phase, str) or phase not in PHASES:
        raise InputError("INVALID_PHASE", "the spec has no phase: pass --phase")
    if args.compat == "ralph":
        from mdgrill.shell.context import ralph_digest

        digest, sources = ralph_digest(prog, spec, phase)
        return Outcome({"phase": phase, "context_digest": digest, "compat": "ralph",
                        "sources": sources}, digest)
    digest, context = context_sources(prog, spec, phase)
    recorded = iv.get("context_digest") if isinstance(iv, dict) and iv.get("phase") == phase \
        else None
    result: dict[str, object] = {"phase": phase, "context_digest": digest, "sources": context,
                                 "recorded": recorded,
                                 "stale": recorded is not None and recorded != digest}
    return Outcome(result, digest)


_HANDLERS = {
    "mode": _mode, "record-skill-load": _record_skill_load, "begin-interview": _begin,
    "open-frontier": _open_frontier, "record-answer": _record_answer,
    "record-fact": _record_fact, "out-of-scope": _out_of_scope,
    "await-confirmation": _await, "confirm": _confirm, "skip": _skip, "revise": _revise,
    "cancel": _cancel, "record-stop": _record_stop, "reopen": _reopen, "amend": _amend,
    "check-delegation": _check_delegation, "digest": _digest,
}
