"""Approvals as commits: commit a transition, and bind check-delegation to history.

`confirm` writes the interview first and commits it second, so a commit that fails (no
identity, detached HEAD, a hook) leaves a terminal interview without its approval commit. The
same `confirm` run again then commits just that (`retry_confirm`), and `check-delegation`
refuses until it has.
"""

from __future__ import annotations

import os

from mdgrill.errors import GateRefusal, MdgrillError
from mdgrill.formats.progress import Progress, read_progress
from mdgrill.git.discovery import in_repository
from mdgrill.model.record import mapping_field
from mdgrill.shell import store
from mdgrill.shell.people import author

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from mdgrill.core.machine.reports import ApprovalBinding, ReopenReport
    from mdgrill.git.vcs import TransitionCommit

TRANSITION_OF_STATUS = {"complete": "approve", "skipped": "skip", "bypassed_quick": "bypass"}


def commit_blocker(prog: Progress | None, spec: store.Spec) -> str | None:
    """Why no commit is made, or None when one should be."""
    if not in_repository(spec.root):
        return "not a git repository"
    if prog is not None and prog.data.get("git") is False:
        return "`git: false` in the front matter"
    return None


def ignored_warning(spec: store.Spec) -> str | None:
    """A warning when git ignores this `.progress.md`, so every approval commit would fail.

    smart-ralph's own setup puts `**/.progress.md` in `.gitignore`; better said at the start
    than at the approval, when `confirm` fails with GIT_COMMIT_FAILED.
    """
    if not in_repository(spec.root):
        return None
    from mdgrill.git.vcs import ignored

    if not ignored(spec.root, spec.progress):
        return None
    return (f"git ignores {spec.rel_progress} (a .gitignore rule such as `**/.progress.md`), "
            "so the approval commit would fail: track it once with `git add -f "
            f"{spec.rel_progress}`, or add the line `!{spec.rel_progress}` to .gitignore")


def touched_paths(spec: store.Spec, prog: Progress) -> list[str]:
    """`.progress.md` and the glossaries this interview wrote (`interview.glossaries`)."""
    paths = [spec.rel_progress]
    iv = prog.data.get("interview")
    extra = iv.get("glossaries") if isinstance(iv, dict) else None
    if isinstance(extra, list):
        for p in extra:
            # A glossary deleted since is left out: the approval does not commit a deletion.
            if isinstance(p, str) and p not in paths and \
                    os.path.lexists(os.path.join(spec.root, p)):
                paths.append(p)
    return paths


def transition_message(spec: store.Spec, iv: dict[str, object], transition: str,
                       verb: str = "approve", by: str | None = None,
                       reply_sha256: str | None = None, scope: str | None = None,
                       channel: str | None = None, relayed_by: str | None = None) -> str:
    """`grill(<phase>): approve <id> (round N)` and the Mdgrill-* trailers, values escaped."""
    from mdgrill.git import vcs

    subject = f"grill({iv['phase']}): {verb} {iv['id']} (round {iv['round']})"
    trailers = [(vcs.TRAILER_SPEC, spec.rel_folder), (vcs.TRAILER_PHASE, str(iv["phase"])),
                (vcs.TRAILER_INTERVIEW, str(iv["id"])), (vcs.TRAILER_TRANSITION, transition),
                (vcs.TRAILER_CONTEXT_DIGEST, str(iv["context_digest"]))]
    if by:
        trailers.append((vcs.TRAILER_BY, by))
    if reply_sha256:  # the captured reply that approved (the reply journal)
        trailers.append(("Mdgrill-Reply-Sha256", reply_sha256))
    if scope:  # what the user approved (model/scope.py), as the Confirmed block records it
        trailers.append(("Mdgrill-Approval-Scope", scope))
    if channel:  # how the selection arrived (services/channels.py)
        trailers.append(("Mdgrill-Channel", channel))
    if relayed_by:  # `by` named someone else: this account relayed their word
        trailers.append(("Mdgrill-Relayed-By", relayed_by))
    return vcs.format_message(subject, trailers)


