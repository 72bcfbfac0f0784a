"""Random verb sequences with random replies never record a non-answer (issue 31's property).

The framework: control-only replies "do not answer any active decision"; the user stops with
"done", "that's enough", "build it", "or similar"; a bare `skip` defaults the rest, it answers
nothing. Hypothesis's state machine drives one interview through `mdgrill.Spec` in this
process, in a real git repository in a temp folder: begin (and resume), open rounds, `ask`,
`record_answer`, `answer` (a plain reply, or the question tool's JSON), `amend`,
`out_of_scope`, follow-up nodes, `skip`, `await_confirmation`, `confirm`, `revise`, `cancel`,
`record_stop`, `reopen`. Each reply is drawn from the classifier's own table
(tests/fixtures/replies.tsv: every class, 20+ languages), the options' labels, letters and
numbers, and free text, in any case, with emoji, repeated letters and punctuation.

After every step: no decision's answer in the ledger is one the classifier, with the
decision's options in view, calls control-only, bare skip, stop or skip-one; the file has no
error diagnostic; a verb that recorded an answer recorded the option or the words given. A
refusal is an `MdgrillError` whose code is one the verb may give for this reason (an explicit
set per verb: anything else fails). A few sequences run through the installed CLI as well.

Derandomized (and seeded from the committed example database, tests/conftest.py's profile),
so a failure replays as it was found; bounded so the file runs in a few seconds.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import git_init, mdgrill_command
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import mdgrill
from mdgrill.formats.progress import read_progress
from mdgrill.model.replies import (
    ACCEPT_RECOMMENDATION,
    NOT_AN_ANSWER,
    SUBSTANTIVE,
    classify,
    option_label,
)
from mdgrill.model.tree import DEFAULTED_ANSWER, ledger_of

TABLE_FILE = Path(__file__).parent / "fixtures" / "replies.tsv"


def _table() -> list[tuple[str, str]]:
    with TABLE_FILE.open(encoding="utf-8") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        return [(reply, kind) for reply, kind, _ in rows]


TABLE = _table()
NON_ANSWERS = sorted({r for r, k in TABLE if k in NOT_AN_ANSWER})
ACCEPTS = sorted({r for r, k in TABLE if k == ACCEPT_RECOMMENDATION})
SUBSTANTIVES = sorted({r for r, k in TABLE if k == SUBSTANTIVE})

# The tree every interview starts from: ID -> (title, options, recommended number, depends on)
NODES: dict[str, tuple[str, list[str], int, list[str]]] = {
    "D1": ("Who may use a promo code?", ["Every customer", "Staff only: fewer abuses"], 1, []),
    "D2": ("Stack codes with sales?", ["Yes", "No"], 2, []),
    "D3": ("How long is a code valid?", ["A week", "A month", "Until used"], 2, ["D1"]),
    "D4": ("Where is a code entered?", ["At checkout", "In the cart"], 1, []),
}
FOLLOW_UP_OPTIONS = ["Keep it", "Drop it"]
IDS = [*NODES, "D5", "D6"]  # D5, D6: the follow-ups `Other` answers lead to (or no node yet)

LABELS = sorted({option_label(o) for _, options, _, _ in NODES.values() for o in options}
                | set(FOLLOW_UP_OPTIONS))
CHOICES = ["1", "2", "3", "a", "b", "option 2", "the second one", "#1", "2.",
           "Every customer (Recommended)", "No (Recommended)"]
FREE = ["Only for EU cards", "15 minutes", "ok, only for EU cards", "staff and partners",
        "skip the tax part but keep VAT", "done with coupons, use gift cards instead",
        "yes, but only on weekdays", "Postgres", "42"]


def _repeat_last_letter(text: str) -> str:
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    if not letters:
        return text
    i = letters[-1]
    return text[:i + 1] + text[i] * 3 + text[i + 1:]


MARKS = [str.upper, str.lower, str.title, _repeat_last_letter,
         lambda t: t + " 👍", lambda t: "🙂 " + t, lambda t: t + "!!!", lambda t: t + "...",
         lambda t: t + "?", lambda t: f"  {t}  ", lambda t: t.replace(" ", ",  ")]


@st.composite
def marked(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A reply with 0-2 of the marks people add: case, emoji, repeated letters, punctuation."""
    text = draw(base)
    for mark in draw(st.lists(st.sampled_from(MARKS), max_size=2)):
        text = mark(text)
    return text


