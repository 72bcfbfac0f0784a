"""Map a user's reply to the one live approval action, or ask. Pure, table-driven; writes
nothing (the reply is recorded with the transition it leads to).

Two gates, two rules:

- The interview's final approval, exactly as the framework has it: "Ask `Approve and
  delegate`, `Revise decisions`, or `Cancel`. Only the explicit approval selection completes
  the gate." The three labels (with or without ` (Recommended)`, or their numbers 1-3) resolve
  to `approve-and-delegate`, `revise`, `cancel`; a control-only reply (`yes`, `proceed`)
  resolves to `ask-again` with the three options; anything else to `clarification`.
- An artifact's approval has options of its own (`artifact_gate.approval_options`):
  `Approve requirements.md and continue to design (Recommended)`, `Request changes`,
  `Cancel`; only the first selection approves ("Keep the phase in artifact approval until
  the user explicitly approves"). A plain approval (`yes`, `continue`, `lgtm`: after the
  reply normalization of `replies`, a sequence of phrases from the tables below) is asked
  again; a question, a quotation, a negation, a condition, a change request or an unknown
  word is `clarification`. `apply the changes` after a revision request means revise. See
  docs/artifact-gate.md.
"""

from __future__ import annotations

import re

from mdgrill.core import artifact_gate
from mdgrill.model import artifact as artifact_model
from mdgrill.model.artifact import AWAITING, REVISION, gate_id
from mdgrill.model.replies import classify, normalize_reply

APPROVE_AND_DELEGATE = "approve-and-delegate"
REVISE = "revise"
CANCEL = "cancel"
ASK_AGAIN = "ask-again"
APPROVAL_LABELS = {"approve and delegate": APPROVE_AND_DELEGATE, "revise decisions": REVISE,
                   "cancel": CANCEL}
_NUMBERED = {"1": APPROVE_AND_DELEGATE, "2": REVISE, "3": CANCEL}
APPROVE_ARTIFACT = "approve-artifact"
APPLY_REVISION = "apply-revision"
REQUEST_REVISION = "request-revision"
CLARIFICATION = "clarification"
MAX_WORDS = 24
_MARK = "(recommended)"

# unit classes
ACK = "ack"  # an approval word: yes, looks good, approved
GO = "go"  # a go-on: continue, do it, ship it
GO_PHASE = "go_phase"  # a go-on that names where to go: continue to design
APPROVE_PHASE = "approve_phase"  # an approval that names what: approve the requirements
APPLY = "apply"  # apply the changes (= revise with the feedback given)
FILLER = "filler"  # and, then, now, thanks

ACK_PHRASES = (
    "yes", "y", "yep", "yeah", "yup", "sure", "ok", "okay", "alright", "all right", "fine",
    "good", "great", "perfect", "excellent", "approved", "approve", "i approve", "approve it",
    "approve this", "approve that", "confirmed", "confirm", "agreed", "agree", "i agree",
    "accept", "accepted", "i accept", "lgtm", "looks good", "looks good to me", "look good",
    "looks great", "looks fine", "looks right", "looks correct", "sounds good", "sounds great",
    "sounds right", "sounds fine", "all good", "good to go", "makes sense", "works for me",
    "that works", "this works", "that s fine", "this is fine", "that s good", "this is good",
    "that looks good", "this looks good", "it looks good", "it s good", "love it",
    "happy with it", "i m happy with it", "exactly", "correct", "right", "cool", "nice",
)
GO_PHRASES = (
    "continue", "proceed", "go ahead", "go on", "go for it", "carry on", "move on", "next",
    "do it", "ship it", "let s go", "lets go", "let s do it", "lets do it", "keep going",
    "onward", "onwards", "next step", "next phase", "go", "make it so", "you may proceed",
    "please proceed", "please continue", "continue please", "proceed please",
)
APPLY_PHRASES = (
    "apply the changes", "apply the change", "apply changes", "apply those changes",
    "apply these changes", "apply them", "apply it", "apply that", "apply the feedback",
    "apply my feedback", "apply the revision", "apply the revisions", "make the changes",
    "make those changes", "make the change", "make that change", "revise it", "revise",
    "do the revision", "go ahead and revise", "go ahead and apply", "apply",
)
FILLER_PHRASES = ("and", "then", "now", "so", "thanks", "thank you", "please")
PHASE_WORDS = {
    "start": ("goal", "start"),
    "research": ("research",),
    "requirements": ("requirements", "requirement", "reqs", "requirements doc",
                     "requirements document", "requirements md"),
    "design": ("design", "design doc", "design document", "design md"),
    "tasks": ("tasks", "task list", "tasks md", "task breakdown"),
    "triage": ("triage", "epic", "epic md"),
    # what follows the last phase: carrying out the tasks
    "execution": ("implementation", "execution", "coding", "building the tasks"),
}
GO_VERBS = ("continue", "proceed", "move on", "move", "go", "go on", "go ahead", "carry on",
            "keep going", "advance", "let s go", "lets go", "let s move on", "let s continue")
