"""One rule, every way in (issue 29): each gate rule gives the same refusal code, and writes
nothing, through every entry point that records what a person said.

"A rule lives in exactly one function of `services/`, and every entry point [...] reaches it
through that function. If two entry points can give different answers to the same input, the
design is wrong, not the test." (CONVENTIONS.md). The table below is rule x entry point; an
entry point found in the code without a row fails `test_every_entry_point_has_a_row`.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from test_reliability import MDGRILL, make_repo

CHECKOUT = Path(__file__).resolve().parents[1]
SRC = CHECKOUT / "src" / "mdgrill"
SPEC = "specs/a"
QUESTION = "Q1 - D1: Who?"  # how `ask` words D1 for the question tool


class Op(NamedTuple):
    """What the entry point is asked to do: record `answer` to `decision` (kind `record`),
    place it out of scope with `answer` as the user's words, confirm the approval `decision`
    with `answer` as the user's reply, or begin the interview."""

    kind: str
    decision: str = "D1"
    answer: str = ""


class Rule(NamedTuple):
    code: str
    base: str  # "fresh": no interview yet; "asked": D1 asked in round 1; "answered": D1
    # answered; "awaiting": approval asked
    prepare: Callable[[Path], None]
    op: Op


def _owners(repo: Path) -> None:
    (repo / ".mdgrill.yaml").write_text("owners:\n  sections:\n    Money: [carol@example.com]\n",
                                        encoding="utf-8")


def _context_changed(repo: Path) -> None:
    (repo / SPEC / "research.md").write_text("# Research\nOpaque sessions after all.\n",
                                             encoding="utf-8")


def _quick_by_hand(repo: Path) -> None:
    progress = repo / SPEC / ".progress.md"
    progress.write_text(progress.read_text(encoding="utf-8").replace("mode: interactive",
                                                                      "mode: quick"),
                        encoding="utf-8")