def commit_transition(spec: store.Spec, kind: str, *, person: str | None = None,
                      no_commit: bool = False, retry: str = "mdgrill confirm ...",
                      reply_sha256: str | None = None, sign: bool = False) -> dict[str, object]:
    """Commit `.progress.md` (and glossaries it touched) for a terminal interview; `sign`:
    ask git to sign it. A relayed approval is authored by the account that relayed it."""
    from mdgrill.shell.session import load

    prog = load(spec)
    why_not = commit_blocker(prog, spec)
    if why_not is not None or no_commit:
        return {"commit": None, "commit_skipped": why_not or "--no-commit"}
    iv = mapping_field(prog.data, "interview", "the record's")
    transition = TRANSITION_OF_STATUS.get(str(iv.get("status")), kind)
    from mdgrill.git import vcs
    from mdgrill.model.scope import confirmed_scope

    scope = confirmed_scope(prog, str(iv["phase"])) if transition != "bypass" else None
    from mdgrill.services.channels import stamp_of

    stamp = stamp_of(prog, str(iv["id"]))
    message = transition_message(spec, iv, transition, by=person, reply_sha256=reply_sha256,
                                 scope=scope, channel=stamp.channel,
                                 relayed_by=stamp.relayed_by)
    try:
        result = vcs.commit_paths(spec.root, touched_paths(spec, prog), message,
                                  author=None if stamp.relayed_by else author(person),
                                  sign=sign)
    except MdgrillError as exc:
        raise type(exc)(
            exc.code,
            f"{exc.message}\nThe interview is recorded ({iv.get('status')}) in "
            f"{spec.rel_progress}, but its approval commit is missing, so check-delegation "
            f"will refuse it. Fix that, then run the same command again (`{retry}`): it "
            "commits the approval and changes nothing else.",
            path=exc.path, line=exc.line,
            details={**exc.details, "written": True, "status": iv.get("status"),
                     "retry": retry}) from None
    return {"commit": result.sha, "transition": transition, "branch": result.branch,
            "committed_paths": list(result.paths)}


def commit_reopen(spec: store.Spec, result: ReopenReport,
                  person: str | None = None) -> dict[str, object]:
    """Commit a reopening: `.progress.md`, with the trailers `verify` reads it by."""
    from mdgrill.shell.session import load

    prog = load(spec)
    why_not = commit_blocker(prog, spec)
    if why_not is not None:
        return {"commit": None, "commit_skipped": why_not}
    from mdgrill.git import vcs

    subject = f"grill({result['phase']}): reopen from {result['from_phase']}"
    trailers = [(vcs.TRAILER_SPEC, spec.rel_folder), (vcs.TRAILER_PHASE, str(result["phase"])),
                (vcs.TRAILER_TRANSITION, "reopen"), ("Mdgrill-Reason", str(result["reason"]))]
    if person:
        trailers.append((vcs.TRAILER_BY, person))
    commit = vcs.commit_paths(spec.root, [spec.rel_progress],
                              vcs.format_message(subject, trailers), author=author(person))
    return {"commit": commit.sha, "transition": "reopen", "branch": commit.branch}


def find_approval(spec: store.Spec, iv: dict[str, object],
                  phase: str | None = None, interview_id: str | None = None,
                  ) -> tuple[list[TransitionCommit], bool]:
    """(transition commits in HEAD's history for this interview and digest, shallow clone?)."""
    from mdgrill.git import vcs

    commits = vcs.approval_commits(spec.root, spec.rel_folder)
    return _approvals_of(commits, iv, phase, interview_id), commits.shallow


def _approvals_of(commits: list[TransitionCommit], iv: dict[str, object], phase: str | None,
                  interview_id: str | None) -> list[TransitionCommit]:
    """The transition commits that record this interview's status with its digest."""
    from mdgrill.git import vcs

    wanted = TRANSITION_OF_STATUS.get(str(iv.get("status")))
    phase = phase if phase is not None else str(iv.get("phase"))
    interview_id = interview_id if interview_id is not None else str(iv.get("id"))
    return [c for c in commits
            if c.trailers.get(vcs.TRAILER_PHASE) == phase
            and c.trailers.get(vcs.TRAILER_INTERVIEW) == interview_id
            and c.trailers.get(vcs.TRAILER_TRANSITION) == wanted
            and c.trailers.get(vcs.TRAILER_CONTEXT_DIGEST) == iv.get("context_digest")]


def _confirmed_id(prog: Progress, interview_id: str) -> str | None:
    """The confirmation ID of the last `Confirmed` block of this interview."""
    for block in reversed(prog.blocks):
        if block.kind == "confirmed" and block.first("Interview") == interview_id:
            return block.first("Confirmation ID")
    return None


def retry_bypass(spec: store.Spec, phase: str, interview_id: str, *, person: str | None = None,
                 retry: str = "") -> dict[str, object] | None:
    """Commit a quick-mode bypass whose commit failed (same phase and ID); None: not that case."""
    from mdgrill.shell.session import load

    prog = load(spec)
    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("status") != "bypassed_quick" or \
            iv.get("id") != interview_id or iv.get("phase") != phase:
        return None
    if commit_blocker(prog, spec) is not None or find_approval(spec, iv)[0]:
        return None
    commit = commit_transition(spec, "bypass", person=person, retry=retry)
    return {"status": iv["status"], "round": iv.get("round"), "resumed": True, "written": False,
            "retried_commit": True, **commit}


