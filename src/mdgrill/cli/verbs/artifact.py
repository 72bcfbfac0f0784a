"""The artifact gate verbs and natural-language approval (docs/artifact-gate.md).

`await-artifact-approval`, `approve-artifact`, `request-revision`: thin wrappers around
`artifact_gate` inside a transaction; `resolve-approval`: `approval.resolve`, which only reads.
"""

from __future__ import annotations

import argparse
import os

from mdgrill.cli.verbs import Outcome, spec_of
from mdgrill.core import artifact_gate
from mdgrill.errors import InputError
from mdgrill.formats.progress import Change, Progress
from mdgrill.model.digest import file_sha256
from mdgrill.model.record import TERMINAL
from mdgrill.shell import store
from mdgrill.shell.context import context_sources
from mdgrill.shell.session import display, load, transaction


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
    if verb in ("approve-artifact", "request-revision"):
        p.add_argument("--by", metavar="NAME", help="who gave it (`Name <email>` or a name); "
                       "default: git's identity")
    if verb == "await-artifact-approval":
        p.add_argument("--artifact", required=True, metavar="FILE",
                       help="the phase's artifact (e.g. specs/x/requirements.md); a relative "
                       "path not found from here is looked up in the spec folder")
    elif verb == "approve-artifact":
        p.add_argument("--source", required=True, help=f"must be {artifact_gate.APPROVE_SOURCE}")
        p.add_argument("--no-commit", action="store_true", help="do not commit the approval")
    elif verb == "request-revision":
        p.add_argument("--feedback", required=True, metavar="TEXT",
                       help="what the user wants changed (one line)")
    elif verb == "resolve-approval":
        p.add_argument("--text", required=True, metavar="T", help="the user's reply, verbatim")


def run(args: argparse.Namespace) -> Outcome:
    spec = spec_of(args)
    return _HANDLERS[args.verb](spec, args)


# -- helpers -------------------------------------------------------------------------------


def _artifact_file(spec: store.Spec, arg: str) -> tuple[str, str]:
    """(absolute path, repository-relative POSIX path) of --artifact, refused if outside."""
    path = os.path.abspath(arg)
    if not os.path.lexists(path) and not os.path.isabs(arg):
        in_spec = os.path.join(spec.folder, arg)
        if os.path.lexists(in_spec):
            path = in_spec
    if not store.is_inside(path, spec.root) or not store.is_inside(os.path.dirname(path),
                                                                   spec.root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{arg} is outside the repository "
                         f"{spec.root}: an artifact is a file of the spec (or the repository)")
    if os.path.abspath(path) == os.path.abspath(spec.progress):
        raise InputError("INVALID_ARTIFACT", f"{arg} is the spec's .progress.md, the record "
                         "itself: name the phase's artifact (e.g. requirements.md)")
    return path, store.relpath_posix(path, spec.root)


def _sha_now(spec: store.Spec, rel: str) -> str | None:
    """The sha256 of a recorded artifact's bytes now, None when it is gone."""
    path = os.path.join(spec.root, *rel.split("/"))
    if not os.path.lexists(path):
        return None
    return file_sha256(store.read_file(path, rel, spec.root))


def _digest_of_interview(prog: Progress, spec: store.Spec, phase: object) -> str | None:
    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("phase") != phase or not isinstance(phase, str):
        return None
    digest, _ = context_sources(prog, spec, phase)
    return digest


def _warnings_text(result: dict[str, object]) -> str:
    warnings = result.get("warnings") or []
    assert isinstance(warnings, list)
    return "".join(f"\nwarning: {w}" for w in warnings)


# -- verbs ---------------------------------------------------------------------------------