# Non-answers weigh most: they are what must never be recorded.
non_answers = marked(st.sampled_from(NON_ANSWERS))
replies = st.one_of(
    marked(st.sampled_from(NON_ANSWERS)), marked(st.sampled_from(NON_ANSWERS)),
    marked(st.sampled_from(ACCEPTS)), marked(st.sampled_from(LABELS)),
    st.sampled_from(CHOICES), marked(st.sampled_from(FREE)),
    st.sampled_from(SUBSTANTIVES))

# The codes each verb may refuse with in these sequences, and nothing else: a code outside its
# verb's set (a crash turned into an error, a wrong reason) fails the property.
STATE = {"ILLEGAL_TRANSITION", "INTERVIEW_TERMINAL", "INTERVIEW_MISSING"}
# the gate's checks before the brief (core/gate.py); no section is required, no round edited
GATE = {"FRONTIER_OPEN", "FRONTIER_BLOCKED", "FRONTIER_NOT_ASKED", "OPEN_SUBTHREAD",
        "OTHER_WITHOUT_FOLLOWUP"}
NOT_AN_ANSWER_CODES = {"CONTROL_ONLY_ANSWER", "STOP_REQUESTED", "SKIP_DECISION_REQUESTED"}
REFUSALS: dict[str, set[str]] = {
    "begin-interview": STATE | {"INTERVIEW_SUPERSEDED", "INTERVIEW_STALE"},
    "open-frontier": STATE | GATE | {"DECISIONS_PENDING", "DECISION_ALREADY_RECORDED",
                              "DECISION_OUT_OF_SCOPE", "DECISION_BLOCKED",
                              "INVALID_ROUND_TRANSITION", "MISSING_REFERENCE", "NOT_FOUND",
                              "INVALID_INPUT", "NODE_OPTIONS_REQUIRED"},
    "ask": STATE | GATE | {"NODE_OPTIONS_REQUIRED", "DECISIONS_PENDING", "MISSING_REFERENCE"},
    "record-answer": STATE | NOT_AN_ANSWER_CODES | {"DECISION_NOT_PENDING",
                                                    "NO_RECOMMENDATION", "EMPTY_ANSWER"},
    "answer": STATE | {"NOTHING_ASKED", "MISSING_REFERENCE"},
    "amend": STATE | {"CONTROL_ONLY_ANSWER", "NOT_ANSWERED", "NOTHING_TO_AMEND",
                      "REVISE_REQUIRED", "AMEND_AFTER_APPROVAL"},
    "out-of-scope": STATE | {"CONTROL_ONLY_ANSWER", "DECISION_NOT_ASKED",
                             "DECISION_ALREADY_RECORDED", "DECISION_OUT_OF_SCOPE"},
    "node add": {"DUPLICATE_ID", "MISSING_REFERENCE", "ALREADY_EXISTS"},
    "skip": STATE | {"NOTHING_ASKED"},
    "await-confirmation": STATE | GATE | {"DECISIONS_PENDING", "INTERVIEW_INCOMPLETE",
                                   "CONFIRMATION_ID_MISMATCH"},
    "confirm": STATE | GATE | {"CONFIRMATION_ID_MISMATCH", "APPROVAL_NOT_EXPLICIT",
                        "INTERVIEW_INCOMPLETE", "INVALID_CONFIRMATION_SOURCE"},
    "revise": STATE | {"NOTHING_TO_REOPEN", "MISSING_REFERENCE", "NOT_ANSWERED"},
    "cancel": STATE,
    "record-stop": STATE | {"INTERVIEW_INCOMPLETE", "DECISIONS_PENDING"},
    "reopen": STATE | {"NOTHING_TO_REOPEN", "REOPEN_FORWARD", "PHASE_REGRESSION"},
}


def refusal(verb: str, exc: mdgrill.MdgrillError) -> None:
    """An expected refusal of `verb`; any other code fails with the message."""
    event(f"{verb}: {exc.code}")
    assert exc.code in REFUSALS[verb], (verb, exc.code, exc.message)


def single_line(text: str) -> str:
    return " ".join(text.split())


