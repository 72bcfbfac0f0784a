"""What one operation of `services/` did: `Result` (its fields as the CLI's `--json` prints
them), and one subclass per operation, named for what it did, whose properties are those
fields typed (docs/api.md, "What each method returns").

A property reads its field with a checked read: a field of another type than the operation
reports is a defect of mdgrill, refused as one (`InternalError`, exit 70) by a check that
`python -O` keeps, where an assert would vanish. The data itself is never copied or
reordered, so `result["key"]`, `.to_json()` and the CLI's `--json` are what they were.
"""

from __future__ import annotations

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import cast

    from mdgrill.core.machine.reports import BoundDecision, TargetPrint
else:
    def cast(_type: object, value: object) -> object:
        """What `typing.cast` does at run time: nothing."""
        return value

__all__ = [
    "Allowed", "Amended", "AnswerRecorded", "ArtifactApproved", "Began", "Bound", "Cancelled",
    "Classified", "Committed", "Confirmed", "Digest", "FactRecorded", "Frontier",
    "Initialized", "Ledger", "Mode", "NodeAdded", "Opened", "OutOfScope", "Presented",
    "Questionnaire", "Reaffirmed", "Reopened", "Resolved", "Result", "Revised", "RevisionRequested",
    "Selected", "Signed", "SkillsRecorded", "Skipped", "Status", "StopRecorded",
    "Submitted", "Tree",
]


def _wrong(verb: str, key: str, what: str) -> Exception:
    from mdgrill.errors import InternalError

    return InternalError(f"the {verb} result's `{key}` is not {what}: this is a defect of "
                         "mdgrill; please report it")


class Result:
    """What one operation did: its fields as the CLI's `--json` prints them (without `ok`)."""

    __slots__ = ("verb", "data", "already_recorded")

    def __init__(self, verb: str, data: Mapping[str, object], *,
                 already_recorded: bool = False) -> None:
        self.verb = verb
        # the operation's own dict (a report typed where it was built), kept as it is
        self.data = cast("dict[str, object]", data)
        # an approval found recorded before, whose failed commit this call made again
        self.already_recorded = already_recorded

    def __getitem__(self, key: str) -> object:
        return self.data[key]

    def get(self, key: str, default: object = None) -> object:
        return self.data.get(key, default)

    @property
    def status(self) -> str | None:
        """The interview's status after the operation, when it names one."""
        value = self.data.get("status")
        return str(value) if value is not None else None

    @property
    def pending(self) -> list[str]:
        """The decisions asked and not yet answered, when the operation reports them."""
        value = self.data.get("pending")
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def warnings(self) -> list[str]:
        value = self.data.get("warnings")
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def written(self) -> bool:
        """Whether the operation wrote the spec's `.progress.md` (False when it only read)."""
        return self._bool("written", False)

    def to_json(self) -> dict[str, object]:
        return dict(self.data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.verb!r}, {self.data!r})"

    # -- checked reads of one field ----------------------------------------------------------

    def _str(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str):
            raise _wrong(self.verb, key, "a string")
        return value

    def _opt_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise _wrong(self.verb, key, "a string or null")
        return value

    def _int(self, key: str) -> int:
        value = self.data.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise _wrong(self.verb, key, "a whole number")
        return value

    def _opt_int(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise _wrong(self.verb, key, "a whole number or null")
        return value

    def _bool(self, key: str, absent: bool | None = None) -> bool:
        value = self.data.get(key, absent)
        if not isinstance(value, bool):
            raise _wrong(self.verb, key, "true or false")
        return value

    def _strs(self, key: str, absent: bool = False) -> list[str]:
        """A list of strings; `absent`: an operation that may leave the field out (then [])."""
        value = self.data.get(key, [] if absent else None)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _wrong(self.verb, key, "a list of strings")
        return value

    def _dicts(self, key: str, absent: bool = False) -> list[dict[str, object]]:
        value = self.data.get(key, [] if absent else None)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise _wrong(self.verb, key, "a list of mappings")
        return value

    def _str_map(self, key: str, absent: bool = False) -> dict[str, str]:
        value = self.data.get(key, {} if absent else None)
        if not isinstance(value, dict) or \
                not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise _wrong(self.verb, key, "a mapping of strings")
        return value

    def _mapping(self, key: str) -> dict[str, object]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise _wrong(self.verb, key, "a mapping")
        return value

    def _opt_mapping(self, key: str) -> dict[str, object] | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, dict):
            raise _wrong(self.verb, key, "a mapping or null")
        return value