GO_PREPS = ("to", "with", "into", "on to", "onto")
START_VERBS = ("start", "begin", "start on", "do", "write", "let s do", "let s start",
               "on to", "onto", "time for", "next is", "now")
APPROVE_VERBS = ("approve", "i approve", "accept", "confirm")
STATE_WORDS = ("look good", "looks good", "are good", "is good", "are fine", "is fine",
               "are approved", "is approved", "approved", "lgtm", "ok", "okay", "look great",
               "looks great")

NEGATIONS = frozenset({"not", "no", "don", "dont", "doesn", "didn", "isn", "aren", "won",
                       "wont", "cannot", "cant", "never", "nope", "nah", "neither", "nor",
                       "stop", "wait", "hold", "hang", "cancel", "reject", "rejected", "decline",
                       "declined", "nothing", "nobody", "without", "shouldn", "wouldn"})
CONDITIONS = frozenset({"but", "however", "though", "although", "except", "unless", "if",
                        "once", "after", "before", "until", "when", "provided", "assuming",
                        "otherwise", "first", "only"})
CHANGES = frozenset({"add", "change", "changes", "fix", "remove", "update", "modify", "rename",
                     "replace", "rewrite", "edit", "tweak", "adjust", "drop", "delete",
                     "include", "use", "move", "split", "merge", "should", "could", "must",
                     "need", "needs", "missing", "instead", "more", "less", "extend", "shorten",
                     "expand", "clarify", "caching", "also"})
_QUOTE_CHARS = re.compile("[\"“”„«»`]|(?<![A-Za-z])['‘’]|['‘’](?![A-Za-z])")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _alt(phrases: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)) + ")"


_TABLE: dict[str, tuple[str, str]] = {}
_PHASE_OF: dict[str, str] = {}
_GO_PHASE: re.Pattern[str] | None = None
_APPROVE_PHASE: re.Pattern[str] | None = None
_LONGEST = 10


def _compile() -> None:
    global _GO_PHASE, _APPROVE_PHASE
    for cls, phrases in ((APPLY, APPLY_PHRASES), (ACK, ACK_PHRASES), (GO, GO_PHRASES),
                         (FILLER, FILLER_PHRASES)):
        for phrase in phrases:
            _TABLE.setdefault(phrase, (cls, ""))
    for phase, words in PHASE_WORDS.items():
        for word in words:
            _PHASE_OF[word] = phase
    named = rf"(?:the )?(?P<p>{_alt(tuple(_PHASE_OF))})(?: phase| stage| step)?"
    _GO_PHASE = re.compile(rf"(?:{_alt(GO_VERBS)} {_alt(GO_PREPS)} |{_alt(START_VERBS)} ){named}")
    # `approve the design` or `the design looks good` (one named group: a conditional)
    _APPROVE_PHASE = re.compile(
        rf"(?P<v>{_alt(APPROVE_VERBS)} )?{named}(?(v)| {_alt(STATE_WORDS)})")


