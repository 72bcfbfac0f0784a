"""What changed under an approval: an approved artifact's bytes, a terminal interview's context.

Shell: it reads the files the record names (and, for a finding only, git's history), and is
shared by `validate`, `watch`, `status` and `check-delegation`'s neighbours so that each says
the same thing. The decisions of what still stands are pure (`artifact_gate.standing_approvals`).
"""

from __future__ import annotations

import os

from mdgrill.core.artifact_gate import STANDING_KINDS, Standing, log_blocks, standing_approvals
from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.errors import InputError
from mdgrill.formats.progress import Progress
from mdgrill.git.discovery import in_repository
from mdgrill.model.artifact import APPROVED
from mdgrill.shell import store

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    class StaleApproval(TypedDict):
        """How an approval went stale: the digests, and the sources and skill files behind."""

        interview: object
        phase: str
        old_digest: object
        new_digest: str | None
        sources: list[str]  # changed or gone
        missing: list[str]  # gone
        skills: list[str]  # skill files that changed


def sha_now(root: str, rel: str) -> str | None:
    """The sha256 of a repository file's bytes now, or None when it is gone or unreadable."""
    from mdgrill.model.digest import file_sha256

    try:
        return file_sha256(store.read_file(os.path.join(root, *rel.split("/")), rel, root))
    except InputError:
        return None


def guard_begin(spec: store.Spec, prog: Progress, phase: str) -> None:
    """For `begin-interview`: refuse a later phase until the earlier artifact is approved
    (and still holds the approved bytes)."""
    from mdgrill.core import artifact_gate

    art = prog.data.get("artifact")
    sha: str | None = None
    if isinstance(art, dict) and art.get("status") == APPROVED and \
            isinstance(art.get("path"), str):
        sha = sha_now(spec.root, str(art["path"]))
    # the log's blocks (whether the gate was used) are read only where check_begin may refuse
    if artifact_gate.begin_refusal(prog.data, phase, sha) is not None:
        artifact_gate.check_begin(prog.data, prog.blocks, phase, sha)


def changed_approvals(prog: Progress, root: str) -> list[tuple[Standing, str | None]]:
    """Each standing artifact approval whose file no longer holds the approved bytes."""
    out = []
    for standing in standing_approvals(log_blocks(prog, STANDING_KINDS)):
        now = sha_now(root, standing.path)
        if now != standing.sha256:
            out.append((standing, now))
    return out


def approval_commit(root: str, spec_rel: str, standing: Standing) -> str | None:
    """The commit that recorded this approval (by its trailers), if git has it."""
    from mdgrill.git import vcs

    if not in_repository(root):
        return None
    try:
        commits = vcs.approval_commits(root, spec_rel)
    except InputError:
        return None
    for commit in commits:
        t = commit.trailers
        if t.get("Mdgrill-Artifact") == standing.path and \
                t.get(vcs.TRAILER_ARTIFACT_SHA256) == standing.sha256:
            return commit.sha
    return None


def changed_diagnostic(path: str, spec: store.Spec, standing: Standing, now: str | None,
                       commit: str | None = None) -> Diagnostic:
    """`APPROVED_ARTIFACT_CHANGED` at the Approved block, with the two ways on."""
    what = "is gone" if now is None else "changed"
    where = f" (approved in commit {commit[:12]})" if commit else ""
    if now is not None and standing.resubmitted == now:
        return error(
            path, standing.line + 1, "APPROVED_ARTIFACT_CHANGED",
            f"{standing.path} changed after the user approved it as the {standing.phase} "
            f"artifact{where}; the new bytes ({now[:12]}…) are submitted and await the user's "
            f"approval (`mdgrill approve-artifact {spec.rel_folder} --source "
            "approve-artifact`, or `request-revision`)")
    return error(
        path, standing.line + 1, "APPROVED_ARTIFACT_CHANGED",
        f"{standing.path} {what} after the user approved it as the {standing.phase} "
        f"artifact{where}: approved sha256 {standing.sha256[:12]}…, now "
        f"{now[:12] + '…' if now else 'none'}. Submit it again (`mdgrill "
        f"await-artifact-approval {spec.rel_folder} --artifact {standing.path}`) for the "
        f"user to approve, or go back (`mdgrill reopen {spec.rel_folder} --phase "
        f"{standing.phase} --reason TEXT`)")