class Tree:
    """The file as it stands: the decisions' options as it holds them (the recommended one may
    come first), the interview, the decisions answered."""

    def __init__(self, data: bytes, path: str) -> None:
        prog = read_progress(data, path)
        self.choices = {n.id: n.choices() for n in prog.nodes}
        interview = prog.data.get("interview")
        self.interview: dict[str, Any] = interview if isinstance(interview, dict) else {}
        pending = self.interview.get("pending")
        self.pending = [str(i) for i in pending] if isinstance(pending, list) else []
        self.answered = sorted(ledger_of(prog).answers)

    def kind(self, decision: str, text: str) -> str:
        options, recommended = self.choices.get(decision, ([], None))
        return classify(text, options, recommended).kind

    def labels(self, decision: str) -> list[str]:
        return [option_label(o) for o in self.choices.get(decision, ([], None))[0]]


def check_recorded(tree: Tree, decision: str, reply: str, recorded: str) -> None:
    """What one recorded reply wrote: never a non-answer; the option it names (its label
    first), or the recommended one it accepts, or the words given, on one line."""
    reading = classify(reply, *tree.choices.get(decision, ([], None)))
    assert reading.kind not in NOT_AN_ANSWER, (decision, reply, reading.kind, recorded)
    if reading.option is not None:
        assert recorded == reading.option or recorded.startswith(reading.option + " ("), \
            (decision, reply, recorded)
    else:
        assert recorded == single_line(reply), (decision, reply, recorded)


def check_ledger(spec: mdgrill.Spec, tree: Tree) -> None:
    """No answer in the ledger is a reply the classifier calls a non-answer."""
    for entry in spec.ledger()["entries"]:
        answer = entry["answer"]
        if answer == DEFAULTED_ANSWER:
            continue  # the skip's own words for a default, not a reply
        kind = tree.kind(entry["id"], answer)
        assert kind not in NOT_AN_ANSWER, (entry, kind)
        if entry.get("amended_from") is None:
            # a recorded acceptance names the option it accepts, never the bare phrase
            assert kind != ACCEPT_RECOMMENDATION or any(
                answer.startswith(label) for label in tree.labels(entry["id"])), entry


def make_template(where: Path) -> Path:
    """A git repository with the spec, its tree, and the requirements interview begun."""
    root = where / "template"
    root.mkdir()
    git_init(root)
    spec = mdgrill.Spec.init(root / "specs" / "promo", goal="Let customers apply a promo code.",
                             root=root)
    for node_id, (title, options, recommend, depends) in NODES.items():
        spec.add_node(node_id, title=title, options=options, recommend=recommend,
                      depends_on=depends or None)
    spec.begin_interview(phase="requirements", interview_id="r1")
    return root