def _unit(phrase: str) -> tuple[str, str] | None:
    found = _TABLE.get(phrase)
    if found is not None:
        return found
    assert _GO_PHASE is not None and _APPROVE_PHASE is not None
    for cls, pattern in ((GO_PHASE, _GO_PHASE), (APPROVE_PHASE, _APPROVE_PHASE)):
        m = pattern.fullmatch(phrase)
        if m is not None:
            return cls, _PHASE_OF[m.group("p")]
    return None


def units(normalized: str) -> list[tuple[str, str]] | None:
    """The reply as a sequence of table units (fewest units), or None if a word is unknown."""
    if _GO_PHASE is None:
        _compile()
    words = normalized.split()
    # best[i]: a segmentation of words[:i] with the fewest units
    best: list[list[tuple[str, str]] | None] = [None] * (len(words) + 1)
    best[0] = []
    for i in range(len(words)):
        done = best[i]
        if done is None:
            continue
        for j in range(min(len(words), i + _LONGEST), i, -1):
            unit = _unit(" ".join(words[i:j]))
            if unit is not None:
                known = best[j]
                if known is None or len(done) + 1 < len(known):
                    best[j] = [*done, unit]
    return best[len(words)]


def approval_choice(text: str) -> str | None:
    """The final-approval option a reply selects exactly, or None.

    `Approve and delegate`, `Revise decisions`, `Cancel` (case and surrounding space ignored,
    ` (Recommended)` allowed), or the option's number as the question listed them (`1`, `2.`).
    """
    label = text.strip()
    if label[-len(_MARK):].lower() == _MARK:  # by hand: `\s*\(recommended\)\s*\Z` is quadratic
        label = label[:-len(_MARK)]
    label = label.strip().rstrip(".").strip()
    found = APPROVAL_LABELS.get(" ".join(label.lower().split()))
    if found is not None:
        return found
    return _NUMBERED.get(label)


class Gate:
    """One live gate: the action an approval of it would take, its ID and phase."""

    __slots__ = ("action", "gate", "phase", "kind")

    def __init__(self, action: str, gate: str, phase: str, kind: str) -> None:
        self.action = action
        self.gate = gate
        self.phase = phase
        self.kind = kind  # interview | artifact | revision


def live_gates(data: dict[str, object]) -> list[Gate]:
    """The gates that await the user's word now."""
    gates: list[Gate] = []
    iv = data.get("interview")
    if isinstance(iv, dict) and iv.get("status") == "awaiting_confirmation":
        pending = iv.get("pending")
        cid = pending[0] if isinstance(pending, list) and pending else "?"
        gates.append(Gate(APPROVE_AND_DELEGATE, f"interview:{iv.get('id')}:{cid}",
                          str(iv.get("phase")), "interview"))
    art = data.get("artifact")
    if isinstance(art, dict) and art.get("status") in (AWAITING, REVISION):
        if art["status"] == AWAITING:
            gates.append(Gate(APPROVE_ARTIFACT, gate_id(art), str(art.get("phase")), "artifact"))
        else:
            gates.append(Gate(APPLY_REVISION, gate_id(art), str(art.get("phase")), "revision"))
    return gates


class Resolution:
    """What a reply resolves to: an action (or clarification), why, and the gate."""

    __slots__ = ("action", "reason", "gate", "phase", "normalized", "gates", "options",
                 "classification")

    def __init__(self, action: str, reason: str, gate: Gate | None, normalized: str,
                 gates: list[Gate], options: list[str] | None = None) -> None:
        self.options = options
        self.classification = classify(normalized).kind
        self.action = action
        self.reason = reason
        self.gate = gate.gate if gate is not None else None
        self.phase = gate.phase if gate is not None else None
        self.normalized = normalized
        self.gates = [g.gate for g in gates]

    @property
    def accepted(self) -> bool:
        return self.action not in (CLARIFICATION, ASK_AGAIN)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"action": self.action, "reason": self.reason,
                                  "gate": self.gate, "phase": self.phase,
                                  "normalized": self.normalized,
                                  "classification": self.classification, "gates": self.gates}
        if self.options is not None:
            out["options"] = self.options
        return out