def _evidence_required(repo: Path) -> None:
    (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")


def _goal_body_edited(repo: Path) -> None:
    progress = repo / SPEC / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    assert "\n\nPromo codes\n" in text
    progress.write_text(text.replace("\n\nPromo codes\n", "\n\nPromo codes for members\n"),
                        encoding="utf-8")


def _asked_node_dropped(repo: Path) -> None:
    progress = repo / SPEC / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    progress.write_text(re.sub(r"(?ms)^### D2: .*?(?=^##)", "", text, count=1),
                        encoding="utf-8")


def _terminal_only(repo: Path) -> None:
    (repo / ".mdgrill.yaml").write_text("approval: [terminal]\n", encoding="utf-8")


def _nothing(repo: Path) -> None:
    pass


def _skills_declared(repo: Path) -> None:
    (repo / ".mdgrill.yaml").write_text("skills: [grill]\n", encoding="utf-8")


def _prompt_checks(repo: Path) -> None:
    (repo / ".mdgrill.yaml").write_text("delegation:\n  prompt_checks: true\n",
                                        encoding="utf-8")


RULES: dict[str, Rule] = {
    # `.mdgrill.yaml` owners: "`owners.sections.<section>`" (docs/contract.md)
    "owners": Rule("NOT_AN_OWNER", "asked", _owners, Op("record", "D1", "Everyone")),
    # "the helper re-reads those sources and recomputes the digest at every gate"
    "freshness": Rule("CONTEXT_STALE", "asked", _context_changed,
                      Op("record", "D1", "Everyone")),
    # "exact goal snapshot": a `## Goal` that says another goal than `goal:` (issue 31.4)
    "goal body edited": Rule("CONTEXT_STALE", "asked", _goal_body_edited,
                             Op("record", "D1", "Everyone")),
    # an answer to a decision of the frontier that this round did not ask
    "frontier not asked": Rule("DECISION_NOT_PENDING", "asked", _nothing,
                               Op("record", "D2", "Now")),
    # "a control-only reply [...] is not an answer"
    "control-only reply": Rule("CONTROL_ONLY_ANSWER", "asked", _nothing,
                               Op("record", "D1", "ok")),
    # "Only exact `--quick` authorization may bypass the interview"
    "quick mode not authorized": Rule("QUICK_NOT_AUTHORIZED", "fresh", _quick_by_hand,
                                      Op("begin")),
    # out of scope is the user's call: their own words, not a control reply
    "out of scope needs the user's words": Rule("CONTROL_ONLY_ANSWER", "asked", _nothing,
                                                Op("out_of_scope", "D1", "ok")),
    # `approval: evidence`: an approval is a reply the hooks captured, not the agent's word
    "approval needs evidence": Rule("APPROVAL_NOT_EVIDENCED", "awaiting", _evidence_required,
                                    Op("confirm", "C1", "Approve and delegate")),
    # "Record the load manifest with `phase_gate.py record-skill-load`" (mdgrill's verb; where
    # `.mdgrill.yaml` declares the skills its agents load)
    "skill load recorded": Rule("SKILL_LOAD_MISSING", "fresh", _skills_declared, Op("begin")),
    # an asked decision cannot vanish: its node stays in the tree (issue 31.5)
    "asked node dropped": Rule("ASKED_NODE_MISSING", "awaiting", _asked_node_dropped,
                               Op("confirm", "C1", "Approve and delegate")),
    # `approval: [terminal]`: only the user's own `mdgrill approve` approves (issue 30)
    "approval channel not accepted": Rule("APPROVAL_CHANNEL_NOT_ACCEPTED", "awaiting",
                                          _terminal_only,
                                          Op("confirm", "C1", "Approve and delegate")),
}

# The entry points that record what a person said, and the modules that are them: a module
# that reaches the recording services (or runs the CLI in-process) must be listed here.
ENTRY_MODULES: dict[str, set[str]] = {
    "mdgrill.cli.verbs.interview": {"cli"},
    "mdgrill.cli.verbs.rounds": {"answer", "collect"},
    "mdgrill.services.watch.engine": {"watch"},
    "mdgrill.integrations.lsp": {"lsp"},
    "mdgrill.integrations.mcp": {"mcp", "mcp answer", "mcp collect"},
    "mdgrill.api": {"library"},
}
ENTRY_POINTS = sorted(set().union(*ENTRY_MODULES.values()))
# Modules that reach them but are no entry point of their own, and why.
NOT_ENTRY_POINTS = {
    "mdgrill.cli.verbs.demo": "it runs the CLI's own verbs (cli.main) on a scripted, "
                              "throw-away repository: the `cli` row covers them",
}

# The services an entry point records through, and the modules that are that layer itself.
RECORDING = ("mdgrill.services.interview", "mdgrill.services.rounds",
             "mdgrill.services.answers", "mdgrill.api", "mdgrill.cli.main")
LAYER = {"mdgrill.services.interview", "mdgrill.services.rounds", "mdgrill.services.answers",
         "mdgrill.services.status", "mdgrill.cli.main", "mdgrill.__main__", "mdgrill",
         # `mdgrill approve`'s service: it confirms through services.interview.confirm_over
         # (the `cli` row's verb module reaches it)
         "mdgrill.services.approve"}

# A cell without a case says why the entry point cannot express the operation at all.
_ROUND_ONLY = "it answers only the questions of the open round: it cannot name another"
_ROUND_ENTRIES = ("answer", "collect", "watch", "lsp", "mcp answer", "mcp collect")
_NO_VERB = "it records answers only; it has no way to {}"
NOT_APPLICABLE: dict[tuple[str, str], str] = {
    **{("frontier not asked", e): _ROUND_ONLY for e in _ROUND_ENTRIES},
    **{("quick mode not authorized", e): _NO_VERB.format("begin an interview")
       for e in _ROUND_ENTRIES},
    **{("out of scope needs the user's words", e): _NO_VERB.format("place a decision out of "
                                                                    "scope")
       for e in _ROUND_ENTRIES},
    **{(rule, e): _NO_VERB.format("approve") for e in _ROUND_ENTRIES
       for rule in ("approval needs evidence", "asked node dropped")},
    **{("skill load recorded", e): _NO_VERB.format("begin an interview")
       for e in _ROUND_ENTRIES},
    **{("approval channel not accepted", e): _NO_VERB.format("approve")
       for e in _ROUND_ENTRIES},
}
CASES = [(rule, entry) for rule in RULES for entry in ENTRY_POINTS
         if (rule, entry) not in NOT_APPLICABLE]


# -- the registry ---------------------------------------------------------------------------

def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def entry_modules_in_code() -> set[str]:
    """Every module outside the recording layer that reaches it (function-level imports too)."""
    return {_module_name(p) for p in SRC.rglob("*.py")
            if _module_name(p) not in LAYER and _imports(p) & set(RECORDING)}


def test_every_entry_point_has_a_row() -> None:
    # a new way in (a hook that records, a second server) fails here until the table has it
    assert entry_modules_in_code() == set(ENTRY_MODULES) | set(NOT_ENTRY_POINTS)
    for rule in RULES:
        for entry in ENTRY_POINTS:
            assert (rule, entry) in CASES or (rule, entry) in NOT_APPLICABLE, (rule, entry)
    assert len(CASES) == len(RULES) * len(ENTRY_POINTS) - len(NOT_APPLICABLE)


def test_no_second_route_to_the_state_machine() -> None:
    # "there is no second route to `machine.record_answer`" (issue 29)
    callers = {_module_name(p) for p in SRC.rglob("*.py")
               if re.search(r"machine\.(record_answer|out_of_scope)\(",
                            p.read_text(encoding="utf-8"))}
    assert callers == {"mdgrill.services.interview"}


# -- the bases ------------------------------------------------------------------------------

def _mdgrill(repo: Path, env: dict[str, str], *argv: str,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MDGRILL, "--json", *argv], cwd=repo, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    made: dict[str, tuple[Path, dict[str, str]]] = {}
    for name in ("fresh", "asked", "answered", "awaiting"):
        repo, env = make_repo(tmp_path_factory.mktemp(name))
        steps = [["init", SPEC, "--goal", "Promo codes"],
                 ["node", "add", SPEC, "D1", "--title", "Who?", "--section", "Money",
                  "--option", "Everyone", "--option", "Members", "--recommend", "1"]]
        if name != "fresh":
            steps += [["begin-interview", SPEC, "--phase", "requirements", "--interview-id",
                       "r1"],
                      ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1"],
                      ["questionnaire", SPEC]]
        # D2 joins the frontier after the round was written: `questionnaire` (like `ask`)
        # would have added it to the open round, and it is to stay unasked here
        steps += [["node", "add", SPEC, "D2", "--title", "When?", "--option", "Now",
                   "--option", "Later", "--recommend", "1"]]
        if name in ("answered", "awaiting"):
            steps += [["record-answer", SPEC, "--decision-id", "D1", "--answer", "Everyone"]]
        if name == "awaiting":
            steps += [["open-frontier", SPEC, "--round", "1", "--decision-id", "D2"],
                      ["record-answer", SPEC, "--decision-id", "D2", "--answer", "Now"],
                      ["await-confirmation", SPEC, "--decision-id", "C1", "--approach", "All"]]
        (repo / SPEC).mkdir(parents=True)
        (repo / SPEC / "research.md").write_text("# Research\nJWT sessions.\n",
                                                 encoding="utf-8")
        for argv in steps:
            proc = _mdgrill(repo, env, *argv)
            assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
        made[name] = repo, env
    return made


def _copy(base: tuple[Path, dict[str, str]], into: Path) -> tuple[Path, dict[str, str]]:
    repo, env = base
    target = into / "repo"
    shutil.copytree(repo, target, symlinks=True)
    return target, env


def _filled_text(repo: Path, answer: str) -> str:
    """questions.md with `answer` written as D1's `Other:` (the person's own words)."""
    text = (repo / SPEC / "questions.md").read_text(encoding="utf-8")
    assert "- Other:" in text
    return re.sub(r"(?m)^- Other:.*$", f"- Other: {answer}", text, count=1)


def _filled(repo: Path, answer: str) -> Path:
    path = repo / SPEC / "questions.md"
    path.write_text(_filled_text(repo, answer), encoding="utf-8")
    return path


# -- the entry points -----------------------------------------------------------------------

def _error_code(proc: subprocess.CompletedProcess[str]) -> str:
    payload = json.loads(proc.stdout)
    assert payload["ok"] is False, payload
    return str(payload["error"]["code"])


def _refused_code(payload: dict[str, object], decision: str) -> str:
    refused = payload["refused"]
    assert isinstance(refused, dict) and decision in refused, payload
    assert payload["recorded"] == {}, payload
    return str(refused[decision]["code"])


def via_cli(repo: Path, env: dict[str, str], op: Op) -> str:
    if op.kind == "record":
        argv = ["record-answer", SPEC, "--decision-id", op.decision, "--answer", op.answer]
    elif op.kind == "out_of_scope":
        argv = ["out-of-scope", SPEC, "--decision-id", op.decision, "--reply", op.answer]
    elif op.kind == "confirm":
        argv = ["confirm", SPEC, "--decision-id", op.decision, "--source",
                "approve-and-delegate", "--reply", op.answer]
    else:
        argv = ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"]
    proc = _mdgrill(repo, env, *argv)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    return _error_code(proc)


def via_answer(repo: Path, env: dict[str, str], op: Op) -> str:
    proc = _mdgrill(repo, env, "answer", SPEC, "--tool-result", "-",
                    stdin=json.dumps({"answers": {QUESTION: op.answer}}))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    return _refused_code(json.loads(proc.stdout), op.decision)


def via_collect(repo: Path, env: dict[str, str], op: Op) -> str:
    _filled(repo, op.answer)
    proc = _mdgrill(repo, env, "collect", SPEC)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    return _refused_code(json.loads(proc.stdout), op.decision)


def via_watch(repo: Path, env: dict[str, str], op: Op) -> str:
    from test_questionnaire import save_under_watch

    # and the refusal is said once: the questionnaire it leaves as it was is no new save
    report = save_under_watch(repo, env, repo / SPEC / "questions.md",
                              _filled_text(repo, op.answer), settle=1.0)
    return _refused_code(report, op.decision)


def _mcp_call(repo: Path, env: dict[str, str], name: str,
              arguments: dict[str, object]) -> dict[str, object]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def call() -> dict[str, object]:
        params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"],
                                       env=env, cwd=str(repo))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            reply = await session.call_tool(name, arguments)
            text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
            result: dict[str, object] = json.loads(text)
            return result

    return asyncio.run(call())