def retry_confirm(spec: store.Spec, confirmation_id: str, source: str, *,
                  person: str | None = None, retry: str = "",
                  sign: bool = False) -> dict[str, object] | None:
    """Commit an already confirmed interview whose approval commit failed; None: not that case.

    Applies only to the same confirmation (same ID, the canonical source) of a `complete` or
    `skipped` interview with no approval commit in HEAD's history: anything else keeps the
    original refusal.
    """
    from mdgrill.formats.schema import CANONICAL_CONFIRMATION
    from mdgrill.shell.session import load

    if source != CANONICAL_CONFIRMATION:
        return None
    prog = load(spec)
    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("status") not in ("complete", "skipped"):
        return None
    if _confirmed_id(prog, str(iv.get("id"))) != confirmation_id:
        return None
    if commit_blocker(prog, spec) is not None or find_approval(spec, iv)[0]:
        return None
    _recheck_before_retry(spec, prog, confirmation_id)
    commit = commit_transition(spec, "approve", person=person, retry=retry,
                               reply_sha256=_reply_named(prog, str(iv.get("id"))), sign=sign)
    return {"status": iv["status"], "round": iv.get("round"), "written": False,
            "retried_commit": True, **commit}


def _recheck_before_retry(spec: store.Spec, prog: Progress, confirmation_id: str) -> None:
    """The retried commit is an approval too: its evidence is checked again (issue 30
    points 2 and 5; `confirm` held the history to `verify`'s rules before it came here)."""
    from mdgrill.services.evidence import require_retry_evidence

    require_retry_evidence(spec, prog, confirmation_id)


def _reply_named(prog: Progress, interview_id: str) -> str | None:
    """The `Reply sha256` of the interview's last Confirmed block (for the retried trailer)."""
    for block in reversed(prog.blocks):
        if block.kind == "confirmed" and block.first("Interview") == interview_id:
            return block.first("Reply sha256")
    return None


def _require_not_reopened(spec: store.Spec, approval: TransitionCommit, phase: str,
                          transitions: list[TransitionCommit]) -> None:
    """A reopening committed after this approval, of its phase or an earlier one, set it
    aside for good: the commit graph says so whatever later commits did to the file (a
    `git revert` of the reopening brings the old record back, not the approval; only a new
    approval does). `transitions`: the spec's transition commits in HEAD's history."""
    from mdgrill.formats.schema import PHASES
    from mdgrill.git import vcs

    for other in transitions:
        if other.trailers.get(vcs.TRAILER_TRANSITION) != "reopen" or other.sha == approval.sha:
            continue
        reopened = other.trailers.get(vcs.TRAILER_PHASE, "")
        if reopened not in PHASES or PHASES.index(reopened) > PHASES.index(phase):
            continue
        if vcs.is_ancestor(spec.root, approval.sha, other.sha):
            raise GateRefusal(
                "INTERVIEW_SUPERSEDED",
                f"approval commit {approval.sha[:12]} was set aside by the reopening of "
                f"{reopened} in commit {other.sha[:12]}; a later commit (a revert?) brought "
                "the old record back, but not the approval. Begin the phase's interview "
                "under a new ID and approve it again",
                details={"approval_commit": approval.sha, "reopen_commit": other.sha})


def require_verified_history(spec: store.Spec, approval_sha: str | None,
                             now: bytes | None = None) -> None:
    """Hold every version of `.progress.md` up to the approval commit to `verify`'s log rules
    (issue 30 point 8): a recorded answer edited and resealed before the approval made its
    own log look whole, so only the history shows it, and an approval of an edited history
    delegates nothing. The first error `verify` would report refuses, with its code.

    `confirm` passes no commit and the bytes it is about to approve (`now`): HEAD's history
    with those bytes as its next version."""
    from mdgrill.core.history import verify_log_history
    from mdgrill.git import vcs

    parents: dict[str, list[str]] = {}
    history = vcs.iter_file_history(spec.root, spec.rel_progress, approval_sha or "HEAD",
                                    parents=parents)
    try:
        versions = history if now is None else _then(history, parents, now)
        found = verify_log_history(versions, spec.rel_progress, parents=parents)
    finally:
        history.close()
    errors = [d for d in found if d.severity == "error"]
    if not errors:
        return
    first = errors[0]
    if f"commit {_NOW[:10]}" in first.message:  # the bytes `confirm` is about to approve
        raise GateRefusal(
            first.code,
            f"{spec.rel_progress} rewrites a block its committed history recorded (line "
            f"{first.line} as `verify` reads it): an approval of an edited record approves "
            f"nothing. Put the block back as committed (`mdgrill restore {spec.rel_folder}`, "
            "or git) and record a correction as a new round; nothing was written",
            path=spec.rel_progress, details={"problems": len(errors)})
    where = f"approval commit {approval_sha[:12]}" if approval_sha else "HEAD"
    raise GateRefusal(
        first.code,
        f"the history behind {where} breaks a rule `verify` holds it to ({first.message}): "
        "an approval of an edited record approves nothing. "
        f"`mdgrill verify {spec.rel_folder}` names every problem",
        path=spec.rel_progress,
        details={"approval_commit": approval_sha, "problems": len(errors)})


