"""`mdgrill.Spec`: drive one spec's interview from Python, as the CLI verbs do.

Each method is a verb (its CLI flags as keyword arguments) and calls the same function of
`services/` the verb calls, so every rule (owners, freshness, evidence, the gate) holds here
as on the command line. A refusal raises `GateRefusal`, bad input `InputError`, both with the
stable code the CLI prints. Nothing here prints. See docs/api.md.
"""

from __future__ import annotations

import os

from mdgrill.services import artifact as artifact_gate
from mdgrill.services import content, interview, replies, rounds
from mdgrill.services import status as reading
from mdgrill.shell import store

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from mdgrill.diagnostics import Diagnostic
    from mdgrill.services.result import (
        Allowed,
        Amended,
        AnswerRecorded,
        ArtifactApproved,
        Began,
        Bound,
        Cancelled,
        Classified,
        Confirmed,
        Digest,
        FactRecorded,
        Frontier,
        Ledger,
        Mode,
        NodeAdded,
        Opened,
        OutOfScope,
        Presented,
        Questionnaire,
        Reaffirmed,
        Reopened,
        Resolved,
        Revised,
        RevisionRequested,
        Selected,
        SkillsRecorded,
        Skipped,
        Status,
        StopRecorded,
        Submitted,
        Tree,
    )
    from mdgrill.services.rounds import Answered, Asked

    T = TypeVar("T")


