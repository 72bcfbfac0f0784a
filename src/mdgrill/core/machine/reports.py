"""The report of each transition, typed: what a `Transition[R]` carries beside its `Change`.

Type checking only: every importer imports this module under `if TYPE_CHECKING:`, so it costs
no start-up time, and a report is a plain dict at run time, the object the CLI's `--json`
prints. mypy checks each key a transition writes and each key its caller reads back.

`Written` holds the keys the shell around a step adds (`written` by the transaction, `by` by
the signature, `relayed_by` by the channel rule); every report extends it.
"""

from __future__ import annotations

from typing import TypedDict


class Written(TypedDict, total=False):
    written: bool
    redone: int  # the step ran again on bytes an editor saved meanwhile
    by: str | None  # None only where a report names nobody (`bind SPEC`)
    relayed_by: str


# -- starting an interview (machine.begin) ------------------------------------------------

class ModeSet(Written):
    mode: str
    interview_reset: bool
    authorization_recorded: bool


class SkillLoad(Written):
    recorded: str
    interview_reset: bool
    core_failed: list[str]
    warnings: list[str]


class _BeganExtra(Written, total=False):
    reopened: list[str]
    previous_answers: dict[str, str]
    warnings: list[str]  # added by the service: failed domain skills


class BeganReport(_BeganExtra):
    status: str
    resumed: bool
    round: int
    context_digest: str


# -- inside the rounds (machine.rounds) --------------------------------------------------

class OpenedReport(Written):
    round: int
    pending: list[str]
    warnings: list[str]
    frontier_not_yet_asked: list[str]


class _AnswerExtra(Written, total=False):
    next: str


class AnswerReport(_AnswerExtra):
    status: str
    pending: list[str]
    recorded: str


class PendingReport(Written):
    """record-fact, out-of-scope: what is still pending."""

    pending: list[str]


class _AmendExtra(Written, total=False):
    note: str


class AmendReport(_AmendExtra):
    decision: str
    answer: str
    was: str
    reason: str
    status: str
    other: bool


class StopReport(Written):
    choice: str
    open: list[str]
    next: str


# -- closing (machine.closing) ------------------------------------------------------------

class PresentedReport(Written):
    status: str
    confirmation_id: str
    question: list[str]
    approval_scope: str


class _ConfirmExtra(Written, total=False):
    channel: str  # added by the service: what carried the approval
    reply_sha256: str


class ConfirmReport(_ConfirmExtra):
    status: str
    round: int
    approval_scope: str | None


class CancelReport(Written):
    status: str
    cancelled: bool
    next: str


class SkipReport(Written):
    status: str
    confirmation_id: str
    defaulted: list[str]
    defaults: dict[str, str]
    question: list[str]


class ReviseReport(Written):
    status: str
    round: int
    pending: list[str]
    reopened: list[str]
    dependents: list[str]
    kept: list[str]
    previous_answers: dict[str, str]


# -- the artifact gate (core.artifact_gate) -----------------------------------------------

class _SubmitExtra(Written, total=False):
    status: str
    resubmitted: bool
    changed: bool
    gate: str
    feedback_round: int
    # added by the service: how the interview's approval commit was found in HEAD's history
    checked: str
    why: str
    approval_commit: str


class SubmitReport(_SubmitExtra):
    phase: str
    path: str
    sha256: str
    interview: str
    warnings: list[str]


class _ArtifactApprovedExtra(Written, total=False):
    reply_sha256: str


class ArtifactApprovedReport(_ArtifactApprovedExtra):
    status: str
    phase: str
    approved_phase: str
    advanced: bool
    path: str
    sha256: str
    interview: str
    gate: str


class RevisionReport(Written):
    status: str
    phase: str
    path: str
    feedback_round: int
    gate: str


class ReopenReport(Written):
    phase: str
    from_phase: str
    reason: str
    superseded: list[str]


class _BindingExtra(TypedDict, total=False):
    why: str
    approval_commit: str


class ApprovalBinding(_BindingExtra):
    """How the interview's approval was held: `history` (its commit, `approval_commit`) or
    `digest-only` outside a repository (`why`)."""

    checked: str


class Carried(TypedDict, total=False):
    """The channel an interview's approval came over (none for a quick bypass), and who
    signed it when a signature was checked."""

    channel: str
    signed_by: str


class _DelegationExtra(_BindingExtra, Carried, total=False):
    checked: str
    prompt_checked: bool


class DelegationReport(_DelegationExtra):
    """`check-delegation`: allowed (a refusal raises), how, and what held the approval."""

    decision: str
    path: str
    status: str
    context_digest: str


# -- the services' own steps ----------------------------------------------------------------

class NodeReport(Written):
    node: str


class TargetPrint(TypedDict):
    target: str
    fingerprint: str


class BoundDecision(TypedDict):
    decision: str
    answer: str
    phase: str
    targets: list[TargetPrint]


class BindReport(Written):
    decision: str
    answer: str
    phase: str
    at: str
    targets: list[TargetPrint]
    warnings: list[str]


class BoundWrittenReport(Written):
    decision: str
    phase: str
    at: str
    bound: list[BoundDecision]


class _ReaffirmExtra(Written, total=False):
    # `Revise the decision`: what it reopened (through revise, or a reopening of the phase)
    reopened: list[str]
    round: int
    reopened_phase: str
    reason: str
    superseded: list[str]


class ReaffirmReport(_ReaffirmExtra):
    decision: str
    answer: str
    phase: str
    selection: str
    at: str
    targets: list[TargetPrint]
    moved: list[dict[str, str]]
    drifted: list[dict[str, object]]


class GlossaryLine(Written):
    recorded: bool


class _SpeckitExtra(Written, total=False):
    text: str  # --dry-run: the file as it would be (or its diff)
    dry_run: bool


class SpeckitUpdate(_SpeckitExtra):
    spec: str
    path: str
    spec_md: str
    phase: str
    rounds: int
    decisions: int
    ids: dict[str, int]
    sessions: list[dict[str, object]]
    warnings: list[str]
