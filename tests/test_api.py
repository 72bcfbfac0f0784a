"""The public library API (issue 29 part 1): docs/api.md's examples run as written, the
top package exports what the document names and stays cheap to import."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, git_init

CHECKOUT = Path(__file__).resolve().parents[1]
DOC = CHECKOUT / "docs" / "api.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documented_examples_run(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = examples()
    assert len(found) >= 4
    monkeypatch.chdir(repo)
    namespace: dict[str, object] = {}
    for number, code in enumerate(found, 1):
        exec(compile(code, f"docs/api.md example {number}", "exec"), namespace)
    # what the examples did is on disk, as the CLI would have left it
    text = (repo / "specs" / "login" / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D1 -> Magic link\n- By: D1 -> Dana <dana@example.com>" in text
    log = subprocess.run(["git", "log", "--format=%B"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout
    assert "Mdgrill-Transition: approve" in log


def test_every_exported_name_is_documented_and_importable() -> None:
    import mdgrill

    text = DOC.read_text(encoding="utf-8")
    for name in mdgrill.__all__:
        if name != "__version__":
            assert f"`{name}`" in text, name
            assert getattr(mdgrill, name) is not None
    with pytest.raises(AttributeError):
        mdgrill.no_such_name  # noqa: B018 - the lazy lookup still refuses unknown names


def test_every_interview_verb_has_a_method() -> None:
    # "a `Spec` whose methods are the verbs" (issue 29): one per interview verb of the CLI
    from mdgrill import Spec
    from mdgrill.cli.main import VERBS

    covered = {"classify-reply", "node", "status", "validate", "init", "frontier"}
    for verb, (module, _) in VERBS.items():
        if module in ("interview", "rounds", "artifact") or verb in covered:
            name = {"node": "add_node"}.get(verb, verb.replace("-", "_"))
            assert callable(getattr(Spec, name, None)), verb


def test_importing_the_cli_does_not_load_the_api() -> None:
    # every CLI call runs mdgrill/__init__.py: Spec and the services load only when used
    code = ("import sys, mdgrill.cli.main; "
            "print(sorted(m for m in sys.modules if m.startswith('mdgrill.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "mdgrill.api" not in out and "mdgrill.services" not in out


def _properties(cls: type) -> list[str]:
    return sorted(name for klass in cls.__mro__ for name, value in vars(klass).items()
                  if isinstance(value, property))


def _shas(value: object) -> object:
    """`value` with every commit sha as `SHA`: two repositories' commits differ."""
    text = json.dumps(value)
    return json.loads(re.sub(r"\b[0-9a-f]{40}\b", "SHA", text))


