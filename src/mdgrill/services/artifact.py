"""The artifact gate (docs/artifact-gate.md): submit the phase's artifact, approve it (and
commit the approved bytes), record the user's feedback, and map a free-text reply to the one
live approval action. The owners of the phase and the `- By:` signature apply as for
`confirm`."""

from __future__ import annotations

import os

from mdgrill.core import artifact_gate
from mdgrill.errors import InputError
from mdgrill.formats.progress import Change, Progress, Transition
from mdgrill.formats.schema import TERMINAL
from mdgrill.model.artifact import APPROVE_SOURCE, artifact_of
from mdgrill.model.digest import file_sha256
from mdgrill.services.result import ArtifactApproved, Resolved, RevisionRequested, Submitted
from mdgrill.shell import store
from mdgrill.shell.context import context_sources
from mdgrill.shell.session import display, load, transaction

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import ArtifactApprovedReport, SubmitReport


def _artifact_file(spec: store.Spec, arg: str) -> tuple[str, str]:
    """(absolute path, repository-relative POSIX path) of the artifact, refused if outside."""
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


def _artifact_phase(prog: Progress) -> object:
    art = prog.data.get("artifact")
    return art.get("phase") if isinstance(art, dict) else None


def await_artifact_approval(spec: store.Spec, *, artifact: str) -> Submitted:
    """Submit the phase's artifact (its bytes' sha256) for the user's approval; a relative
    path not found from here is looked up in the spec folder."""
    path, rel = _artifact_file(spec, artifact)
    data = store.read_file(path, display(path), spec.root)
    sha = file_sha256(data)

    def step(prog: Progress) -> Transition[SubmitReport]:
        iv = prog.data.get("interview")
        digest = None
        if isinstance(iv, dict) and iv.get("status") in TERMINAL:
            digest = _digest_of_interview(prog, spec, iv.get("phase"))
        change, result = artifact_gate.submit(prog.data, rel, sha, spec.rel_folder, digest)
        if change.updates and isinstance(iv, dict) and iv.get("phase") == result["phase"]:
            # the artifact is the product of a delegation that check-delegation would allow:
            # inside a repository the interview's approval commit must be in HEAD's history
            from mdgrill.services.approvals import approval_binding

            held = approval_binding(spec, prog, str(iv["phase"]), str(iv["id"]))
            result["checked"] = held["checked"]
            if "why" in held:
                result["why"] = held["why"]
            if "approval_commit" in held:
                result["approval_commit"] = held["approval_commit"]
        return Transition(change, result)

    return Submitted("await-artifact-approval", transaction(spec, step))


def approve_artifact(spec: store.Spec, *, source: str, by: str | None = None,
                     no_commit: bool = False) -> ArtifactApproved:
    """Record the artifact's approval (its bytes unchanged since it was submitted), advance
    the phase, and commit `.progress.md` with the approved artifact."""
    from mdgrill.services.evidence import journal_entries
    from mdgrill.shell.people import phase_rule, signed, who
    from mdgrill.shell.project import owners

    entries = journal_entries(spec)

    def step(prog: Progress) -> Transition[ArtifactApprovedReport]:
        art = artifact_of(prog.data)
        sha = _sha_now(spec, str(art["path"])) if art is not None else None
        digest = _digest_of_interview(prog, spec, art["phase"]) if art is not None else None
        change, result = artifact_gate.approve(prog.data, source, sha, digest)
        if entries is not None:
            _with_evidence(spec, prog, entries, change, result)
        return Transition(change, result)

    person = who(spec, by)
    # the owners rule holds the account that runs this (git's identity), never `by`
    report = transaction(spec, signed(step, person, None, phase_rule(
        owners(spec.root), who(spec, None), _artifact_phase, "approve-artifact")))
    result: dict[str, object] = dict(report)
    if no_commit:
        result.update({"commit": None, "commit_skipped": "--no-commit"})
    else:
        result.update(_commit(spec, person, report))
    return ArtifactApproved("approve-artifact", result)


def _with_evidence(spec: store.Spec, prog: Progress, entries: list[dict[str, object]],
                   change: Change, result: ArtifactApprovedReport) -> None:
    """Where the repository keeps a reply journal (or `approval: evidence`), the artifact's
    approval is the user's captured answer to the artifact's own approval question, given
    after this version was presented (issue 30 point 6); the Approved block and the commit
    name it as `confirm` names its reply."""
    from mdgrill.services.evidence import artifact_evidence

    found = artifact_evidence(spec, prog, entries)
    heading, lines = change.new_blocks[-1]
    change.new_blocks[-1] = (heading, [*lines, f"- Reply sha256: {found.sha256}"])
    result["reply_sha256"] = found.sha256


def _commit(spec: store.Spec, person: str | None,
            result: ArtifactApprovedReport) -> dict[str, object]:
    """Commit `.progress.md` and the approved artifact (the bytes the user approved)."""
    from mdgrill.services.approvals import commit_blocker, touched_paths

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
                (vcs.TRAILER_TRANSITION, APPROVE_SOURCE),
                ("Mdgrill-Artifact", str(result["path"])),
                (vcs.TRAILER_ARTIFACT_SHA256, str(result["sha256"]))]
    if person:
        trailers.append((vcs.TRAILER_BY, person))
    if result.get("reply_sha256"):  # the captured answer that approved (the reply journal)
        trailers.append(("Mdgrill-Reply-Sha256", str(result["reply_sha256"])))
    paths = touched_paths(spec, prog)
    paths.append(str(result["path"]))
    from mdgrill.shell.people import author

    commit = vcs.commit_paths(spec.root, paths, vcs.format_message(subject, trailers),
                              author=author(person))
    return {"commit": commit.sha, "transition": APPROVE_SOURCE}


def request_revision(spec: store.Spec, *, feedback: str,
                     by: str | None = None) -> RevisionRequested:
    """Record what the user wants changed in the artifact; the gate stays open."""
    from mdgrill.shell.people import signed, who

    if not feedback.strip():
        raise InputError("EMPTY_FEEDBACK", "--feedback is empty: record what the user wants "
                         "changed")
    return RevisionRequested("request-revision", transaction(spec, signed(
        lambda prog: artifact_gate.request_revision(prog.data, feedback), who(spec, by))))


def resolve_approval(spec: store.Spec, *, text: str) -> Resolved:
    """The one live approval action a free-text reply maps to, or a question back."""
    from mdgrill.core import approval

    # Resolving only reads: the reply is recorded by the transition it leads to (`confirm
    # --reply`, `cancel --reply`), so probing four replies leaves no trace in the log.
    result = approval.resolve(load(spec).data, text).to_json()
    result["written"] = False
    return Resolved("resolve-approval", result)