def via_mcp_answer(repo: Path, env: dict[str, str], op: Op) -> str:
    payload = _mcp_call(repo, env, "answer", {
        "spec": SPEC, "tool_result": json.dumps({"answers": {QUESTION: op.answer}})})
    assert payload["ok"] is False, payload
    return _refused_code(payload, op.decision)


def via_mcp_collect(repo: Path, env: dict[str, str], op: Op) -> str:
    _filled(repo, op.answer)
    payload = _mcp_call(repo, env, "collect", {"spec": SPEC})
    assert payload["ok"] is False, payload
    return _refused_code(payload, op.decision)


def via_mcp(repo: Path, env: dict[str, str], op: Op) -> str:
    if op.kind == "record":
        name, arguments = "record_answer", {"spec": SPEC, "decision_id": op.decision,
                                            "answer": op.answer}
    elif op.kind == "out_of_scope":
        name, arguments = "out_of_scope", {"spec": SPEC, "decision_id": op.decision,
                                           "reply": op.answer}
    elif op.kind == "confirm":
        name, arguments = "confirm", {"spec": SPEC, "decision_id": op.decision,
                                      "reply": op.answer}
    else:
        name, arguments = "begin_interview", {"spec": SPEC, "phase": "requirements",
                                              "interview_id": "r1"}
    payload = _mcp_call(repo, env, name, arguments)
    assert payload["ok"] is False, payload
    return str(payload["error"]["code"])  # type: ignore[index]