def require_verified_record(spec: store.Spec) -> None:
    """Before `confirm` writes: the record it approves, held with HEAD's history of it to
    `verify`'s log rules (nothing to hold outside a repository or before a first commit)."""
    from mdgrill.git.discovery import in_repository

    if not in_repository(spec.root):
        return
    from mdgrill.git import vcs

    if vcs.rev_parse(spec.root, "HEAD") is None:
        return
    require_verified_history(spec, None, store.read_file(spec.progress, spec.rel_progress,
                                                         spec.root))


_NOW = "0" * 40  # the version not yet committed, named as no commit can be


def _then(history: Iterator[tuple[str, bytes]], parents: dict[str, list[str]],
          now: bytes) -> Iterator[tuple[str, bytes]]:
    """The committed versions, then `now` as the child of the newest ones (the versions no
    other names as a parent: HEAD's last versions of the file)."""
    first = next(history, None)  # `parents` is filled once the walk has begun
    if first is None:
        return
    named = {p for before in parents.values() for p in before}
    parents[_NOW] = [sha for sha in parents if sha not in named] or [first[0]]
    yield first
    yield from history
    yield _NOW, now


def approval_binding(spec: store.Spec, prog: Progress, phase: str,
                     interview_id: str) -> ApprovalBinding:
    """Inside a repository: the approval commit that allows this delegation, or a refusal.

    `git: false` in the spec turns off commits, never this check: the spec is a file the
    agent can edit, so it cannot vouch for itself.
    """
    if not in_repository(spec.root):
        return {"checked": "digest-only", "why": "not a git repository"}
    from mdgrill.git import vcs

    iv = mapping_field(prog.data, "interview", "the record's")
    # one `git log` for the approval and for the reopenings after it
    transitions = vcs.approval_commits(spec.root, spec.rel_folder)
    shallow = transitions.shallow
    commits = _approvals_of(transitions, iv, phase, interview_id)
    blobs = vcs.blobs_at(spec.root, [(c.sha, spec.rel_progress) for c in commits])
    for commit, blob in zip(commits, blobs, strict=True):
        if blob is None:
            continue
        try:
            committed_prog = read_progress(blob, spec.rel_progress)
        except MdgrillError:
            continue
        committed = committed_prog.data.get("interview")
        if committed != iv:
            raise GateRefusal(
                "APPROVAL_NOT_RECORDED",
                f"the interview record in {spec.rel_progress} changed after its approval "
                f"commit {commit.sha[:12]}: an approval covers the record it committed. "
                f"Restore it (`git checkout {commit.sha[:12]} -- {spec.rel_progress}`) or "
                "begin a new interview", details={"approval_commit": commit.sha})
        from mdgrill.core.history import approval_gap

        gap = approval_gap(committed_prog, prog, iv)
        if gap is not None:
            raise GateRefusal(gap[0], f"approval commit {commit.sha[:12]} does not cover "
                              f"{spec.rel_progress}: {gap[1]}",
                              details={"approval_commit": commit.sha})
        _require_not_reopened(spec, commit, phase, transitions)
        require_verified_history(spec, commit.sha)
        return {"checked": "history", "approval_commit": commit.sha}
    hint = (" This clone is shallow: if the approval is older than its cut, "
            "`git fetch --unshallow` and check again." if shallow else "")
    raise GateRefusal(
        "APPROVAL_NOT_RECORDED",
        f"no approval commit for {phase}/{interview_id} with digest "
        f"{str(iv.get('context_digest'))[:12]}… is in HEAD's history: a status edited by hand "
        "is not an approval, and one committed on another branch counts only once merged. "
        f"Record it with `mdgrill confirm {spec.rel_folder} --decision-id CID --source "
        f"approve-and-delegate` (this also retries a commit that failed).{hint}",
        details={"shallow": shallow})