class Spec:
    """One spec folder (holding `.progress.md`) and the repository it lives in."""

    __slots__ = ("_where",)

    def __init__(self, where: store.Spec) -> None:
        self._where = where

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
             ) -> Spec:
        """The spec at `path` (its folder or its `.progress.md`); `root` is the repository
        root when it cannot be found from the path."""
        return cls(store.resolve_spec(os.fspath(path),
                                      os.fspath(root) if root is not None else None))

    @classmethod
    def init(cls, path: str | os.PathLike[str], *, goal: str, title: str | None = None,
             required_sections: list[str] | None = None, phase: str = "start",
             root: str | os.PathLike[str] | None = None) -> Spec:
        """Create the spec's `.progress.md` (never over an existing one) and open it."""
        where, _ = content.init(os.fspath(path), goal=goal, title=title,
                                required_sections=required_sections, phase=phase,
                                root=os.fspath(root) if root is not None else None)
        return cls(where)

    @property
    def folder(self) -> str:
        """The spec's folder, absolute."""
        return self._where.folder

    @property
    def progress(self) -> str:
        """Its `.progress.md`, absolute."""
        return self._where.progress

    @property
    def root(self) -> str:
        """The repository (or plain folder) whose rules apply."""
        return self._where.root

    def __repr__(self) -> str:
        return f"Spec.open({self._where.folder!r})"

    # -- reading ----------------------------------------------------------------------------

    def status(self) -> Status:
        """One screen on the spec, as `mdgrill status --json` gives it."""
        return reading.status(self._where)

    def tree(self, *, format: str = "text") -> Tree:
        """The design tree: `["nodes"]`, and `["text"]` drawn as text or Mermaid."""
        return reading.tree(self._where, format=format)

    def ledger(self, *, new: bool = False) -> Ledger:
        """The settled decisions (E1 … En); `new`: those the last round settled."""
        return reading.ledger(self._where, new=new)

    def validate(self) -> list[Diagnostic]:
        """Its diagnostics, as `mdgrill validate SPEC` finds them (empty when valid)."""
        return reading.validate(self._where)

    def digest(self, *, phase: str | None = None, compat: str | None = None) -> Digest:
        """The context digest the phase would record now."""
        return interview.digest(self._where, phase=phase, compat=compat)

    def check_delegation(self, *, phase: str, interview_id: str,
                         context_digest: str | None = None,
                         discovery_revision: str | None = None,
                         prompt: str | None = None) -> Allowed:
        """Allow delegation only for an approved, current interview (else GateRefusal); the
        delegated `prompt`, when given, must pass the prompt checks."""
        return interview.check_delegation(self._where, phase=phase, interview_id=interview_id,
                                          context_digest=context_digest,
                                          discovery_revision=discovery_revision, prompt=prompt)

    def classify_reply(self, text: str, *, decision_id: str) -> Classified:
        """What a reply to one decision is: an option, substantive, control_only, ..."""
        return replies.classify_reply(text, spec=self._where, decision_id=decision_id)

    def frontier(self, *, group: str | None = None) -> Frontier:
        """The open, unblocked decisions in batches of at most four."""
        return content.frontier(self._where, group=group)

    # -- the interview ------------------------------------------------------------------------

    def add_node(self, node_id: str | None = None, *, title: str, section: str | None = None,
                 depends_on: list[str] | None = None, spawned_by: str | None = None,
                 options: list[str] | None = None, recommend: int | None = None,
                 evidence: str | None = None, investigating: str | None = None,
                 recommendation: str | None = None, rationale: str | None = None,
                 tradeoffs: str | None = None, consequences: str | None = None) -> NodeAdded:
        """Add a decision to the design tree (`node add`): 2 to 4 options, `recommend` the
        recommended one's number (1-based)."""
        return content.add_node(self._where, node_id=node_id, title=title, section=section,
                                depends_on=depends_on, spawned_by=spawned_by, options=options,
                                recommend=recommend, evidence=evidence,
                                investigating=investigating, recommendation=recommendation,
                                rationale=rationale, tradeoffs=tradeoffs,
                                consequences=consequences)

    def mode(self, *, quick: bool = False, interactive: bool = False) -> Mode:
        """The mode; `quick=True` or `interactive=True` sets it."""
        return interview.mode(self._where, quick=quick, interactive=interactive)

    def record_skill_load(self, *, input: str) -> SkillsRecorded:
        """Record the skill-load manifest (a JSON file's path)."""
        return interview.record_skill_load(self._where, input=input)

    def begin_interview(self, *, phase: str, interview_id: str, round: int | None = None,
                        discovery_revision: str | None = None,
                        no_commit: bool = False) -> Began:
        """Begin (or resume) the phase's interview."""
        return interview.begin_interview(self._where, phase=phase, interview_id=interview_id,
                                         round=round, discovery_revision=discovery_revision,
                                         no_commit=no_commit)

    def open_frontier(self, *, round: int, decision_ids: list[str]) -> Opened:
        """Ask these decisions in round `round` (the current or the next)."""
        return interview.open_frontier(self._where, round=round, decision_ids=decision_ids)

    def ask(self) -> Asked:
        """Open the round the gate requires; its questions as the question tool's payload."""
        return rounds.ask(self._where)

    def answer(self, tool_result: str, *, by: str | None = None) -> Answered:
        """Record the question tool's result (its JSON text) or the user's plain reply."""
        return rounds.answer(self._where, tool_result=tool_result, by=by)

    def questionnaire(self) -> Questionnaire:
        """Write the open round as the spec's questions.md."""
        return rounds.questionnaire(self._where)

    def collect(self, *, file: str | None = None, by: str | None = None) -> Answered:
        """Record the answers filled in questions.md (or `file`)."""
        return rounds.collect(self._where, file=file, by=by)

    def record_answer(self, decision_id: str, answer: str, *, by: str | None = None,
                      other: bool = False, assumption: str | None = None) -> AnswerRecorded:
        """Record the user's answer to one pending decision."""
        return interview.record_answer(self._where, decision_id=decision_id, answer=answer,
                                       by=by, other=other, assumption=assumption)

    def record_fact(self, text: str, *, decision_id: str | None = None,
                    by: str | None = None) -> FactRecorded:
        """Record a fact found in the code or docs."""
        return interview.record_fact(self._where, text=text, decision_id=decision_id, by=by)

    def out_of_scope(self, decision_id: str, *, reply: str, by: str | None = None) -> OutOfScope:
        """Record that the user placed a decision out of scope (`reply`: their words)."""
        return interview.out_of_scope(self._where, decision_id=decision_id, reply=reply, by=by)

    def record_stop(self, *, choice: str, section: str | None = None) -> StopRecorded:
        """Record the answer to `Ready to build?` (ship, keep-asking, refine)."""
        return interview.record_stop(self._where, choice=choice, section=section)

    def await_confirmation(self, *, decision_id: str, approach: str,
                           brief_file: str | None = None) -> Presented:
        """Close the rounds and present the approach for approval."""
        return interview.await_confirmation(self._where, decision_id=decision_id,
                                            approach=approach, brief_file=brief_file)

    def confirm(self, *, decision_id: str, source: str = "approve-and-delegate",
                reply: str | None = None, by: str | None = None,
                no_commit: bool = False, sign: bool = False) -> Confirmed:
        """Record the user's explicit approval and commit it (`sign`: a signed commit)."""
        return interview.confirm(self._where, decision_id=decision_id, source=source,
                                 reply=reply, by=by, no_commit=no_commit, sign=sign)

    def approve(self, *, sign: bool = False) -> Selected:
        """Show the brief on the controlling terminal and act on the selection typed there
        (`NO_TERMINAL` without one)."""
        from mdgrill.services.approve import approve

        return approve(self._where, sign=sign)

    def skip(self, *, reason: str, assumptions: list[str],
             decision_id: str = "skip-confirmation", by: str | None = None) -> Skipped:
        """Skip the remaining decisions with assumptions (confirm follows)."""
        return interview.skip(self._where, reason=reason, assumptions=assumptions,
                              decision_id=decision_id, by=by)

    def revise(self, *, decision_ids: list[str], keep: list[str] | None = None) -> Revised:
        """Reopen decisions (and their answered dependents, but those kept) after the
        brief."""
        return interview.revise(self._where, decision_ids=decision_ids, keep=keep)

    def cancel(self, *, reply: str | None = None, by: str | None = None) -> Cancelled:
        """Record the user's Cancel."""
        return interview.cancel(self._where, reply=reply, by=by)

    def amend(self, decision_id: str, *, answer: str, reason: str,
              by: str | None = None) -> Amended:
        """Correct a recorded answer's wording."""
        return interview.amend(self._where, decision_id=decision_id, answer=answer,
                               reason=reason, by=by)

    def reopen(self, *, phase: str, reason: str, by: str | None = None,
               no_commit: bool = False) -> Reopened:
        """Go back to an earlier phase (committed unless `no_commit`)."""
        return interview.reopen(self._where, phase=phase, reason=reason, by=by,
                                no_commit=no_commit)

    # -- the artifact gate --------------------------------------------------------------------

    def await_artifact_approval(self, *, artifact: str) -> Submitted:
        """Submit the phase's artifact (a path) for the user's approval."""
        return artifact_gate.await_artifact_approval(self._where, artifact=artifact)

    def approve_artifact(self, *, source: str, by: str | None = None,
                         no_commit: bool = False) -> ArtifactApproved:
        """Record the artifact's approval and commit it (`source`: the user's selection,
        `approve-artifact`)."""
        return artifact_gate.approve_artifact(self._where, source=source, by=by,
                                              no_commit=no_commit)

    def request_revision(self, *, feedback: str, by: str | None = None) -> RevisionRequested:
        """Record what the user wants changed in the artifact."""
        return artifact_gate.request_revision(self._where, feedback=feedback, by=by)

    def resolve_approval(self, *, text: str) -> Resolved:
        """The one live approval action a free-text reply maps to (reads only)."""
        return artifact_gate.resolve_approval(self._where, text=text)

    # -- decisions bound to the code ---------------------------------------------------------

    def bind(self, decision_id: str | None = None, targets: list[str] | None = None, *,
             by: str | None = None, no_commit: bool = False) -> Bound:
        """Bind a settled decision to the code and docs that carry it out (fingerprinted at
        HEAD, committed); with no decision, every hand-written `- Binds:` target not bound
        yet (docs/bindings.md)."""
        from mdgrill.services.bindings import bind_decision

        return bind_decision(self._where, decision_id=decision_id, targets=list(targets or []),
                             by=by, no_commit=no_commit)

    def reaffirm(self, decision_id: str, *, reply: str, by: str | None = None,
                 no_commit: bool = False) -> Reaffirmed:
        """Record the owner's selection for a decision whose bound code drifted (`Still
        holds`, `Revise the decision`, `The change was wrong`), committed."""
        from mdgrill.services.bindings import reaffirm_decision

        return reaffirm_decision(self._where, decision_id=decision_id, reply=reply, by=by,
                                 no_commit=no_commit)