def via_lsp(repo: Path, env: dict[str, str], op: Op) -> str:
    from test_lsp import collect_by_code_action

    path = _filled(repo, op.answer)
    _, result = asyncio.run(collect_by_code_action(path, "- Other:", env))
    found = re.search(rf"not recorded {op.decision}: ([A-Z_]+):", str(result))
    assert found is not None, result
    return found.group(1)


def via_library(repo: Path, env: dict[str, str], op: Op) -> str:
    import mdgrill

    spec = mdgrill.Spec.open(repo / SPEC)
    with pytest.raises(mdgrill.GateRefusal) as refused:
        if op.kind == "record":
            spec.record_answer(op.decision, op.answer)
        elif op.kind == "out_of_scope":
            spec.out_of_scope(op.decision, reply=op.answer)
        elif op.kind == "confirm":
            spec.confirm(decision_id=op.decision, reply=op.answer)
        else:
            spec.begin_interview(phase="requirements", interview_id="r1")
    return refused.value.code


RUNNERS: dict[str, Callable[[Path, dict[str, str], Op], str]] = {
    "cli": via_cli, "answer": via_answer, "collect": via_collect, "watch": via_watch,
    "mcp": via_mcp, "mcp answer": via_mcp_answer, "mcp collect": via_mcp_collect,
    "lsp": via_lsp, "library": via_library}