class Interview(RuleBasedStateMachine):
    """One interview, driven by random verbs with random replies."""

    template: Path
    scratch: Path

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="seq-", dir=self.scratch))
        # replaced by `copy_template`, which Hypothesis runs before any rule or invariant
        self.spec = mdgrill.Spec.open(self.template / "specs" / "promo", root=self.template)
        self.seen: tuple[bytes, Tree] | None = None

    @initialize(start=st.sampled_from(["begun", "asked", "answered"]),
                first=st.lists(st.one_of(marked(st.sampled_from(FREE)), replies), min_size=3,
                               max_size=3))
    def copy_template(self, start: str, first: list[str]) -> None:
        """The interview begun; or its first round asked; or that round given a reply to each
        question (the replies meet pending and answered decisions from the first step)."""
        shutil.copytree(self.template, self.root, dirs_exist_ok=True, symlinks=True)
        self.spec = mdgrill.Spec.open(self.root / "specs" / "promo", root=self.root)
        if start == "begun":
            return
        assert self.spec.ask().kind == "round"
        if start == "answered":
            tree = self.tree()
            for decision, reply in zip(tree.pending, first, strict=False):
                done = self.call("record-answer",
                                 lambda d=decision, r=reply: self.spec.record_answer(d, r))
                if done is not None:
                    check_recorded(tree, decision, reply, str(done["recorded"]))

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def tree(self) -> Tree:
        """The file read now (parsed again only when its bytes changed)."""
        data = Path(self.spec.progress).read_bytes()
        if self.seen is None or self.seen[0] != data:
            self.seen = (data, Tree(data, self.spec.progress))
        return self.seen[1]

    def ids(self, data: st.DataObject, first: list[str]) -> str:
        """A decision ID: mostly one of `first` (those pending, or answered), else any."""
        if first and data.draw(st.sampled_from(["first", "first", "first", "any"]),
                               label="which") == "first":
            return data.draw(st.sampled_from(first), label="decision")
        return data.draw(st.sampled_from(IDS), label="decision")

    def call(self, verb: str, run: Callable[[], Any]) -> Any:
        """`run()`, the verb's result; None for an expected refusal (any other fails)."""
        try:
            done = run()
        except mdgrill.MdgrillError as exc:
            refusal(verb, exc)
            return None
        event(f"{verb}: ok")
        return done

    # -- the verbs ------------------------------------------------------------------------

    @rule(other_id=st.booleans())
    def begin(self, other_id: bool) -> None:
        self.call("begin-interview", lambda: self.spec.begin_interview(
            phase="requirements", interview_id="r2" if other_id else "r1"))

    @rule(ahead=st.integers(0, 1),
          ids=st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True))
    def open_frontier(self, ahead: int, ids: list[str]) -> None:
        number = int(self.tree().interview.get("round") or 1) + ahead
        self.call("open-frontier", lambda: self.spec.open_frontier(round=number,
                                                                   decision_ids=ids))

    @rule()
    def ask(self) -> None:
        asked = self.call("ask", self.spec.ask)
        if asked is not None:
            assert asked.kind in ("round", "approval", "none"), asked.kind

    @rule(data=st.data(), reply=replies, other=st.booleans())
    def record_answer(self, data: st.DataObject, reply: str, other: bool) -> None:
        tree = self.tree()
        decision = self.ids(data, tree.pending)
        try:
            done = self.spec.record_answer(decision, reply, other=other)
        except mdgrill.MdgrillError as exc:
            refusal("record-answer", exc)
            kind = tree.kind(decision, reply)
            if kind in NOT_AN_ANSWER and exc.code in NOT_AN_ANSWER_CODES:
                expected = {"stop": "STOP_REQUESTED",
                            "skip_decision": "SKIP_DECISION_REQUESTED"}.get(
                                kind, "CONTROL_ONLY_ANSWER")
                assert exc.code == expected, (reply, kind, exc.code)
            return
        event("record-answer: ok")
        check_recorded(tree, decision, reply, str(done["recorded"]))

    @precondition(lambda self: bool(self.tree().pending))
    @rule(data=st.data(), said=st.lists(replies, min_size=1, max_size=3),
          shape=st.sampled_from(["bare", "numbered", "ids", "lines"]))
    def answer_plain(self, data: st.DataObject, said: list[str], shape: str) -> None:
        """The user's plain reply: one reply, or one per question by number or by ID."""
        parts = [(self.ids(data, self.tree().pending), reply) for reply in said]
        if shape == "bare":
            text = parts[0][1]
        elif shape == "numbered":
            text = ", ".join(f"Q{i}: {r}" for i, (_, r) in enumerate(parts, 1))
        elif shape == "ids":
            text = "; ".join(f"{d}: {r}" for d, r in parts)
        else:
            text = "\n".join(f"{i}) {r}" for i, (_, r) in enumerate(parts, 1))
        self._answer(text)

    @rule(picks=st.lists(st.tuples(st.integers(0, 3), replies), min_size=1, max_size=3))
    def answer_tool(self, picks: list[tuple[int, str]]) -> None:
        """`ask`, then the question tool's JSON with a reply for some of its questions."""
        asked = self.call("ask", self.spec.ask)
        if asked is None or asked.kind != "round":
            return
        questions = [q["question"] for batch in asked["batches"] for q in batch["questions"]]
        answers = {questions[i % len(questions)]: reply for i, reply in picks}
        self._answer(json.dumps({"answers": answers}))

    def _answer(self, text: str) -> None:
        tree = self.tree()
        answered = self.call("answer", lambda: self.spec.answer(text))
        if answered is None:
            return
        for decision, recorded in answered.recorded.items():
            event("answer: recorded one")
            assert tree.kind(decision, recorded) not in NOT_AN_ANSWER, (text, decision, recorded)
        for decision, why in answered.refused.items():
            event(f"answer: refused {why['code']}")
            assert why["code"] in REFUSALS["record-answer"], (text, decision, why)

    @rule(data=st.data(), reply=st.one_of(non_answers, replies))
    def amend(self, data: st.DataObject, reply: str) -> None:
        tree = self.tree()
        decision = self.ids(data, tree.answered)
        done = self.call("amend", lambda: self.spec.amend(decision, answer=reply,
                                                          reason="the user's correction"))
        if done is not None:
            assert tree.kind(decision, reply) not in NOT_AN_ANSWER, (decision, reply)
            assert done["answer"] == single_line(reply), (reply, done["answer"])

    @rule(data=st.data(), reply=st.one_of(non_answers, replies))
    def out_of_scope(self, data: st.DataObject, reply: str) -> None:
        decision = self.ids(data, self.tree().pending)
        if self.call("out-of-scope", lambda: self.spec.out_of_scope(decision, reply=reply)):
            assert classify(reply).kind not in NOT_AN_ANSWER, reply

    @rule(node=st.sampled_from(["D5", "D6"]), parent=st.sampled_from(list(NODES)))
    def follow_up(self, node: str, parent: str) -> None:
        self.call("node add", lambda: self.spec.add_node(
            node, title=f"What follows from {parent}?", spawned_by=parent,
            options=FOLLOW_UP_OPTIONS, recommend=1))

    @rule()
    def skip(self) -> None:
        self.call("skip", lambda: self.spec.skip(reason="the user has no time",
                                                 assumptions=["the recommended ones"]))

    @rule(confirmation=st.sampled_from(["C1", "C2"]))
    def await_confirmation(self, confirmation: str) -> None:
        self.call("await-confirmation", lambda: self.spec.await_confirmation(
            decision_id=confirmation, approach="Codes at checkout"))

    @rule(confirmation=st.sampled_from(["C1", "C2", "skip-confirmation"]),
          reply=st.sampled_from(["Approve and delegate", "ok", "yes, build it", "Cancel"]),
          commit=st.booleans())
    def confirm(self, confirmation: str, reply: str, commit: bool) -> None:
        self.call("confirm", lambda: self.spec.confirm(decision_id=confirmation, reply=reply,
                                                       no_commit=not commit))

    @rule(data=st.data())
    def revise(self, data: st.DataObject) -> None:
        ids = sorted({self.ids(data, self.tree().answered), self.ids(data, self.tree().answered)})
        self.call("revise", lambda: self.spec.revise(decision_ids=ids))

    @rule()
    def cancel(self) -> None:
        self.call("cancel", lambda: self.spec.cancel(reply="Cancel"))

    @rule(choice=st.sampled_from(["ship", "keep-asking"]))
    def record_stop(self, choice: str) -> None:
        self.call("record-stop", lambda: self.spec.record_stop(choice=choice))

    @precondition(lambda self: self.tree().interview.get("status") == "complete")
    @rule()
    def reopen(self) -> None:
        self.call("reopen", lambda: self.spec.reopen(
            phase="requirements", reason="the user changed their mind", no_commit=True))

    # -- after every step -----------------------------------------------------------------

    @invariant()
    def no_non_answer_is_recorded(self) -> None:
        check_ledger(self.spec, self.tree())

    @invariant()
    def the_record_validates(self) -> None:
        errors = [d for d in self.spec.validate() if d.is_error]
        assert errors == [], [f"{d.code}: {d.message}" for d in errors]