def _why_not(raw: str, normalized: str) -> str:
    """Why an unparsed reply is not an approval, in words the user would use."""
    words = set(normalized.split())
    if words & NEGATIONS:
        return "the reply holds a negation (e.g. `not`, `don't`, `wait`): it is not an approval"
    if words & CONDITIONS:
        return "the reply is qualified or conditional (`but`, `after`, `if`, ...): ask what " \
               "should happen first"
    if words & CHANGES:
        return "the reply asks for a change: record it with `request-revision` (artifact) or " \
               "`revise` (interview) instead of approving"
    return f"`{raw.strip()}` is not one of the options: ask the question again, or what " \
           "the user wants changed"


def _prefilter(text: str) -> str | None:
    if _CONTROL.search(text):
        return "the reply holds control characters"
    if "?" in text or "？" in text:
        return "the reply is a question, not an approval: answer it first"
    if _QUOTE_CHARS.search(text):
        return "the reply quotes a phrase: a quoted word is not the user's own approval"
    return None


def resolve(data: dict[str, object], text: str) -> Resolution:
    """Map a reply to the one live action, or to `clarification` with the reason."""
    normalized = normalize_reply(text) if isinstance(text, str) else ""
    gates = live_gates(data)

    options: list[str] | None = None  # the artifact question's, once its gate is the one

    def ask(reason: str, gate: Gate | None = None) -> Resolution:
        return Resolution(CLARIFICATION, reason, gate, normalized, gates, options)

    if not gates:
        return ask("nothing awaits approval in this spec: there is no live gate")
    if len(gates) > 1:
        return ask("two gates are open (" + ", ".join(f"{g.action} {g.gate}" for g in gates)
                   + "): ask which one the user means")
    gate = gates[0]
    if gate.kind == "interview":
        return _resolve_interview(text, normalized, gate, gates)
    art = artifact_model.artifact_of(data) or {}
    if gate.kind == "artifact":
        options = artifact_gate.approval_options(art)
        chosen = _artifact_selection(art, text, normalized, gate, gates, options)
        if chosen is not None:
            return chosen
    return _read_reply(art, text, normalized, gate, gates, options)


def _read_reply(art: dict[str, object], text: str, normalized: str, gate: Gate,
                gates: list[Gate], options: list[str] | None) -> Resolution:
    """An artifact gate's reply that selects no option: read against the phrase tables."""

    def ask(reason: str, gate: Gate) -> Resolution:
        return Resolution(CLARIFICATION, reason, gate, normalized, gates, options)

    early = _prefilter(text)
    if early is not None:
        return ask(early, gate)
    if not normalized:
        return ask("the reply is empty", gate)
    if len(normalized.split()) > MAX_WORDS:
        return ask("the reply is too long to be a plain approval: read it and ask", gate)
    parsed = units(normalized)
    if parsed is None:
        return ask(_why_not(text, normalized), gate)
    classes = {cls for cls, _ in parsed}
    if classes <= {FILLER}:
        return ask("the reply says nothing about the gate", gate)
    go_to = {p for cls, p in parsed if cls == GO_PHASE}
    named = {p for cls, p in parsed if cls == APPROVE_PHASE}
    if APPLY in classes:
        if go_to or named or gate.kind != "revision":
            reason = ("`apply the changes` asks for a revision, and no revision is requested: "
                      "record the user's feedback with `request-revision` first"
                      if gate.kind == "artifact" else
                      "`apply the changes` is not an approval: ask what the user wants")
            return ask(reason, gate)
        return Resolution(APPLY_REVISION, "the user asks to revise the artifact with the "
                          "recorded feedback", gate, normalized, gates)
    if gate.kind == "revision":
        return ask("a revision of the artifact was requested: ask whether to apply the feedback "
                   "(`apply the changes`) before anything is approved", gate)
    # The artifact's own options say where approving it leads (`continue to design` at the
    # requirements gate, which `_artifact_selection` took): a go-on naming another phase,
    # even the gate's own (`continue to requirements` may mean "keep working on them"), is
    # not that selection, and the user may believe another gate is open, so it is asked.
    following = artifact_model.next_phase(gate.phase)
    if go_to and go_to <= {following}:
        return Resolution(ASK_AGAIN, f"`{text.strip()}` holds more than the selection "
                          f"`continue to {following}`: ask the question again and take the "
                          "selection alone (its label, its number, or `continue to "
                          f"{following}`)", gate, normalized, gates, options)
    if go_to:
        said = ", ".join(sorted(go_to))
        return ask(f"the reply names {said}, but the selection that approves the "
                   f"{gate.phase} artifact is `{artifact_gate.approve_label(art)}`: ask "
                   "which the user means", gate)
    if named - {gate.phase}:
        said = ", ".join(sorted(named - {gate.phase}))
        return ask(f"the reply names {said}, but the live gate is the {gate.phase} artifact: "
                   "ask which the user means", gate)
    # "Do not infer … approval from a control-only reply": a plain `yes` or `continue`
    # approves no file; the question is asked again with its options.
    return Resolution(ASK_AGAIN, f"`{text.strip()}` is a plain approval, not the selection "
                      f"`{artifact_gate.approve_label(art)}`: the {gate.phase} artifact "
                      "stays awaiting approval; ask its question again (`mdgrill ask SPEC`)",
                      gate, normalized, gates, options)