class Signed(Result):
    """An operation that writes a `- By:` line: who it was recorded for."""

    __slots__ = ()

    @property
    def by(self) -> str | None:
        """The person the log names (`--by`, else git's identity); None when none is known."""
        return self._opt_str("by")


class Committed(Signed):
    """An operation that commits what it recorded (an approval, a reopening)."""

    __slots__ = ()

    @property
    def commit(self) -> str | None:
        """The commit's sha; None when it was not committed (`commit_skipped` says why)."""
        return self._opt_str("commit")

    @property
    def commit_skipped(self) -> str | None:
        return self._opt_str("commit_skipped")

    @property
    def transition(self) -> str | None:
        """The commit's `Mdgrill-Transition` (approve, skip, bypass, reopen, ...)."""
        return self._opt_str("transition")

    @property
    def branch(self) -> str | None:
        return self._opt_str("branch")

    @property
    def committed_paths(self) -> list[str]:
        return self._strs("committed_paths", absent=True)

    @property
    def retried_commit(self) -> bool:
        """Whether this call only committed an approval recorded before (its commit had
        failed)."""
        return self._bool("retried_commit", False)


# -- reading ---------------------------------------------------------------------------------

class Status(Result):
    """`Spec.status()`: one screen on the spec (`mdgrill status --json`)."""

    __slots__ = ()

    @property
    def spec(self) -> str:
        return self._str("spec")

    @property
    def goal(self) -> str | None:
        return self._opt_str("goal")

    @property
    def phase(self) -> str | None:
        return self._opt_str("phase")

    @property
    def mode(self) -> str:
        return self._str("mode")

    @property
    def interview(self) -> dict[str, object] | None:
        """The open interview's record (id, phase, round, status, ...), None without one."""
        return self._opt_mapping("interview")

    @property
    def pending(self) -> list[str]:
        """The decisions asked and not yet answered (their IDs)."""
        ids: list[str] = []
        for question in self.pending_questions:
            found = question.get("id")
            if not isinstance(found, str):
                raise _wrong(self.verb, "pending", "a list of pending questions with their IDs")
            ids.append(found)
        return ids

    @property
    def pending_questions(self) -> list[dict[str, object]]:
        """Each pending decision with its question, options and recommendation."""
        return self._dicts("pending")

    @property
    def frontier(self) -> dict[str, object]:
        return self._mapping("frontier")

    @property
    def context(self) -> dict[str, object]:
        return self._mapping("context")

    @property
    def approval(self) -> dict[str, object]:
        return self._mapping("approval")

    @property
    def problems(self) -> list[dict[str, object]]:
        return self._dicts("problems")

    @property
    def artifact(self) -> dict[str, object] | None:
        return self._opt_mapping("artifact")

    @property
    def reopenings(self) -> list[dict[str, object]]:
        return self._dicts("reopenings")

    @property
    def approved_changed(self) -> list[dict[str, object]]:
        return self._dicts("approved_changed")


class Tree(Result):
    """`Spec.tree()`: the design tree's nodes, and the tree drawn (`text`)."""

    __slots__ = ()

    @property
    def format(self) -> str:
        return self._str("format")

    @property
    def nodes(self) -> list[dict[str, object]]:
        return self._dicts("nodes")

    @property
    def text(self) -> str:
        return self._str("text")


class Ledger(Result):
    """`Spec.ledger()`: the settled decisions, E1 … En."""

    __slots__ = ()

    @property
    def entries(self) -> list[dict[str, object]]:
        return self._dicts("entries")

    @property
    def new(self) -> bool:
        return self._bool("new")

    @property
    def outline(self) -> list[str]:
        return self._strs("outline")

    @property
    def text(self) -> str:
        """The entries as the CLI shows them (not in its `--json`)."""
        return self._str("text")