def test_every_entry_point_has_a_runner() -> None:
    assert sorted(RUNNERS) == ENTRY_POINTS


def same_git_environment(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """The library runs in this process: give it the subprocesses' clean git environment."""
    for name in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(name)
    for name in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"):
        monkeypatch.setenv(name, env[name])


@pytest.mark.parametrize(("rule", "entry"), CASES, ids=[f"{r}|{e}" for r, e in CASES])
def test_the_rule_holds_on_every_way_in(rule: str, entry: str, tmp_path: Path,
                                        bases: dict[str, tuple[Path, dict[str, str]]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    if entry.startswith("mcp"):
        pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (.[dev])")
    if entry == "lsp":
        pytest.importorskip("pygls", reason="pygls is the `lsp` extra (.[dev])")
    case = RULES[rule]
    repo, env = _copy(bases[case.base], tmp_path)
    case.prepare(repo)
    if entry == "library":
        same_git_environment(monkeypatch, env)
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()

    code = RUNNERS[entry](repo, env, case.op)

    assert code == case.code
    assert progress.read_bytes() == before  # nothing written
    questions = repo / SPEC / "questions.md"
    if entry in ("collect", "watch", "lsp", "mcp collect"):  # the refused answer is kept
        assert f"- Other: {case.op.answer}" in questions.read_text(encoding="utf-8")


# -- the settling rules: every verb that settles a decision or rewrites its answer ----------
# A fact that resolves a decision, an amendment of its answer's words and a skip's default
# settle it as an answer does, and a revise takes its answer back: the owners of its section
# and the freshness of the context hold for them as for `record-answer`, through the CLI, the
# MCP tools and `Spec`.

class Settling(NamedTuple):
    base: str  # "asked": D1 (section Money) asked; "answered": D1 answered in round 1;
    # "awaiting": D1 and D2 answered, the brief awaits approval
    cli: list[str]
    mcp: tuple[str, dict[str, object]]
    library: Callable[..., object]


SETTLING: dict[str, Settling] = {
    "fact": Settling("asked",
                     ["record-fact", SPEC, "Everyone (found in the docs)", "--decision-id", "D1"],
                     ("record_fact", {"spec": SPEC, "text": "Everyone (found in the docs)",
                                      "decision_id": "D1"}),
                     lambda spec: spec.record_fact("Everyone (found in the docs)",
                                                   decision_id="D1")),
    "amend": Settling("answered",
                      ["amend", SPEC, "--decision-id", "D1", "--answer", "everyone",
                       "--reason", "typo"],
                      ("amend", {"spec": SPEC, "decision_id": "D1", "answer": "everyone",
                                 "reason": "typo"}),
                      lambda spec: spec.amend("D1", answer="everyone", reason="typo")),
    "skip": Settling("asked",
                     ["skip", SPEC, "--reason", "later", "--assumption", "members only"],
                     ("skip", {"spec": SPEC, "reason": "later",
                               "assumption": ["members only"]}),
                     lambda spec: spec.skip(reason="later", assumptions=["members only"])),
    # reopening takes an answer back: the decision's owners hold it as they held the answer
    "revise": Settling("awaiting", ["revise", SPEC, "--decision-id", "D1"],
                       ("revise", {"spec": SPEC, "decision_id": ["D1"]}),
                       lambda spec: spec.revise(decision_ids=["D1"])),
}
SETTLING_RULES = {"owners": ("NOT_AN_OWNER", _owners),
                  "freshness": ("CONTEXT_STALE", _context_changed)}
SETTLING_CASES = [(rule, verb, entry) for rule in SETTLING_RULES for verb in SETTLING
                  for entry in ("cli", "mcp", "library")]


def settle_by(repo: Path, env: dict[str, str], verb: str, entry: str) -> str:
    way = SETTLING[verb]
    if entry == "cli":
        proc = _mdgrill(repo, env, *way.cli)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        return _error_code(proc)
    if entry == "mcp":
        payload = _mcp_call(repo, env, *way.mcp)
        assert payload["ok"] is False, payload
        return str(payload["error"]["code"])  # type: ignore[index]
    import mdgrill

    with pytest.raises(mdgrill.GateRefusal) as refused:
        way.library(mdgrill.Spec.open(repo / SPEC))
    return refused.value.code


@pytest.mark.parametrize(("rule", "verb", "entry"), SETTLING_CASES,
                         ids=[f"{r}|{v}|{e}" for r, v, e in SETTLING_CASES])
def test_what_settles_a_decision_keeps_its_rules(
        rule: str, verb: str, entry: str, tmp_path: Path,
        bases: dict[str, tuple[Path, dict[str, str]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    if entry == "mcp":
        pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (.[dev])")
    code, prepare = SETTLING_RULES[rule]
    repo, env = _copy(bases[SETTLING[verb].base], tmp_path)
    prepare(repo)
    if entry == "library":
        same_git_environment(monkeypatch, env)
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()

    assert settle_by(repo, env, verb, entry) == code
    assert progress.read_bytes() == before  # nothing written


def test_what_settles_a_decision_goes_through_when_no_rule_stands(
        tmp_path: Path, bases: dict[str, tuple[Path, dict[str, str]]]) -> None:
    # the table's refusals are the rules', not the verbs': unprepared, each verb records
    for verb, way in SETTLING.items():
        repo, env = _copy(bases[way.base], tmp_path / verb)
        proc = _mdgrill(repo, env, *way.cli)
        assert proc.returncode == 0, (verb, proc.stdout, proc.stderr)


# -- the delegation rules: every way to ask whether work may be delegated --------------------
# `check-delegation`, the MCP tool, `Spec.check_delegation` and the agent hook (which sees the
# delegated prompt) reach `services.delegation.check_delegation`.

class DelegationRule(NamedTuple):
    code: str
    prepare: Callable[[Path], None]
    prompt: str | None  # the delegated prompt each entry point is given (None: none)


# a sentence line without its provenance comment: "structural and 15-row compliance checks"
BAD_PROMPT = "Write requirements.md for everyone.\n"
DELEGATION_RULES: dict[str, DelegationRule] = {
    # Phase-3 check 5 at the transition (issue 31 point 10)
    "prompt checks": DelegationRule("PROMPT_CHECK_FAILED", _prompt_checks, BAD_PROMPT),
    # "Record the load manifest with `phase_gate.py record-skill-load`" (issue 38 point 3)
    "skill load recorded": DelegationRule("SKILL_LOAD_MISSING", _skills_declared, None),
}
DELEGATION_ENTRIES = ("cli", "mcp", "library", "hook")


def delegate_cli(repo: Path, env: dict[str, str], prompt: str | None) -> str:
    argv = ["check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1"]
    if prompt is not None:
        (repo / "prompt.md").write_text(prompt, encoding="utf-8")
        argv += ["--prompt", "prompt.md"]
    proc = _mdgrill(repo, env, *argv)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    return _error_code(proc)


def delegate_mcp(repo: Path, env: dict[str, str], prompt: str | None) -> str:
    arguments: dict[str, object] = {"spec": SPEC, "phase": "requirements", "interview_id": "r1"}
    if prompt is not None:
        arguments["prompt"] = prompt
    payload = _mcp_call(repo, env, "check_delegation", arguments)
    assert payload["ok"] is False, payload
    return str(payload["error"]["code"])  # type: ignore[index]


def delegate_library(repo: Path, env: dict[str, str], prompt: str | None) -> str:
    import mdgrill

    spec = mdgrill.Spec.open(repo / SPEC)
    with pytest.raises(mdgrill.GateRefusal) as refused:
        spec.check_delegation(phase="requirements", interview_id="r1", prompt=prompt)
    return refused.value.code


def delegate_hook(repo: Path, env: dict[str, str], prompt: str | None) -> str:
    gate = f"[MDGRILL_PHASE_GATE]\nspec: {SPEC}\nphase: requirements\ninterview: r1\n" \
           "[/MDGRILL_PHASE_GATE]\n"
    event = {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Agent",
             "cwd": str(repo), "tool_input": {"subagent_type": "product-manager",
                                              "description": "requirements",
                                              "prompt": (prompt or "") + "\n" + gate}}
    proc = subprocess.run([*MDGRILL, "hook", "pretooluse"], cwd=repo, env=env, text=True,
                          input=json.dumps(event), capture_output=True, timeout=60)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return str(out["permissionDecisionReason"]).split(":", 1)[0]


DELEGATORS: dict[str, Callable[[Path, dict[str, str], str | None], str]] = {
    "cli": delegate_cli, "mcp": delegate_mcp, "library": delegate_library,
    "hook": delegate_hook}
DELEGATION_CASES = [(rule, entry) for rule in DELEGATION_RULES for entry in DELEGATION_ENTRIES]


@pytest.fixture(scope="module")
def approved(bases: dict[str, tuple[Path, dict[str, str]]],
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The awaiting base, approved and committed: check-delegation allows it."""
    repo, env = _copy(bases["awaiting"], tmp_path_factory.mktemp("approved"))
    proc = _mdgrill(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source",
                    "approve-and-delegate", "--reply", "Approve and delegate")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _mdgrill(repo, env, "check-delegation", SPEC, "--phase", "requirements",
                    "--interview-id", "r1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return repo, env


def test_every_delegation_entry_has_a_runner() -> None:
    assert sorted(DELEGATORS) == sorted(DELEGATION_ENTRIES)


@pytest.mark.parametrize(("rule", "entry"), DELEGATION_CASES,
                         ids=[f"{r}|{e}" for r, e in DELEGATION_CASES])
def test_the_delegation_rule_holds_on_every_way_in(
        rule: str, entry: str, tmp_path: Path, approved: tuple[Path, dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    if entry == "mcp":
        pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (.[dev])")
    case = DELEGATION_RULES[rule]
    repo, env = _copy(approved, tmp_path)
    case.prepare(repo)
    if entry == "library":
        same_git_environment(monkeypatch, env)
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()

    assert DELEGATORS[entry](repo, env, case.prompt) == case.code
    assert progress.read_bytes() == before


# -- the asking rules: every way a node is asked ----------------------------------------------
# "Represent each open node as: { id, dependencies, evidence, options[2..4], recommendation,
# rationale, tradeoffs, consequences }" (the critical-frontier algorithm); "Give 2-4 viable
# options." (the skill). `open-frontier` (`core.machine.open_frontier`) and `ask` /
# `questionnaire` (`askround.questions`, before they open the round) refuse a node without
# 2–4 options with the same code, writing nothing, through the CLI, the MCP tools and `Spec`.

ASK_ENTRIES = ("cli open-frontier", "cli ask", "cli questionnaire", "mcp open_frontier",
               "mcp ask", "library open_frontier", "library ask", "library questionnaire")
DRAFT = "### draft: Which cards?\n- Depends on: none\n- Options:\n  - Visa only\n\n"


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """An interview begun with D1 (2 options, recommended, rationale, tradeoff) and `draft`
    (one option, written by hand) both on the frontier."""
    repo, env = make_repo(tmp_path_factory.mktemp("drafted"))
    for argv in (["init", SPEC, "--goal", "Promo codes"],
                 ["node", "add", SPEC, "D1", "--title", "Who?", "--option", "Everyone",
                  "--option", "Members", "--recommend", "1", "--rationale", "guests buy too",
                  "--tradeoffs", "codes get shared"]):
        proc = _mdgrill(repo, env, *argv)
        assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
    progress = repo / SPEC / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    assert "## Interview Responses" in text
    progress.write_text(text.replace("## Interview Responses",
                                     DRAFT + "## Interview Responses"), encoding="utf-8")
    proc = _mdgrill(repo, env, "begin-interview", SPEC, "--phase", "requirements",
                    "--interview-id", "r1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(_mdgrill(repo, env, "frontier", SPEC).stdout)["frontier"] == [
        "D1", "draft"]
    return repo, env


def ask_by(repo: Path, env: dict[str, str], entry: str) -> dict[str, object]:
    """The refusal `entry` gives when asked to ask `draft` (the whole frontier, for `ask`
    and `questionnaire`): its code and the nodes it names."""
    way, verb = entry.split(" ", 1)
    if way == "cli":
        argv = ["open-frontier", SPEC, "--round", "1", "--decision-id", "draft"] \
            if verb == "open-frontier" else [verb, SPEC]
        proc = _mdgrill(repo, env, *argv)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        error = json.loads(proc.stdout)["error"]
        return {"code": error["code"], "nodes": error["nodes"]}
    if way == "mcp":
        arguments: dict[str, object] = {"spec": SPEC}
        if verb == "open_frontier":
            arguments.update(round=1, decision_id=["draft"])
        payload = _mcp_call(repo, env, verb, arguments)
        assert payload["ok"] is False, payload
        error = payload["error"]
        assert isinstance(error, dict)
        return {"code": error["code"], "nodes": error["nodes"]}
    import mdgrill

    spec = mdgrill.Spec.open(repo / SPEC)
    with pytest.raises(mdgrill.GateRefusal) as refused:
        if verb == "open_frontier":
            spec.open_frontier(round=1, decision_ids=["draft"])
        elif verb == "ask":
            spec.ask()
        else:
            spec.questionnaire()
    return {"code": refused.value.code, "nodes": refused.value.details["nodes"]}


@pytest.mark.parametrize("entry", ASK_ENTRIES)
def test_a_node_without_options_is_asked_by_no_way_in(
        entry: str, tmp_path: Path, drafted: tuple[Path, dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    if entry.startswith("mcp"):
        pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (.[dev])")
    repo, env = _copy(drafted, tmp_path)
    if entry.startswith("library"):
        same_git_environment(monkeypatch, env)
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()

    assert ask_by(repo, env, entry) == {"code": "NODE_OPTIONS_REQUIRED", "nodes": ["draft"]}
    assert progress.read_bytes() == before  # nothing written
    assert not (repo / SPEC / "questions.md").exists()
