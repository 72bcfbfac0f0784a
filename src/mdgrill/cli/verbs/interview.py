"""The interview verbs (docs/contract.md): parse the flags, call `services.interview`, print."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb, add_spec, on_spec
from mdgrill.core import machine
from mdgrill.formats.schema import PHASES
from mdgrill.services import interview
from mdgrill.services.result import Committed, Result
from mdgrill.shell import store


def _reply(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reply", metavar="TEXT", help="the user's verbatim reply to the "
                   "approval question; recorded in the block (for confirm it must be the "
                   "explicit selection `Approve and delegate`)")


def _by(p: argparse.ArgumentParser, relayed: str = "") -> None:
    """The verbs that record what a person said name them (`- By:`)."""
    p.add_argument("--by", metavar="NAME", help="who gave it (`Name <email>` or a name); "
                   f"default: git's identity (`git var GIT_AUTHOR_IDENT`){relayed}. The "
                   "owners rule holds git's identity, never --by")


def _mode_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_true", help="quick mode: interviews are "
                       "bypassed (only this exact flag authorizes it)")
    group.add_argument("--interactive", action="store_true", help="interactive mode")


def _record_skill_load_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--input", required=True, metavar="FILE", help="manifest JSON file, or - "
                   "for stdin")


def _begin_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--phase", required=True, choices=PHASES, help="the phase asked about")
    p.add_argument("--interview-id", required=True, metavar="ID", help="a new ID per "
                   "interview (r1, design-1); the same ID resumes it")
    p.add_argument("--round", type=int, metavar="N", help="round to begin at (default 1)")
    p.add_argument("--discovery-revision", metavar="R", help="the skill-discovery revision "
                   "this interview was begun at")
    p.add_argument("--no-commit", action="store_true", help="in quick mode, do not commit "
                   "the bypass")


def _open_frontier_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--round", type=int, required=True, metavar="N",
                   help="the current round, or the next one to open")
    p.add_argument("--decision-id", action="append", required=True, metavar="ID",
                   help="repeat for each decision asked in this round")


def _record_answer_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--decision-id", required=True, metavar="ID",
                   help="the pending decision")
    p.add_argument("--answer", required=True, metavar="TEXT",
                   help="the user's reply: an option's label or number, `go with your "
                   "recommendation` (records the recommended option), or their own words")
    p.add_argument("--assumption", metavar="TEXT",
                   help="what the answer assumes, recorded beside it")
    p.add_argument("--other", action="store_true", help="the user chose `Other` and wrote "
                   "this: a specific follow-up node (`node add --spawned-by`) is then "
                   "required before await-confirmation")


def _record_fact_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("text", metavar="TEXT", help="the fact, e.g. `sessions are JWT "
                   "(src/auth/session.py)`")
    p.add_argument("--decision-id", metavar="ID", help="the node this fact resolves")


def _out_of_scope_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--decision-id", required=True, metavar="ID", help="an asked decision")
    p.add_argument("--reply", required=True, metavar="TEXT", help="the user's own words "
                   "that place it out of scope (out of scope is the user's call)")


def _record_stop_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--choice", required=True, choices=["ship", "keep-asking", "refine"],
                   help="the user's answer to Ready to build?")
    p.add_argument("--section", metavar="S", help="with refine: the section to refine")


def _await_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--decision-id", required=True, metavar="CID", help="the confirmation ID")
    p.add_argument("--approach", required=True, metavar="TEXT",
                   help="the approach in one line: what the user approves")
    p.add_argument("--brief-file", metavar="F", help="the decision brief (Markdown), quoted "
                   "into the log")


def _confirm_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _reply(p)
    _by(p, " (recorded as relayed by git's identity when it names someone else)")
    p.add_argument("--decision-id", required=True, metavar="CID", help="the confirmation "
                   "ID given to await-confirmation (the interview keeps its first: C1)")
    p.add_argument("--source", required=True, choices=["approve-and-delegate"],
                   help="its one legal value")
    p.add_argument("--no-commit", action="store_true", help="do not commit the approval")
    p.add_argument("--sign", action="store_true", help="sign the approval commit (`git "
                   "commit -S`; git signs anyway when commit.gpgsign is set): the `signed` "
                   "channel")


def _approve_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--sign", action="store_true", help="also sign the approval commit "
                   "(`git commit -S`)")


def _skip_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--reason", required=True, metavar="T", help="why the user skips the "
                   "rest (one line)")
    p.add_argument("--assumption", action="append", default=[], metavar="T",
                   help="at least one: what stands in for the defaulted decisions")
    p.add_argument("--decision-id", default="skip-confirmation", metavar="CID",
                   help="the confirmation ID the skip awaits (default: skip-confirmation); "
                   "confirm it to finish")


def _cancel_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _reply(p)
    _by(p)


def _reopen_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--phase", required=True, choices=PHASES, help="the phase to go back to "
                   "(or the current one, to redo it)")
    p.add_argument("--reason", required=True, metavar="TEXT", help="why (one line)")
    p.add_argument("--no-commit", action="store_true", help="do not commit the reopening")


def _amend_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--decision-id", required=True, metavar="ID",
                   help="an answered decision whose wording to correct")
    p.add_argument("--answer", required=True, metavar="TEXT",
                   help="the corrected wording: the same option, or the user's own words "
                   "reworded (another option or meaning is a `revise`)")
    p.add_argument("--reason", required=True, metavar="TEXT", help="why (e.g. `typo`)")


def _revise_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--decision-id", action="append", required=True, metavar="ID",
                   help="a decision to reopen; repeat it; what depends on it reopens too")
    p.add_argument("--keep", action="append", default=[], metavar="ID",
                   help="an answered decision that depends on one reopened, whose answer "
                   "the change does not touch: it stays answered (recorded as kept); "
                   "repeat it")


def _check_delegation_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--phase", required=True, choices=PHASES,
                   help="the phase whose approval the delegation rests on")
    p.add_argument("--interview-id", required=True, metavar="ID",
                   help="the interview that approved it")
    p.add_argument("--context-digest", metavar="D", help="the context digest you hold "
                   "(`mdgrill digest`); refused when it is not the one the interview "
                   "recorded")
    p.add_argument("--discovery-revision", metavar="R", help="the skill-discovery revision "
                   "you hold; refused when the interview was begun at another")
    p.add_argument("--prompt", metavar="FILE", help="the prompt you will delegate: refused "
                   "when it fails the prompt checks (`validate --prompt`, Phase-3 check 5); "
                   "required with `delegation: {prompt_checks: true}` in .mdgrill.yaml")


def _digest_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--phase", choices=PHASES, help="default: the spec's phase")
    p.add_argument("--compat", choices=["ralph"], help="smart-ralph's digest "
                   "(ralph-phase-context-v1, absolute paths)")


def _warnings(done: Result) -> str:
    return "".join(f"\nwarning: {w}" for w in done.warnings)


def _commit_text(done: Committed) -> str:
    if done.commit:
        return f"\ncommitted {done.commit[:12]}"
    if done.commit_skipped:
        return f"\nnot committed: {done.commit_skipped}"
    return ""


def _mode(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.mode(spec, quick=args.quick, interactive=args.interactive)
    text = f"mode: {done.mode}"
    if done.mode == "quick" and done.quick_authorized is False:
        text += (" (not authorized: typed by hand or imported, so interviews are not bypassed; "
                 f"`mdgrill mode {spec.rel_folder} --quick` is the user's authorization)")
    if done.interview_reset:
        text += " (the interview was reset)"
    return Outcome(done.data, text)


def _record_skill_load(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.record_skill_load(spec, input=args.input)
    text = "recorded the skill-load manifest"
    if done.interview_reset:
        text += "; the manifest changed, so the interview was reset"
    return Outcome(done.data, text + _warnings(done))


def _begin(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.begin_interview(spec, phase=args.phase, interview_id=args.interview_id,
                                     round=args.round,
                                     discovery_revision=args.discovery_revision,
                                     no_commit=args.no_commit)
    if done.already_recorded:
        return Outcome(done.data, f"{args.phase} interview {args.interview_id} is "
                       "bypassed_quick (already recorded)" + _commit_text(done))
    verb = "resumed" if done.resumed else "began"
    text = f"{verb} {args.phase} interview {args.interview_id}: {done.status}, round " \
           f"{done.round}" + _warnings(done)
    previous = done.previous_answers
    if previous:
        # asked again about the new context: the user sees what they said before
        text += "\nreopened for the new context (ask again; the earlier answer shown):" + \
            "".join(f"\n  {node_id}: was {was}" for node_id, was in previous.items())
    if done.status == "bypassed_quick" and not done.resumed:
        text += _commit_text(done)
    return Outcome(done.data, text)


def _open_frontier(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.open_frontier(spec, round=args.round, decision_ids=args.decision_id)
    text = f"round {done.round}: pending {', '.join(done.pending) or 'none'}"
    rest = done.frontier_not_yet_asked
    if rest:
        text += f"\nthis round must still ask: {', '.join(rest)}"
    return Outcome(done.data, text + _warnings(done))


def _record_answer(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.record_answer(spec, decision_id=args.decision_id, answer=args.answer,
                                   by=args.by, other=args.other, assumption=args.assumption)
    text = f"recorded {args.decision_id} -> {done.recorded}; pending: " \
           f"{', '.join(done.pending) or 'none'}"
    if done.next:
        text += f"\nnext: {done.next}"
    return Outcome(done.data, text)


def _record_fact(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.record_fact(spec, text=args.text, decision_id=args.decision_id,
                                 by=args.by)
    return Outcome(done.data, "recorded the fact")


def _out_of_scope(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.out_of_scope(spec, decision_id=args.decision_id, reply=args.reply,
                                  by=args.by)
    return Outcome(done.data, f"{args.decision_id} is out of scope")


def _record_stop(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.record_stop(spec, choice=args.choice, section=args.section)
    return Outcome(done.data, f"recorded the choice {args.choice}\nnext: {done.next}")


def _cancel(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.cancel(spec, reply=args.reply, by=args.by)
    return Outcome(done.data, f"cancelled: the interview stays {done.status}; "
                              "stop without delegating")


def _await(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.await_confirmation(spec, decision_id=args.decision_id,
                                        approach=args.approach, brief_file=args.brief_file)
    return Outcome(done.data, f"awaiting confirmation {args.decision_id}: ask "
                              + " / ".join(machine.APPROVAL_OPTIONS))


def _confirm(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.confirm(spec, decision_id=args.decision_id, source=args.source,
                             reply=args.reply, by=args.by, no_commit=args.no_commit,
                             sign=args.sign)
    if done.already_recorded:
        return Outcome(done.data, f"interview {done.status} (already recorded)"
                       + _commit_text(done))
    return Outcome(done.data, f"interview {done.status}" + _commit_text(done))


def _approve(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.approve import approve

    done = approve(spec, sign=args.sign)
    if done.approved:
        return Outcome(done.data, f"approved over the terminal: interview {done.status}"
                       + _commit_text(done))
    return Outcome(done.data, f"not approved: {done.next}")


def _skip(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.skip(spec, reason=args.reason, assumptions=args.assumption,
                          decision_id=args.decision_id, by=args.by)
    said = "; ".join(f"{k} -> {v}" for k, v in done.defaults.items())
    return Outcome(done.data, f"skip recorded; confirm {args.decision_id} to finish"
                   + (f"\ndefaults: {said}" if said else ""))


def _reopen(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.reopen(spec, phase=args.phase, reason=args.reason, by=args.by,
                            no_commit=args.no_commit)
    text = f"reopened {args.phase} (from {done.from_phase}): set aside " \
           f"{'; '.join(done.superseded)}\nnext: begin the {args.phase} interview under a new ID"
    return Outcome(done.data, text + ("" if args.no_commit else _commit_text(done)))


def _amend(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.amend(spec, decision_id=args.decision_id, answer=args.answer,
                           reason=args.reason, by=args.by)
    text = f"amended {args.decision_id}: {done.was} -> {done.answer}"
    if done.note:
        text += f"\n{done.note}"
    return Outcome(done.data, text)


def _revise(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.revise(spec, decision_ids=args.decision_id, keep=args.keep)
    text = f"revising: round {done.round}, pending {', '.join(done.pending)}"
    if done.dependents:
        text += f"\nreopened with them (they depend on what changed): " \
                f"{', '.join(done.dependents)}"
    if done.kept:
        text += f"\nkept as answered: {', '.join(done.kept)}"
    return Outcome(done.data, text)


def _check_delegation(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.check_delegation(spec, phase=args.phase, interview_id=args.interview_id,
                                      context_digest=args.context_digest,
                                      discovery_revision=args.discovery_revision,
                                      prompt_file=args.prompt)
    text = f"allow: {args.phase} interview {args.interview_id} is {done.status}"
    if done.checked == "digest-only":
        text += " (not in a git repository: checked the digest alone)"
    return Outcome(done.data, text)


def _digest(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = interview.digest(spec, phase=args.phase, compat=args.compat)
    return Outcome(done.data, done.context_digest)


VERBS = (
    Verb("mode", "Show or set the spec's mode (--quick or --interactive, exactly).",
         _mode_arguments, on_spec(_mode)),
    Verb("record-skill-load", "Record the skill-load manifest (JSON) after checking each file's "
         "sha256.",
         _record_skill_load_arguments, on_spec(_record_skill_load)),
    Verb("begin-interview", "Begin (or resume) the phase interview; records the context digest.",
         _begin_arguments, on_spec(_begin)),
    Verb("open-frontier", "Ask decisions: open the current or next round and record its Asked "
         "line.",
         _open_frontier_arguments, on_spec(_open_frontier)),
    Verb("record-answer", "Record the user's substantive answer to one pending decision.",
         _record_answer_arguments, on_spec(_record_answer)),
    Verb("record-fact", "Record a fact found in the code or docs in the open round.",
         _record_fact_arguments, on_spec(_record_fact)),
    Verb("out-of-scope", "Record that the user placed an asked decision out of scope (--reply: "
         "their words).",
         _out_of_scope_arguments, on_spec(_out_of_scope)),
    Verb("record-stop", "Record the user's answer to Ready to build? (ship, keep-asking, refine).",
         _record_stop_arguments, on_spec(_record_stop)),
    Verb("await-confirmation", "Close the rounds and present the approach for approval.",
         _await_arguments, on_spec(_await)),
    Verb("confirm", "Record the user's approval (approve-and-delegate) and commit it.",
         _confirm_arguments, on_spec(_confirm)),
    Verb("approve", "Show the brief on your own terminal and record your selection there (the "
         "`terminal` channel).",
         _approve_arguments, on_spec(_approve)),
    Verb("skip", "Skip the remaining decisions with recorded assumptions (needs confirm).",
         _skip_arguments, on_spec(_skip)),
    Verb("revise", "Reopen decisions (and their answered dependents) after the brief.",
         _revise_arguments, on_spec(_revise)),
    Verb("cancel", "Record the user's Cancel: the interview stays open, no delegation.",
         _cancel_arguments, on_spec(_cancel)),
    Verb("amend", "Correct a recorded answer's wording (an Amended block; the log stays append-"
         "only); another option or meaning is a `revise`.",
         _amend_arguments, on_spec(_amend)),
    Verb("reopen", "Go back to an earlier phase: set aside the approvals since, recorded and "
         "committed.",
         _reopen_arguments, on_spec(_reopen)),
    Verb("check-delegation", "Allow delegation only for an approved, current interview.",
         _check_delegation_arguments, on_spec(_check_delegation)),
    Verb("digest", "Print the context digest the spec's phase would record now.",
         _digest_arguments, on_spec(_digest)),
)