class Digest(Result):
    """`Spec.digest()`: the context digest the phase would record now."""

    __slots__ = ()

    @property
    def phase(self) -> str:
        return self._str("phase")

    @property
    def context_digest(self) -> str:
        return self._str("context_digest")

    @property
    def sources(self) -> list[dict[str, object]]:
        """Each source the digest covers (its path and sha256)."""
        return self._dicts("sources")

    @property
    def recorded(self) -> str | None:
        """The digest the phase's interview recorded, None when none did."""
        return self._opt_str("recorded")

    @property
    def stale(self) -> bool:
        return self._bool("stale", False)


class Allowed(Result):
    """`Spec.check_delegation()`: delegation is allowed (a refusal raises instead)."""

    __slots__ = ()

    @property
    def decision(self) -> str:
        """Always `allow`."""
        return self._str("decision")

    @property
    def path(self) -> str:
        """How the gate was passed: `interview` (approved or skipped) or `quick`."""
        return self._str("path")

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def context_digest(self) -> str:
        return self._str("context_digest")

    @property
    def checked(self) -> str | None:
        """What held the approval: `history` (its commit), `digest-only` outside git."""
        return self._opt_str("checked")

    @property
    def approval_commit(self) -> str | None:
        return self._opt_str("approval_commit")

    @property
    def channel(self) -> str | None:
        """The channel the approval came over (None for a quick bypass)."""
        return self._opt_str("channel")

    @property
    def signed_by(self) -> str | None:
        """The signer, when the approval commit's signature was checked."""
        return self._opt_str("signed_by")

    @property
    def prompt_checked(self) -> bool:
        """Whether a delegated prompt was given and passed the prompt checks."""
        return self._bool("prompt_checked", False)


class Classified(Result):
    """`Spec.classify_reply()`: what a reply is (an option, substantive, control_only, ...)."""

    __slots__ = ()

    @property
    def classification(self) -> str:
        return self._str("classification")

    @property
    def normalized(self) -> str:
        return self._str("normalized")

    @property
    def option(self) -> str | None:
        """The option the reply names, None when it names none."""
        return self._opt_str("option")

    @property
    def option_number(self) -> int | None:
        return self._opt_int("option_number")

    @property
    def parts(self) -> list[dict[str, object]]:
        """A reply to several questions, split by question (empty for one)."""
        return self._dicts("parts", absent=True)


class Frontier(Result):
    """`Spec.frontier()`: the open, unblocked decisions in batches of at most four."""

    __slots__ = ()

    @property
    def frontier(self) -> list[str]:
        return self._strs("frontier")

    @property
    def batches(self) -> list[list[str]]:
        value = self.data.get("batches")
        if not isinstance(value, list) or not all(
                isinstance(b, list) and all(isinstance(i, str) for i in b) for b in value):
            raise _wrong(self.verb, "batches", "a list of lists of strings")
        return value

    @property
    def blocked(self) -> dict[str, list[str]]:
        """Each blocked decision with the open decisions it waits on."""
        value = self._mapping("blocked")
        if not all(isinstance(v, list) and all(isinstance(i, str) for i in v)
                   for v in value.values()):
            raise _wrong(self.verb, "blocked", "a mapping of lists of strings")
        return cast("dict[str, list[str]]", value)

    @property
    def open(self) -> list[str]:
        return self._strs("open")

    @property
    def ready(self) -> bool:
        return self._bool("ready")

    @property
    def investigating(self) -> list[str]:
        return self._strs("investigating")


# -- the spec's content -------------------------------------------------------------------

class Initialized(Result):
    """`mdgrill init`: the new spec's folder and `.progress.md` (repository-relative)."""

    __slots__ = ()

    @property
    def spec(self) -> str:
        return self._str("spec")

    @property
    def path(self) -> str:
        return self._str("path")


class NodeAdded(Result):
    """`Spec.add_node()`: the decision added to the design tree."""

    __slots__ = ()

    @property
    def node(self) -> str:
        """Its ID (the one given, or the one drawn)."""
        return self._str("node")