# -- the arguments' types, held at the door ---------------------------------------------------
# A Python caller gets no type checker at run time: `skip(assumptions="xy")` recorded two
# assumptions, `x` and `y`, `add_node(options="ab")` two options, and `record_answer("D1",
# None)` ended in an AttributeError. Each public method's arguments are held to its own
# annotations (the few this API uses) before it runs: a wrong one is INVALID_INPUT, nothing
# read or written, as the CLI and the MCP server refuse theirs.

def _accepts(annotation: str, value: object) -> bool:
    """Whether `value` is of the annotated type (`str`, `int`, `bool`, `list[str]`,
    `os.PathLike[str]`, unions of them with `None`); a type not named here is not checked."""
    for kind in annotation.split("|"):
        kind = kind.strip()
        if kind == "None":
            ok = value is None
        elif kind == "str":
            ok = isinstance(value, str)
        elif kind == "int":  # a bool is an int to Python, not to a caller asking for a round
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "bool":
            ok = isinstance(value, bool)
        elif kind == "list[str]":  # a str is a sequence of str: the mistake this is for
            ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        elif kind == "os.PathLike[str]":
            ok = isinstance(value, os.PathLike)
        else:
            return True
        if ok:
            return True
    return False


def _typed(method: Callable[..., T]) -> Callable[..., T]:
    """`method`, refusing an argument its annotation does not admit (INVALID_INPUT)."""
    from functools import wraps

    code = method.__code__
    positional = code.co_varnames[1:code.co_argcount]  # after self (or cls)
    hints: dict[str, str] = {k: v for k, v in method.__annotations__.items()
                             if isinstance(v, str) and k != "return"}

    @wraps(method)
    def run(first: object, *args: object, **kwargs: object) -> T:
        # more arguments than names: the method itself raises the TypeError Python would
        for name, value in (*zip(positional, args, strict=False), *kwargs.items()):
            hint = hints.get(name)
            if hint is not None and not _accepts(hint, value):
                from mdgrill.errors import InputError

                raise InputError("INVALID_INPUT",
                                 f"Spec.{method.__name__}: {name} takes {hint}, not "
                                 f"{type(value).__name__} ({value!r:.80}); nothing was read "
                                 "or written")
        return method(first, *args, **kwargs)
    return run


for _name, _member in list(vars(Spec).items()):
    if _name.startswith("_"):
        continue
    if isinstance(_member, classmethod):
        setattr(Spec, _name, classmethod(_typed(_member.__func__)))
    elif callable(_member):
        setattr(Spec, _name, _typed(_member))
del _name, _member
