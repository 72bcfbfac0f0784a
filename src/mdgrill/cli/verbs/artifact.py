"""The artifact gate verbs and natural-language approval (docs/artifact-gate.md): parse,
call `services.artifact`, print."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb, add_spec, on_spec
from mdgrill.model.artifact import APPROVE_SOURCE
from mdgrill.services import artifact
from mdgrill.services.result import Result
from mdgrill.shell import store


def _by(p: argparse.ArgumentParser) -> None:
    p.add_argument("--by", metavar="NAME", help="who gave it (`Name <email>` or a name); "
                   "default: git's identity")


def _await_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--artifact", required=True, metavar="FILE",
                   help="the phase's artifact (e.g. specs/x/requirements.md); a relative "
                   "path not found from here is looked up in the spec folder")


def _approve_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--source", required=True, help=f"must be {APPROVE_SOURCE}")
    p.add_argument("--no-commit", action="store_true", help="do not commit the approval")


def _request_revision_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _by(p)
    p.add_argument("--feedback", required=True, metavar="TEXT",
                   help="what the user wants changed (one line)")


def _resolve_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--text", required=True, metavar="T", help="the user's reply, verbatim")


def _warnings_text(done: Result) -> str:
    return "".join(f"\nwarning: {w}" for w in done.warnings)


def _await(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = artifact.await_artifact_approval(spec, artifact=args.artifact)
    if not done.written:
        text = f"{done.path} is already {done.status} (unchanged)"
    else:
        text = f"{done.phase} artifact {done.path} awaits approval (sha256 " \
               f"{done.sha256[:12]}…)"
    return Outcome(done.data, text + _warnings_text(done))


def _approve(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = artifact.approve_artifact(spec, source=args.source, by=args.by,
                                     no_commit=args.no_commit)
    text = f"{done.approved_phase} artifact {done.path} approved; phase: {done.phase}"
    if not args.no_commit:
        if done.commit:
            text += f"\ncommitted {done.commit[:12]}"
        elif done.commit_skipped:
            text += f"\nnot committed: {done.commit_skipped}"
    return Outcome(done.data, text)


def _request_revision(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = artifact.request_revision(spec, feedback=args.feedback, by=args.by)
    return Outcome(done.data, f"revision requested for {done.path} (feedback round "
                              f"{done.feedback_round}); the gate stays open")


def _resolve(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core import approval

    done = artifact.resolve_approval(spec, text=args.text)
    text = done.action
    if done.action in (approval.CLARIFICATION, approval.ASK_AGAIN,
                       approval.REQUEST_REVISION, approval.CANCEL):
        text += f": {done.reason}"
    elif done.gate:
        text += f" ({done.gate})"
    if done.options and done.action in (approval.CLARIFICATION, approval.ASK_AGAIN):
        text += "\nthe options:" + "".join(f"\n  {n}. {o}"
                                           for n, o in enumerate(done.options, 1))
    return Outcome(done.data, text)


VERBS = (
    Verb("await-artifact-approval", "Submit the phase artifact for the user's approval.",
         _await_arguments, on_spec(_await)),
    Verb("approve-artifact", "Record the artifact's approval and advance the phase.",
         _approve_arguments, on_spec(_approve)),
    Verb("request-revision", "Record the user's feedback on the artifact; the gate stays open.",
         _request_revision_arguments, on_spec(_request_revision)),
    Verb("resolve-approval", "Map a free-text reply to the one live approval action, or ask.",
         _resolve_arguments, on_spec(_resolve)),
)