def _await(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    path, rel = _artifact_file(spec, args.artifact)
    data = store.read_file(path, display(path), spec.root)
    sha = file_sha256(data)

    def step(prog: Progress) -> tuple[Change, dict[str, object]]:
        iv = prog.data.get("interview")
        digest = None
        if isinstance(iv, dict) and iv.get("status") in TERMINAL:
            digest = _digest_of_interview(prog, spec, iv.get("phase"))
        change, result = artifact_gate.submit(prog.data, rel, sha, spec.rel_folder, digest)
        if change.updates and isinstance(iv, dict) and iv.get("phase") == result["phase"]:
            # the artifact is the product of a delegation that check-delegation would allow:
            # inside a repository the interview's approval commit must be in HEAD's history
            from mdgrill.services.approvals import approval_binding

            result.update(approval_binding(spec, prog, str(iv["phase"]), str(iv["id"])))
        return change, result

    result = transaction(spec, step)
    if not result["written"]:
        text = f"{rel} is already {result['status']} (unchanged)"
    else:
        text = f"{result['phase']} artifact {rel} awaits approval (sha256 {sha[:12]}…)"
    return Outcome(result, text + _warnings_text(result))


def _person(spec: store.Spec, args: argparse.Namespace) -> str | None:
    from mdgrill.shell.people import who

    args.person = who(spec, args.by)
    return args.person  # type: ignore[no-any-return]


def _artifact_phase(prog: Progress) -> object:
    art = prog.data.get("artifact")
    return art.get("phase") if isinstance(art, dict) else None


def _approve(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.shell.people import phase_rule, signed
    from mdgrill.shell.project import owners

    def step(prog: Progress) -> tuple[Change, dict[str, object]]:
        art = artifact_gate.artifact_of(prog.data)
        sha = _sha_now(spec, str(art["path"])) if art is not None else None
        digest = _digest_of_interview(prog, spec, art["phase"]) if art is not None else None
        return artifact_gate.approve(prog.data, args.source, sha, digest)

    person = _person(spec, args)
    result = transaction(spec, signed(step, person, None, phase_rule(
        owners(spec.root), person, _artifact_phase, "approve-artifact")))
    text = f"{result['approved_phase']} artifact {result['path']} approved; phase: " \
           f"{result['phase']}"
    if not args.no_commit:
        result.update(_commit(spec, args, result))
        if result.get("commit"):
            text += f"\ncommitted {str(result['commit'])[:12]}"
        elif result.get("commit_skipped"):
            text += f"\nnot committed: {result['commit_skipped']}"
    else:
        result.update({"commit": None, "commit_skipped": "--no-commit"})
    return Outcome(result, text)


def _commit(spec: store.Spec, args: argparse.Namespace,
            result: dict[str, object]) -> dict[str, object]:
    """Commit `.progress.md` and the approved artifact (the bytes the user approved)."""
    from mdgrill.services.approvals import commit_blocker, touched_paths
    from mdgrill.shell.session import load

    prog = load(spec)
    why_not = commit_blocker(prog, spec)
    if why_not is not None:
        return {"commit": None, "commit_skipped": why_not}
    from mdgrill.git import vcs

    subject = f"grill({result['approved_phase']}): approve artifact {result['path']} " \
              f"({result['interview']})"
    trailers = [(vcs.TRAILER_SPEC, spec.rel_folder),
                (vcs.TRAILER_PHASE, str(result["approved_phase"])),
                (vcs.TRAILER_INTERVIEW, str(result["interview"])),
                (vcs.TRAILER_TRANSITION, artifact_gate.APPROVE_SOURCE),
                ("Mdgrill-Artifact", str(result["path"])),
                (vcs.TRAILER_ARTIFACT_SHA256, str(result["sha256"]))]
    person = getattr(args, "person", None)
    if person:
        trailers.append((vcs.TRAILER_BY, person))
    paths = touched_paths(spec, prog)
    paths.append(str(result["path"]))
    from mdgrill.shell.people import author

    commit = vcs.commit_paths(spec.root, paths, vcs.format_message(subject, trailers),
                              author=author(person))
    return {"commit": commit.sha, "transition": artifact_gate.APPROVE_SOURCE}


def _request_revision(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    if not args.feedback.strip():
        raise InputError("EMPTY_FEEDBACK", "--feedback is empty: record what the user wants "
                         "changed")
    from mdgrill.shell.people import signed

    result = transaction(spec, signed(
        lambda prog: artifact_gate.request_revision(prog.data, args.feedback),
        _person(spec, args)))
    return Outcome(result, f"revision requested for {result['path']} (feedback round "
                           f"{result['feedback_round']}); the gate stays open")


def _resolve(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core import approval

    # Resolving only reads: the reply is recorded by the transition it leads to (`confirm
    # --reply`, `cancel --reply`), so probing four replies leaves no trace in the log.
    result = approval.resolve(load(spec).data, args.text).to_json()
    result["written"] = False
    text = str(result["action"])
    if result["action"] == approval.CLARIFICATION:
        text += f": {result['reason']}"
    elif result.get("gate"):
        text += f" ({result['gate']})"
    return Outcome(result, text)


_HANDLERS = {
    "await-artifact-approval": _await, "approve-artifact": _approve,
    "request-revision": _request_revision, "resolve-approval": _resolve,
}