BOUND = settings(derandomize=True, max_examples=60, stateful_step_count=20, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def test_random_sequences_never_record_a_non_answer(tmp_path: Path, home: Path) -> None:
    Interview.template = make_template(tmp_path)
    Interview.scratch = tmp_path
    run_state_machine_as_test(Interview, settings=BOUND)


# -- what the property found ------------------------------------------------------------------

@pytest.fixture
def begun(tmp_path: Path, home: Path) -> mdgrill.Spec:
    root = make_template(tmp_path)
    spec = mdgrill.Spec.open(root / "specs" / "promo", root=root)
    assert spec.ask().kind == "round"
    return spec


@pytest.mark.parametrize("reply", ["that's enough", "hecho", "I think we're done here",
                                   "skip this", "idk", "skip", "ok danke"])
def test_amend_never_rewrites_an_answer_into_a_non_answer(begun: mdgrill.Spec,
                                                          reply: str) -> None:
    """`amend` held only acknowledgements and a bare skip back: a stop ("hecho") or a
    skip-one ("idk") replaced an answer in the user's own words and stood in the ledger."""
    begun.record_answer("D1", "Only for EU cards", other=True)
    before = Path(begun.progress).read_bytes()
    with pytest.raises(mdgrill.GateRefusal) as refused:
        begun.amend("D1", answer=reply, reason="the user's correction")
    assert refused.value.code == "CONTROL_ONLY_ANSWER"
    assert Path(begun.progress).read_bytes() == before
    assert [e["answer"] for e in begun.ledger()["entries"]] == ["Only for EU cards"]


@pytest.mark.parametrize("named", ["D9", "skip-confirmation"])
def test_revise_refuses_an_id_that_names_no_decision(begun: mdgrill.Spec, named: str) -> None:
    """`revise` reopened any ID: one with no node that nothing settled (a typo, the skip's
    confirmation ID) was asked in the next round with no node, and `validate` then failed
    with ASKED_NODE_MISSING."""
    begun.skip(reason="the user has no time", assumptions=["the recommended ones"])
    before = Path(begun.progress).read_bytes()
    with pytest.raises(mdgrill.GateRefusal) as refused:
        begun.revise(decision_ids=["D1", named])
    assert refused.value.code == "MISSING_REFERENCE" and named in refused.value.message
    assert Path(begun.progress).read_bytes() == before
    assert begun.revise(decision_ids=["D1"]).pending == ["D1"]
    assert [d for d in begun.validate() if d.is_error] == []


# -- the same property through the installed CLI, for a few sequences -------------------------

cli_step = st.one_of(
    st.tuples(st.just("record-answer"), replies), st.tuples(st.just("amend"), non_answers),
    st.tuples(st.just("amend"), replies), st.tuples(st.just("answer"), replies))


@settings(derandomize=True, max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(cli_step, st.sampled_from(list(NODES))), min_size=3,
                      max_size=6))