# -- the interview ------------------------------------------------------------------------

class Mode(Result):
    """`Spec.mode()`: the mode, read or set."""

    __slots__ = ()

    @property
    def mode(self) -> str:
        return self._str("mode")

    @property
    def quick_authorized(self) -> bool | None:
        """Reading: whether a `mode: quick` would bypass (None when setting)."""
        return self._bool("quick_authorized") if "quick_authorized" in self.data else None

    @property
    def interview_reset(self) -> bool:
        """Setting: whether the change ended the open interview (a Reset block)."""
        return self._bool("interview_reset", False)

    @property
    def authorization_recorded(self) -> bool:
        return self._bool("authorization_recorded", False)


class SkillsRecorded(Result):
    """`Spec.record_skill_load()`: the skill-load manifest recorded."""

    __slots__ = ()

    @property
    def interview_reset(self) -> bool:
        return self._bool("interview_reset")

    @property
    def core_failed(self) -> list[str]:
        return self._strs("core_failed")


class Began(Committed):
    """`Spec.begin_interview()`: the interview begun (or resumed)."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def resumed(self) -> bool:
        return self._bool("resumed")

    @property
    def round(self) -> int:
        return self._int("round")

    @property
    def context_digest(self) -> str | None:
        return self._opt_str("context_digest")

    @property
    def reopened(self) -> list[str]:
        """What the interview this one replaced had settled, open again."""
        return self._strs("reopened", absent=True)

    @property
    def previous_answers(self) -> dict[str, str]:
        return self._str_map("previous_answers", absent=True)


class Opened(Result):
    """`Spec.open_frontier()`: the decisions asked in the round."""

    __slots__ = ()

    @property
    def round(self) -> int:
        return self._int("round")

    @property
    def pending(self) -> list[str]:
        return self._strs("pending")

    @property
    def frontier_not_yet_asked(self) -> list[str]:
        """What the round must still ask before it closes."""
        return self._strs("frontier_not_yet_asked")


class AnswerRecorded(Signed):
    """`Spec.record_answer()`: the answer recorded."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def pending(self) -> list[str]:
        return self._strs("pending")

    @property
    def recorded(self) -> str:
        """The answer as the log records it (the option named, or the user's words)."""
        return self._str("recorded")

    @property
    def next(self) -> str | None:
        """After an `Other` answer: the follow-up decision to add."""
        return self._opt_str("next")


class FactRecorded(Signed):
    """`Spec.record_fact()`: the fact recorded."""

    __slots__ = ()

    @property
    def pending(self) -> list[str]:
        return self._strs("pending")


class OutOfScope(Signed):
    """`Spec.out_of_scope()`: the decision placed out of scope."""

    __slots__ = ()

    @property
    def pending(self) -> list[str]:
        return self._strs("pending")


class StopRecorded(Result):
    """`Spec.record_stop()`: the answer to `Ready to build?`."""

    __slots__ = ()

    @property
    def choice(self) -> str:
        return self._str("choice")

    @property
    def open(self) -> list[str]:
        return self._strs("open", absent=True)

    @property
    def next(self) -> str | None:
        return self._opt_str("next")


class Presented(Result):
    """`Spec.await_confirmation()`: the approach presented for approval."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def confirmation_id(self) -> str:
        return self._str("confirmation_id")

    @property
    def question(self) -> list[str]:
        """The approval question's options."""
        return self._strs("question")

    @property
    def approval_scope(self) -> str | None:
        return self._opt_str("approval_scope")