def artifact_diagnostics(prog: Progress, spec: store.Spec) -> list[Diagnostic]:
    """`APPROVED_ARTIFACT_CHANGED` at each Approved block whose file changed since."""
    return [changed_diagnostic(prog.path, spec, standing, now,
                               approval_commit(spec.root, spec.rel_folder, standing))
            for standing, now in changed_approvals(prog, spec.root)]


def stale_approval(data: dict[str, object], spec: store.Spec) -> StaleApproval | None:
    """How a terminal interview's approval went stale (digest, sources, skills), or None."""
    from mdgrill.formats.schema import TERMINAL
    from mdgrill.model.digest import context_digest, file_sha256
    from mdgrill.shell.context import read_sources, skills_stale

    iv = data.get("interview")
    goal = data.get("goal")
    if not isinstance(iv, dict) or iv.get("status") not in TERMINAL or not isinstance(goal, str):
        return None
    phase = str(iv.get("phase"))
    sources, absent = read_sources(spec, phase)
    missing = [store.relpath_posix(os.path.join(spec.folder, n), spec.root) for n in absent]
    now = None if missing else context_digest(phase, goal,
                                              [(rel, raw) for _, rel, raw in sources])
    recorded = iv.get("context_digest")
    skills = skills_stale(data, spec)
    if now == recorded and not skills:
        return None
    had = {str(c.get("path")): c.get("sha256") for c in iv.get("context") or []
           if isinstance(c, dict)}
    has = {rel: file_sha256(raw) for _, rel, raw in sources}
    changed = sorted(p for p in set(had) | set(has) if had.get(p) != has.get(p))
    return {"interview": iv.get("id"), "phase": phase, "old_digest": recorded,
            "new_digest": now, "sources": changed, "missing": missing, "skills": skills}


def stale_message(info: StaleApproval) -> str:
    what: list[str] = []
    sources, missing, skills = info["sources"], info["missing"], info["skills"]
    if missing:
        what.append(f"{', '.join(missing)} is gone")
    changed = [s for s in sources if s not in missing]
    if changed:
        what.append(f"{', '.join(changed)} changed")
    if skills:
        what.append(f"skill file {', '.join(skills)} changed")
    if not what and info.get("old_digest") != info.get("new_digest"):
        what.append("the goal or phase changed")
    old = str(info.get("old_digest"))[:12]
    new = str(info.get("new_digest"))[:12] if info.get("new_digest") else "none"
    return (f"the approval of interview {info.get('interview')} is stale: {'; '.join(what)} "
            f"(context digest {old} -> {new}): begin a new interview for this phase")


def interview_diagnostics(prog: Progress, spec: store.Spec) -> list[Diagnostic]:
    """`INTERVIEW_STALE` (a warning: the gate refuses it already) naming what changed."""
    info = stale_approval(prog.data, spec)
    if info is None:
        return []
    span = prog.fm.spans.get("interview") if prog.fm is not None else None
    return [warning(prog.path, span[0] + 1 if span else 1, "INTERVIEW_STALE",
                    stale_message(info))]


def spec_diagnostics(prog: Progress, spec: store.Spec) -> list[Diagnostic]:
    return artifact_diagnostics(prog, spec) + interview_diagnostics(prog, spec)


def history_diagnostics(root: str, spec_rel: str, prog: Progress) -> list[Diagnostic]:
    """For `verify`: the first commit after each standing approval's commit that changed the
    approved bytes (a later approval of the new bytes would stand instead)."""
    from mdgrill.git import vcs
    from mdgrill.model.digest import file_sha256

    out = []
    for standing in standing_approvals(log_blocks(prog, STANDING_KINDS)):
        commit = approval_commit(root, spec_rel, standing)
        if commit is None:
            continue  # nothing to reason from: `validate` reports the file as it is
        history = vcs.iter_file_history(root, standing.path, f"{commit}..HEAD")
        try:
            for sha, data in history:
                if file_sha256(data) != standing.sha256:
                    what = "deleted" if not data else "changed"
                    out.append(error(
                        standing.path, 1, "APPROVED_ARTIFACT_CHANGED",
                        f"commit {sha[:12]} {what} {standing.path} after its approval as the "
                        f"{standing.phase} artifact in commit {commit[:12]}, and no approval "
                        "of the new bytes followed: submit it again (`mdgrill "
                        f"await-artifact-approval {spec_rel}`) for the user to approve, or go "
                        f"back (`mdgrill reopen {spec_rel} --phase {standing.phase}`)"))
                    break
        finally:
            history.close()
    return out