def test_each_method_returns_its_typed_result_with_the_clis_json(
        tmp_path: Path, mdgrill: Run, monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Each `Spec` method returns the `Result` subclass docs/api.md names, its `to_json()`
    is the CLI's `--json` of the same verb (without `ok`), key for key and in order, and
    every property of its class reads the field as its type (a wrong type would raise)."""
    import mdgrill as api

    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
    (tmp_path / "lib").mkdir()
    (tmp_path / "cli").mkdir()
    here, there = git_init(tmp_path / "lib"), git_init(tmp_path / "cli")
    monkeypatch.chdir(here)
    spec = api.Spec.init("specs/login", goal="Let customers sign in")
    assert mdgrill("init", "specs/login", "--goal", "Let customers sign in", cwd=there)[0] == 0
    (here / "specs" / "login" / "requirements.md").write_text("# R\n", encoding="utf-8")
    (there / "specs" / "login" / "requirements.md").write_text("# R\n", encoding="utf-8")
    option = ["--option", "A", "--option", "B", "--recommend", "1", "--rationale", "r",
              "--tradeoffs", "t"]
    calls: list[tuple[str, object, list[str]]] = [
        ("NodeAdded", lambda: spec.add_node("D1", title="One?", options=["A", "B"],
                                            recommend=1, rationale="r", tradeoffs="t"),
         ["node", "add", "specs/login", "D1", "--title", "One?", *option]),
        ("NodeAdded", lambda: spec.add_node("D2", title="Two?", options=["A", "B"],
                                            recommend=1, rationale="r", tradeoffs="t"),
         ["node", "add", "specs/login", "D2", "--title", "Two?", *option]),
        ("Mode", spec.mode, ["mode", "specs/login"]),
        ("Digest", lambda: spec.digest(phase="requirements"),
         ["digest", "specs/login", "--phase", "requirements"]),
        ("Began", lambda: spec.begin_interview(phase="requirements", interview_id="r1"),
         ["begin-interview", "specs/login", "--phase", "requirements", "--interview-id", "r1"]),
        ("Frontier", spec.frontier, ["frontier", "specs/login"]),
        ("Opened", lambda: spec.open_frontier(round=1, decision_ids=["D1", "D2"]),
         ["open-frontier", "specs/login", "--round", "1", "--decision-id", "D1",
          "--decision-id", "D2"]),
        ("Classified", lambda: spec.classify_reply("B", decision_id="D1"),
         ["classify-reply", "--text", "B", "--spec", "specs/login", "--decision-id", "D1"]),
        ("AnswerRecorded", lambda: spec.record_answer("D1", "B"),
         ["record-answer", "specs/login", "--decision-id", "D1", "--answer", "B"]),
        ("FactRecorded", lambda: spec.record_fact("found", decision_id="D2"),
         ["record-fact", "specs/login", "found", "--decision-id", "D2"]),
        ("StopRecorded", lambda: spec.record_stop(choice="ship"),
         ["record-stop", "specs/login", "--choice", "ship"]),
        ("Amended", lambda: spec.amend("D1", answer="b", reason="case"),
         ["amend", "specs/login", "--decision-id", "D1", "--answer", "b", "--reason", "case"]),
        ("Presented", lambda: spec.await_confirmation(decision_id="C1", approach="Go"),
         ["await-confirmation", "specs/login", "--decision-id", "C1", "--approach", "Go"]),
        ("Resolved", lambda: spec.resolve_approval(text="yes"),
         ["resolve-approval", "specs/login", "--text", "yes"]),
        ("Confirmed", lambda: spec.confirm(decision_id="C1", reply="Approve and delegate"),
         ["confirm", "specs/login", "--decision-id", "C1", "--source", "approve-and-delegate",
          "--reply", "Approve and delegate"]),
        ("Allowed", lambda: spec.check_delegation(phase="requirements", interview_id="r1"),
         ["check-delegation", "specs/login", "--phase", "requirements", "--interview-id",
          "r1"]),
        ("Status", spec.status, ["status", "specs/login"]),
        ("Tree", spec.tree, ["tree", "specs/login"]),
        ("Ledger", spec.ledger, ["ledger", "specs/login"]),
        ("Submitted", lambda: spec.await_artifact_approval(
            artifact="specs/login/requirements.md"),
         ["await-artifact-approval", "specs/login", "--artifact",
          "specs/login/requirements.md"]),
        ("RevisionRequested", lambda: spec.request_revision(feedback="more"),
         ["request-revision", "specs/login", "--feedback", "more"]),
        ("Submitted", lambda: spec.await_artifact_approval(
            artifact="specs/login/requirements.md"),
         ["await-artifact-approval", "specs/login", "--artifact",
          "specs/login/requirements.md"]),
        ("ArtifactApproved", lambda: spec.approve_artifact(source="approve-artifact"),
         ["approve-artifact", "specs/login", "--source", "approve-artifact"]),
        ("Reopened", lambda: spec.reopen(phase="requirements", reason="again"),
         ["reopen", "specs/login", "--phase", "requirements", "--reason", "again"]),
    ]
    for name, call, argv in calls:
        result = call()  # type: ignore[operator]
        assert type(result) is getattr(api, name), (argv[0], type(result))
        for prop in _properties(type(result)):
            getattr(result, prop)  # each reads as its type, or raises INTERNAL
        code, out, err = mdgrill("--json", *argv, cwd=there)
        assert code == 0, (argv, out, err)
        printed = json.loads(out)
        assert printed.pop("ok") is True
        data = result.to_json()
        if argv[0] == "ledger":  # the CLI prints its text, not in its JSON
            assert data.pop("text") == api.Spec.ledger(spec).text
        assert list(data) == list(printed), argv
        assert _shas(data) == _shas(printed), argv


def test_a_field_of_another_type_is_an_internal_defect() -> None:
    """A typed property checks what it reads: the wrong type is `INTERNAL` (exit 70), never
    an assert that `python -O` drops; a field the operation may leave out reads as empty."""
    from mdgrill import Began, Frontier, MdgrillError
    from mdgrill.services.result import Bound  # the CLI's `bind` (no `Spec` method yet)

    began = Began("begin-interview", {"status": "collecting", "round": "1", "resumed": 0})
    assert began.status == "collecting" and began.reopened == [] and began.commit is None
    for name in ("round", "resumed", "context_digest"):
        if name == "context_digest":
            assert began.context_digest is None  # absent: null, as `--json` would omit it
            continue
        with pytest.raises(MdgrillError) as info:
            getattr(began, name)
        assert info.value.code == "INTERNAL" and info.value.exit_code == 70
        assert f"`{name}`" in info.value.message
    with pytest.raises(MdgrillError):
        _ = Frontier("frontier", {"batches": [["D1"], "D2"]}).batches
    with pytest.raises(MdgrillError):
        _ = Bound("bind", {"targets": [{"target": "a.py"}]}).targets
    assert Bound("bind", {"targets": [{"target": "a.py", "fingerprint": "f"}]}).targets == [
        {"target": "a.py", "fingerprint": "f"}]


def test_text_that_is_no_utf8_is_bad_input_and_writes_nothing(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a lone surrogate (what Python makes of undecodable bytes) can reach the library from a
    # caller's string: the write refuses it as the CLI and the MCP server refuse it, typed
    from mdgrill import InputError, Spec

    monkeypatch.chdir(repo)
    spec = Spec.init("specs/a", goal="G")
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1"])
    before = Path(spec.progress).read_bytes()
    with pytest.raises(InputError) as refused:
        spec.record_answer("D1", "Use the magic link \udc80 for everyone")
    assert refused.value.code == "INVALID_INPUT"
    assert Path(spec.progress).read_bytes() == before
    # a new spec: refused before its folder is made (it was a raw UnicodeEncodeError after)
    with pytest.raises(InputError) as refused:
        Spec.init("specs/b", goal="Promo codes \ud800")
    assert refused.value.code == "INVALID_INPUT" and "lone surrogate" in refused.value.message
    assert not (repo / "specs" / "b").exists()


WRONG_TYPES = [
    # a str where a list of str is asked: it was taken letter by letter
    ("skip", (), {"reason": "later", "assumptions": "xy"}, "assumptions takes list[str]"),
    ("add_node", ("D2",), {"title": "When?", "options": "ab"}, "options takes list[str] | None"),
    ("open_frontier", (), {"round": 2, "decision_ids": "D2"}, "decision_ids takes list[str]"),
    # None where text is asked: it was an AttributeError
    ("record_answer", ("D1", None), {}, "answer takes str"),
    # a round as text or as a bool ("not 2" / True taken for 1)
    ("open_frontier", (), {"round": "2", "decision_ids": ["D2"]}, "round takes int, not str"),
    ("open_frontier", (), {"round": True, "decision_ids": ["D2"]}, "round takes int, not bool"),
    ("record_answer", ("D1", "Everyone"), {"other": "yes"}, "other takes bool"),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "said"), WRONG_TYPES,
                         ids=[f"{m}-{s.split()[0]}" for m, _, _, s in WRONG_TYPES])
def test_an_argument_of_the_wrong_type_is_bad_input_and_writes_nothing(
        repo: Path, monkeypatch: pytest.MonkeyPatch, method: str, args: tuple[object, ...],
        kwargs: dict[str, object], said: str) -> None:
    from mdgrill import InputError, Spec

    monkeypatch.chdir(repo)
    spec = Spec.init("specs/a", goal="G")
    spec.add_node("D1", title="Who?", options=["Everyone", "Members"], recommend=1)
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1"])
    before = Path(spec.progress).read_bytes()
    with pytest.raises(InputError) as refused:
        getattr(spec, method)(*args, **kwargs)
    assert refused.value.code == "INVALID_INPUT"
    assert f"Spec.{method}: {said}" in refused.value.message
    assert Path(spec.progress).read_bytes() == before


def test_every_public_method_holds_its_arguments_to_their_types() -> None:
    # a method added later is held too: the check wraps every public one of the class
    from mdgrill import Spec

    for name, member in vars(Spec).items():
        if name.startswith("_") or isinstance(member, property):
            continue
        function = member.__func__ if isinstance(member, classmethod) else member
        assert hasattr(function, "__wrapped__"), name
    with pytest.raises(Exception) as refused:
        Spec.open(42)  # type: ignore[arg-type]
    assert getattr(refused.value, "code", None) == "INVALID_INPUT"