def test_cli_sequences_never_record_a_non_answer(tmp_path_factory: pytest.TempPathFactory,
                                                 home: Path,
                                                 steps: list[tuple[tuple[str, str], str]]) -> None:
    """`mdgrill --json` verbs in subprocesses: every refusal an expected code (exit 2 or 3,
    nothing written), every answer in the ledger one the classifier reads as an answer."""
    root = make_template(tmp_path_factory.mktemp("cli"))
    spec = mdgrill.Spec.open(root / "specs" / "promo", root=root)
    assert spec.ask().kind == "round"
    spec.record_answer("D4", "Only for EU cards", other=True)  # own words, for amend to meet
    progress = Path(spec.progress)
    for (verb, reply), decision in steps:
        argv = {"record-answer": ["record-answer", "specs/promo", "--decision-id", decision,
                                  "--answer", reply],
                "amend": ["amend", "specs/promo", "--decision-id", decision, "--answer",
                          reply, "--reason", "the user's correction"],
                "answer": ["answer", "specs/promo", "--tool-result", "-"]}[verb]
        before = progress.read_bytes()
        proc = subprocess.run([*mdgrill_command(), "--json", *argv], cwd=root, input=reply,
                              capture_output=True, text=True, timeout=60)
        out = json.loads(proc.stdout)
        if proc.returncode in (2, 3) and "error" in out and verb != "answer":
            assert out["error"]["code"] in REFUSALS[verb], (argv, out)
            assert progress.read_bytes() == before, argv
        else:
            assert proc.returncode in (0, 2, 3), (argv, proc.stdout, proc.stderr)
            for code in (why["code"] for why in out.get("refused", {}).values()):
                assert code in REFUSALS["record-answer"], (argv, out)
        tree = Tree(progress.read_bytes(), str(progress))
        check_ledger(spec, tree)
        assert [d for d in spec.validate() if d.is_error] == [], argv
    shutil.rmtree(root, ignore_errors=True)


def test_a_second_skip_defaults_no_confirmation_id(begun: mdgrill.Spec) -> None:
    """A `skip` while the brief awaits approval defaulted what was pending, the confirmation
    ID itself: `skip-confirmation` then stood in the ledger as a decision, and a revise of it
    asked a decision with no node (ASKED_NODE_MISSING)."""
    begun.skip(reason="the user has no time", assumptions=["the recommended ones"])
    begun.skip(reason="still no time", assumptions=["the recommended ones"])
    assert {e["id"] for e in begun.ledger()["entries"]} == {"D1", "D2", "D3", "D4"}
    with pytest.raises(mdgrill.GateRefusal) as refused:
        begun.revise(decision_ids=["skip-confirmation"])
    assert refused.value.code == "MISSING_REFERENCE"
    assert [d for d in begun.validate() if d.is_error] == []