def _artifact_selection(art: dict[str, object], text: str, normalized: str, gate: Gate,
                        gates: list[Gate], options: list[str]) -> Resolution | None:
    """The resolution of a reply that selects one of the artifact question's options."""
    choice = artifact_gate.artifact_choice(art, text) if isinstance(text, str) else None
    if choice == artifact_gate.CHOOSE_APPROVE:
        return Resolution(APPROVE_ARTIFACT, f"the explicit selection `{options[0]}`", gate,
                          normalized, gates)
    if choice == artifact_gate.CHOOSE_CHANGES:
        return Resolution(REQUEST_REVISION, "the user chose `Request changes`: ask what should "
                          "change and record it with `mdgrill request-revision SPEC --feedback "
                          "TEXT`; then revise the file and submit it again", gate, normalized,
                          gates)
    if choice == artifact_gate.CHOOSE_CANCEL:
        return Resolution(CANCEL, f"the user chose `Cancel`: nothing is approved, "
                          f"{art.get('path')} stays awaiting approval and the phase does not "
                          "move; stop here", gate, normalized, gates)
    return None


def _resolve_interview(text: str, normalized: str, gate: Gate,
                       gates: list[Gate]) -> Resolution:
    choice = approval_choice(text) if isinstance(text, str) else None
    if choice == APPROVE_AND_DELEGATE:
        return Resolution(choice, "the explicit selection `Approve and delegate`", gate,
                          normalized, gates)
    if choice == REVISE:
        return Resolution(choice, "the user chose `Revise decisions`: ask which decisions, then "
                          "`mdgrill revise` with every affected ID", gate, normalized, gates)
    if choice == CANCEL:
        return Resolution(choice, "the user chose `Cancel`: `mdgrill cancel`, and stop without "
                          "delegating", gate, normalized, gates)
    kind = classify(text).kind if isinstance(text, str) else "control_only"
    if kind == "control_only":
        return Resolution(ASK_AGAIN, f"`{text.strip()}` is control-only: it does not approve. "
                          "Keep awaiting confirmation and ask the approval question again",
                          gate, normalized, gates, options=APPROVAL_QUESTION)
    return Resolution(CLARIFICATION, "not one of the three choices: answer what the user "
                      "said, then ask the approval question again", gate, normalized, gates,
                      options=APPROVAL_QUESTION)


# The final approval question's options, in order (the first is the only approval)
APPROVAL_QUESTION = ["Approve and delegate (Recommended)", "Revise decisions", "Cancel"]


__all__ = ["APPLY_REVISION", "APPROVAL_QUESTION", "APPROVE_AND_DELEGATE", "APPROVE_ARTIFACT",
           "ASK_AGAIN", "CANCEL", "CLARIFICATION", "REQUEST_REVISION", "REVISE", "Gate",
           "Resolution", "approval_choice", "live_gates", "resolve", "units"]
