"""Approvals as commits (DESIGN §7): commit a transition, and bind check-delegation to history."""

from __future__ import annotations

import argparse

from .. import store
from ..errors import GateRefusal, MdgrillError
from ..progress import Progress, read_progress

TRANSITION_OF_STATUS = {"complete": "approve", "skipped": "skip", "bypassed_quick": "bypass"}


def _git_enabled(prog: Progress | None, spec: store.Spec) -> str | None:
    """Why no commit is made, or None when one should be."""
    if not store.in_repository(spec.root):
        return "not a git repository"
    if prog is not None and prog.data.get("git") is False:
        return "`git: false` in the front matter"
    return None


def touched_paths(spec: store.Spec, prog: Progress) -> list[str]:
    paths = [spec.rel_progress]
    iv = prog.data.get("interview")
    extra = iv.get("glossaries") if isinstance(iv, dict) else None
    if isinstance(extra, list):
        paths.extend(str(p) for p in extra if isinstance(p, str) and p not in paths)
    return paths


def transition_message(spec: store.Spec, iv: dict[str, object], transition: str,
                       verb: str = "approve") -> str:
    from .. import vcs

    subject = f"grill({iv['phase']}): {verb} {iv['id']} (round {iv['round']})"
    trailers = [("Mdgrill-Spec", spec.rel_folder), ("Mdgrill-Phase", str(iv["phase"])),
                ("Mdgrill-Interview", str(iv["id"])), ("Mdgrill-Transition", transition),
                ("Mdgrill-Context-Digest", str(iv["context_digest"]))]
    return vcs.format_message(subject, trailers)


def commit_transition(spec: store.Spec, args: argparse.Namespace, kind: str) -> dict[str, object]:
    """Commit `.progress.md` (and glossaries it touched) for a terminal interview."""
    from ..session import load

    prog = load(spec)
    why_not = _git_enabled(prog, spec)
    if why_not is not None or getattr(args, "no_commit", False):
        return {"commit": None, "commit_skipped": why_not or "--no-commit"}
    iv = prog.data.get("interview")
    assert isinstance(iv, dict)
    transition = TRANSITION_OF_STATUS.get(str(iv.get("status")), kind)
    from .. import vcs

    message = transition_message(spec, iv, transition)
    result = vcs.commit_paths(spec.root, touched_paths(spec, prog), message)
    sha = result if isinstance(result, str) else getattr(result, "sha", None)
    return {"commit": sha, "transition": transition}


def approval_binding(spec: store.Spec, prog: Progress, phase: str,
                     interview_id: str) -> dict[str, object]:
    """Inside a repository: the approval commit that allows this delegation, or a refusal."""
    if _git_enabled(prog, spec) is not None:
        return {"checked": "digest-only"}
    from .. import vcs

    iv = prog.data.get("interview")
    assert isinstance(iv, dict)
    wanted = TRANSITION_OF_STATUS.get(str(iv.get("status")))
    for commit in vcs.approval_commits(spec.root, spec.rel_folder):
        t = commit.trailers
        if t.get("Mdgrill-Phase") != phase or t.get("Mdgrill-Interview") != interview_id:
            continue
        if t.get("Mdgrill-Transition") != wanted or \
                t.get("Mdgrill-Context-Digest") != iv.get("context_digest"):
            continue
        blob = vcs.blob_at(spec.root, commit.sha, spec.rel_progress)
        if blob is None:
            continue
        try:
            committed = read_progress(blob, spec.rel_progress).data.get("interview")
        except MdgrillError:
            continue
        if committed != iv:
            raise GateRefusal("APPROVAL_NOT_RECORDED",
                              f"the interview record in {spec.rel_progress} changed after its "
                              f"approval commit {commit.sha[:12]}: restore it from that commit "
                              "or begin a new interview")
        return {"checked": "history", "approval_commit": commit.sha}
    raise GateRefusal("APPROVAL_NOT_RECORDED",
                      f"no approval commit for {phase}/{interview_id} with digest "
                      f"{str(iv.get('context_digest'))[:12]}… is in HEAD's history: a status "
                      "edited by hand is not an approval (run `mdgrill confirm` to record one)")