class Confirmed(Committed):
    """`Spec.confirm()`: the approval recorded, and committed."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def round(self) -> int | None:
        return self._opt_int("round")

    @property
    def approval_scope(self) -> str | None:
        return self._opt_str("approval_scope")

    @property
    def channel(self) -> str | None:
        """The channel that carried the approval (docs/approvals.md#channels)."""
        return self._opt_str("channel")

    @property
    def reply_sha256(self) -> str | None:
        return self._opt_str("reply_sha256")


class Selected(Committed):
    """`Spec.approve()`: the selection typed on the terminal, and what it did."""

    __slots__ = ()

    @property
    def choice(self) -> str | None:
        """The option selected, None when nothing was."""
        return self._opt_str("choice")

    @property
    def approved(self) -> bool:
        return self._bool("approved")

    @property
    def next(self) -> str | None:
        return self._opt_str("next")


class Skipped(Signed):
    """`Spec.skip()`: the remaining decisions defaulted; the brief awaits approval."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def confirmation_id(self) -> str:
        return self._str("confirmation_id")

    @property
    def defaulted(self) -> list[str]:
        return self._strs("defaulted")

    @property
    def defaults(self) -> dict[str, str]:
        """Each defaulted decision with its recommended option."""
        return self._str_map("defaults")

    @property
    def question(self) -> list[str]:
        return self._strs("question")


class Revised(Result):
    """`Spec.revise()`: the decisions reopened."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def round(self) -> int:
        return self._int("round")

    @property
    def pending(self) -> list[str]:
        return self._strs("pending")

    @property
    def reopened(self) -> list[str]:
        return self._strs("reopened")

    @property
    def dependents(self) -> list[str]:
        return self._strs("dependents")

    @property
    def kept(self) -> list[str]:
        return self._strs("kept")

    @property
    def previous_answers(self) -> dict[str, str]:
        return self._str_map("previous_answers")


class Cancelled(Signed):
    """`Spec.cancel()`: the user's Cancel recorded (the interview stays open)."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def cancelled(self) -> bool:
        return self._bool("cancelled")

    @property
    def next(self) -> str:
        return self._str("next")


class Amended(Signed):
    """`Spec.amend()`: a recorded answer's wording corrected."""

    __slots__ = ()

    @property
    def decision(self) -> str:
        return self._str("decision")

    @property
    def answer(self) -> str:
        return self._str("answer")

    @property
    def was(self) -> str:
        return self._str("was")

    @property
    def reason(self) -> str:
        return self._str("reason")

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def other(self) -> bool:
        """Whether the answer is the user's own words (`Other`)."""
        return self._bool("other")

    @property
    def note(self) -> str | None:
        """For an `Other` answer: the decision it leads to is still owed."""
        return self._opt_str("note")


class Reopened(Committed):
    """`Spec.reopen()`: the spec gone back to an earlier phase."""

    __slots__ = ()

    @property
    def phase(self) -> str:
        return self._str("phase")

    @property
    def from_phase(self) -> str:
        return self._str("from_phase")

    @property
    def reason(self) -> str:
        return self._str("reason")

    @property
    def superseded(self) -> list[str]:
        """The approvals set aside (`<phase> interview <id>`, `<phase> artifact <path>`)."""
        return self._strs("superseded")


class Questionnaire(Result):
    """`Spec.questionnaire()`: the open round written as questions.md (or why not)."""

    __slots__ = ()

    @property
    def path(self) -> str | None:
        return self._opt_str("path")

    @property
    def questions(self) -> list[str]:
        """The decisions the file asks (their IDs)."""
        return self._strs("questions", absent=True)

    @property
    def next(self) -> str | None:
        """When nothing was written: the step to take instead."""
        return self._opt_str("next")

    @property
    def next_command(self) -> str | None:
        """When nothing was written: the command of that step."""
        return self._opt_str("next_command")


# -- bindings (the CLI's `bind`, `reaffirm`) -------------------------------------------------

class Bound(Committed):
    """`bind`: the decision's targets fingerprinted (`bind SPEC` alone: each decision's, in
    `bound`)."""

    __slots__ = ()

    @property
    def decision(self) -> str:
        """The decision (with `bind SPEC` alone: each one bound, comma-separated)."""
        return self._str("decision")

    @property
    def at(self) -> str:
        """The commit the targets were fingerprinted at (HEAD)."""
        return self._str("at")

    @property
    def answer(self) -> str | None:
        return self._opt_str("answer")

    @property
    def targets(self) -> list[TargetPrint]:
        """Each target with its fingerprint."""
        return _prints(self.verb, "targets", self._dicts("targets", absent=True))

    @property
    def bound(self) -> list[BoundDecision]:
        """`bind SPEC` alone: each decision bound, with its answer and targets."""
        found = self._dicts("bound", absent=True)
        for one in found:
            targets = one.get("targets")
            if not all(isinstance(one.get(k), str) for k in ("decision", "answer", "phase")) \
                    or not isinstance(targets, list):
                raise _wrong(self.verb, "bound", "a list of bound decisions")
            _prints(self.verb, "bound", targets)
        return cast("list[BoundDecision]", found)


def _prints(verb: str, key: str, items: list[dict[str, object]]) -> list[TargetPrint]:
    """`items`, checked to be targets with their fingerprints."""
    if not all(isinstance(t, dict) and isinstance(t.get("target"), str) and
               isinstance(t.get("fingerprint"), str) for t in items):
        raise _wrong(verb, key, "a list of targets with their fingerprints")
    return cast("list[TargetPrint]", items)


class Reaffirmed(Committed):
    """`reaffirm`: the owner's selection for a drifted decision."""

    __slots__ = ()

    @property
    def decision(self) -> str:
        return self._str("decision")

    @property
    def answer(self) -> str:
        return self._str("answer")

    @property
    def selection(self) -> str:
        return self._str("selection")

    @property
    def reopened(self) -> list[str]:
        """`Revise the decision`: the decisions open again."""
        return self._strs("reopened", absent=True)

    @property
    def reopened_phase(self) -> str | None:
        """When the decision's phase went back (a reopening): that phase."""
        return self._opt_str("reopened_phase")


# -- the artifact gate --------------------------------------------------------------------

class Submitted(Result):
    """`Spec.await_artifact_approval()`: the artifact submitted for approval."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def phase(self) -> str:
        return self._str("phase")

    @property
    def path(self) -> str:
        return self._str("path")

    @property
    def sha256(self) -> str:
        return self._str("sha256")

    @property
    def gate(self) -> str:
        return self._str("gate")

    @property
    def feedback_round(self) -> int:
        return self._int("feedback_round")

    @property
    def resubmitted(self) -> bool:
        return self._bool("resubmitted")

    @property
    def changed(self) -> bool:
        return self._bool("changed")


class ArtifactApproved(Committed):
    """`Spec.approve_artifact()`: the artifact approved (and committed with its bytes)."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def phase(self) -> str:
        """The spec's phase now (the next one when the approval advanced it)."""
        return self._str("phase")

    @property
    def approved_phase(self) -> str:
        return self._str("approved_phase")

    @property
    def advanced(self) -> bool:
        return self._bool("advanced")

    @property
    def path(self) -> str:
        return self._str("path")

    @property
    def sha256(self) -> str:
        return self._str("sha256")

    @property
    def gate(self) -> str:
        return self._str("gate")


class RevisionRequested(Signed):
    """`Spec.request_revision()`: the user's feedback on the artifact recorded."""

    __slots__ = ()

    @property
    def status(self) -> str:
        return self._str("status")

    @property
    def phase(self) -> str:
        return self._str("phase")

    @property
    def path(self) -> str:
        return self._str("path")

    @property
    def feedback_round(self) -> int:
        return self._int("feedback_round")

    @property
    def gate(self) -> str:
        return self._str("gate")


class Resolved(Result):
    """`Spec.resolve_approval()`: the approval action a free-text reply maps to."""

    __slots__ = ()

    @property
    def action(self) -> str:
        return self._str("action")

    @property
    def reason(self) -> str:
        return self._str("reason")

    @property
    def options(self) -> list[str]:
        """For a clarification: the options to put to the user again (else empty)."""
        return self._strs("options", absent=True)

    @property
    def gates(self) -> list[str]:
        """Every gate that awaits approval in the spec."""
        return self._strs("gates")

    @property
    def normalized(self) -> str:
        return self._str("normalized")

    @property
    def gate(self) -> str | None:
        return self._opt_str("gate")

    @property
    def phase(self) -> str | None:
        return self._opt_str("phase")

    @property
    def classification(self) -> str:
        return self._str("classification")
