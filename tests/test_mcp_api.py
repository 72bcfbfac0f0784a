"""The MCP server on the library API (issue 29 part 3): its tools lose no argument of the
`Spec` methods they call, a path outside the repository is refused, and no argument of any
tool can stop the server ("A tool call can never stop the server")."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability import MDGRILL, make_repo

pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (pip install -e '.[dev]')")

SPEC = "specs/a"
# what each tool is called with when one of its arguments is not under test
VALID: dict[str, dict[str, object]] = {
    "status": {"spec": SPEC}, "frontier": {"spec": SPEC}, "ledger": {"spec": SPEC},
    "validate": {"path": SPEC}, "ask": {"spec": SPEC}, "digest": {"spec": SPEC},
    "tree": {"spec": SPEC}, "mode": {"spec": SPEC}, "cancel": {"spec": SPEC},
    "node_add": {"spec": SPEC, "title": "Which?", "node_id": "N1",
                 "option": ["One", "Two"], "recommend": 1},
    "begin_interview": {"spec": SPEC, "phase": "requirements", "interview_id": "r1"},
    "answer": {"spec": SPEC, "tool_result": '{"answers": {}}'},
    "record_answer": {"spec": SPEC, "decision_id": "D1", "answer": "Everyone"},
    "record_fact": {"spec": SPEC, "text": "sessions are JWT"},
    "await_confirmation": {"spec": SPEC, "decision_id": "C1", "approach": "Everyone"},
    "confirm": {"spec": SPEC, "decision_id": "C1"},
    "check_delegation": {"spec": SPEC, "phase": "requirements", "interview_id": "r1"},
    "init": {"spec": "specs/new", "goal": "A goal"},
    "open_frontier": {"spec": SPEC, "round": 1, "decision_id": ["D1"]},
    "out_of_scope": {"spec": SPEC, "decision_id": "D1", "reply": "not for this release"},
    "record_stop": {"spec": SPEC, "choice": "ship"},
    "classify_reply": {"text": "ok"},
    "skip": {"spec": SPEC, "reason": "later", "assumption": ["everyone"]},
    "revise": {"spec": SPEC, "decision_id": ["D1"]},
    "amend": {"spec": SPEC, "decision_id": "D1", "answer": "All", "reason": "typo"},
    "reopen": {"spec": SPEC, "phase": "requirements", "reason": "redo"},
    "ask_approval": {"spec": SPEC, "decision_id": "C1"},
    "record_skill_load": {"spec": SPEC, "input": "manifest.json"},
    "questionnaire": {"spec": SPEC}, "collect": {"spec": SPEC},
    "await_artifact_approval": {"spec": SPEC, "artifact": f"{SPEC}/requirements.md"},
    "approve_artifact": {"spec": SPEC, "source": "approve-artifact"},
    "request_revision": {"spec": SPEC, "feedback": "shorter"},
    "resolve_approval": {"spec": SPEC, "text": "looks good"},
    "bind": {"spec": SPEC, "decision_id": "D1", "target": ["app.py"]},
    "reaffirm": {"spec": SPEC, "decision_id": "D1", "reply": "Still holds"},
}
MEGABYTE = "x" * (1 << 20)
HOSTILE: list[object] = ["--help", "-h", "--json", "", "\0", "a\0b", MEGABYTE, 7, -1, 3.5,
                         True, None, [], ["--help"], {"a": 1}, "../../../../etc",
                         "/etc/passwd"]


# -- the signatures ------------------------------------------------------------------------

def test_no_tool_loses_an_argument_of_its_method(tmp_path: Path) -> None:
    from mdgrill import Spec
    from mdgrill.integrations.mcp import METHOD_OF, RENAMED, WITHHELD, Workspace, tools

    found = {t.__name__: t for t in tools(Workspace(str(tmp_path)))}
    assert sorted(found) == sorted(VALID)
    checked = 0
    for name, tool in found.items():
        method = getattr(Spec, METHOD_OF.get(name, name), None)
        if method is None:
            continue  # ask_approval: confirm or cancel, by the user's own selection
        renamed = RENAMED.get(name, {})
        offered = {renamed.get(p, p) for p in inspect.signature(tool).parameters}
        wanted = set(inspect.signature(method).parameters) - {"self", "cls"}
        lost = wanted - offered - set(WITHHELD.get(name, {}))
        assert lost == set(), f"the {name} tool lacks {sorted(lost)} of Spec.{method.__name__}"
        checked += 1
    assert checked >= 25
    # record_answer has both flags the CLI has (issue 29: they were missing)
    assert {"other", "assumption"} <= set(inspect.signature(found["record_answer"]).parameters)


def test_every_method_of_spec_is_a_tool_or_says_why_not(tmp_path: Path) -> None:
    # "every interview verb as an MCP tool" (docs/integrations.md): a method added to Spec
    # without a tool, or a reason, fails here
    from mdgrill import Spec
    from mdgrill.integrations.mcp import METHOD_OF, NO_TOOL, Workspace, tools

    offered = {METHOD_OF.get(t.__name__, t.__name__) for t in tools(Workspace(str(tmp_path)))}
    methods = {name for name, member in vars(Spec).items()
               if not name.startswith("_") and not isinstance(member, property)}
    assert methods - offered == set(NO_TOOL)


def test_a_spec_named_again_is_resolved_again_once_its_path_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 37, goal 2: the server keeps a spec resolved between calls; never a stale answer
    from mdgrill import Spec
    from mdgrill.errors import InputError
    from mdgrill.integrations.mcp import Workspace

    repo, _ = make_repo(tmp_path)
    Spec.init(repo / SPEC, goal="G")
    monkeypatch.chdir(repo)
    ws = Workspace(str(repo))
    first = ws.spec(SPEC)
    assert ws.spec(SPEC) is first  # nothing changed: the same resolution
    assert ws.spec(f"{SPEC}/.progress.md").folder == first.folder
    # a repository appears between the root and the spec: the spec's repository is that one
    nested = repo / "specs" / ".git"
    nested.mkdir()
    (nested / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert ws.spec(SPEC).root == str(repo / "specs")
    (nested / "HEAD").unlink()
    nested.rmdir()
    assert ws.spec(SPEC).root == str(repo)
    # the folder swapped for a symlink to a spec outside the repository: refused
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (repo / SPEC).rename(outside / "a")
    (repo / SPEC).symlink_to(outside / "a", target_is_directory=True)
    with pytest.raises(InputError) as refused:
        ws.spec(SPEC)
    assert refused.value.code == "PATH_OUTSIDE_REPOSITORY"
    # back as a folder of its own, then its .progress.md gone: not found
    (repo / SPEC).unlink()
    (outside / "a").rename(repo / SPEC)
    assert ws.spec(SPEC).folder == str(repo / SPEC)
    (repo / SPEC / ".progress.md").unlink()
    with pytest.raises(InputError) as missing:
        ws.spec(SPEC)
    assert missing.value.code == "NOT_FOUND"


def test_messages_are_traced_only_under_a_tracer_provider(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry import trace

    from mdgrill.integrations.mcp import server

    def chain() -> list[str]:
        return [type(m).__name__ for m in server(str(tmp_path)).middleware]
    assert "OpenTelemetryMiddleware" not in chain()  # no provider: no span that records nothing
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    assert "OpenTelemetryMiddleware" in chain()  # one set up before the server keeps its spans


def _tools_on_a_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     ) -> tuple[Path, dict[str, Callable[..., Any]]]:
    """The tools, in process, on a spec whose interview has begun."""
    from mdgrill import Spec
    from mdgrill.integrations.mcp import Workspace, tools

    repo, _ = make_repo(tmp_path)
    Spec.init(repo / SPEC, goal="G").begin_interview(phase="requirements", interview_id="r1")
    monkeypatch.chdir(repo)
    return repo, {t.__name__: t for t in tools(Workspace(str(repo)))}


def test_a_lone_surrogate_in_an_argument_is_refused_as_the_cli_refuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no UTF-8 text: refused before anything reads it (its echo in an answer would not
    # serialise), and an answer that holds one anyway is escaped, never dropped
    from mdgrill.integrations.mcp import json_text

    _, found = _tools_on_a_spec(tmp_path, monkeypatch)
    for arguments in ({"spec": "\udc80x"}, {"spec": SPEC, "decision_id": "D\udc80"}):
        tool = found["status"] if len(arguments) == 1 else found["record_answer"]
        extra = {} if len(arguments) == 1 else {"answer": "yes"}
        result = asyncio.run(tool(**arguments, **extra))
        answer = json.loads(result.content[0].text)
        assert answer["error"]["code"] == "INVALID_INPUT", answer
        assert "UTF-8" in answer["error"]["message"]

    escaped = json_text({"ok": True, "spec": "a\udc80", "goal": "ü"})
    assert escaped.encode("utf-8")  # serialisable: nothing dropped
    assert json.loads(escaped) == {"ok": True, "spec": "a\udc80", "goal": "ü"}
    assert json_text({"goal": "ü"}) == '{"goal": "ü"}'  # as the CLI prints it


def test_a_write_has_its_spec_read_ahead_once_its_answer_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 37, goal 2: the parse a write leaves for the next read is made after the answer
    from mdgrill.services import status

    repo, found = _tools_on_a_spec(tmp_path, monkeypatch)
    ahead: list[tuple[str, str]] = []
    monkeypatch.setattr(status, "read_ahead", lambda progress, root: ahead.append((progress,
                                                                                  root)))

    async def calls() -> list[int]:
        seen = []
        await found["open_frontier"](spec=SPEC, round=1, decision_id=["D1"])
        seen.append(len(ahead))  # not yet: the answer goes first
        await asyncio.sleep(0)
        seen.append(len(ahead))
        await found["status"](spec=SPEC)  # a read: nothing to read ahead
        await found["open_frontier"](spec=SPEC, round=1, decision_id=[])  # refused: nothing
        await asyncio.sleep(0)
        seen.append(len(ahead))
        return seen
    assert asyncio.run(calls()) == [0, 1, 1]
    assert ahead == [(str(repo / SPEC / ".progress.md"), str(repo))]


def test_a_spec_read_ahead_never_answers_for_bytes_that_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, found = _tools_on_a_spec(tmp_path, monkeypatch)
    progress = repo / SPEC / ".progress.md"

    async def calls() -> object:
        await found["open_frontier"](spec=SPEC, round=1, decision_id=["D1"])
        # a hand edit lands between the answer and the read ahead
        progress.write_text(progress.read_text(encoding="utf-8").replace(
            "goal: G", "goal: Edited by hand"), encoding="utf-8")
        await asyncio.sleep(0)
        reply = await found["status"](spec=SPEC)
        return json.loads(reply.content[0].text)["goal"]
    assert asyncio.run(calls()) == "Edited by hand"


# -- a server session shared by the calls below --------------------------------------------

class Server:
    """One `mdgrill mcp` over stdio, driven by the SDK's client from a thread of its own, so
    that each test (and each hypothesis example) calls it synchronously."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.repo, self.env = repo, env
        self.loop = asyncio.new_event_loop()
        self.requests: asyncio.Queue[tuple[str, dict[str, object],
                                           concurrent.futures.Future[object]] | None]
        self.ready = threading.Event()
        self.schemas: dict[str, dict[str, object]] = {}
        self.done = concurrent.futures.Future[None]()
        threading.Thread(target=self._run, daemon=True).start()
        assert self.ready.wait(60), "the server did not start"
        if self.done.done():
            self.done.result()  # it failed to start: say why

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self._serve())
            self.done.set_result(None)
        except BaseException as exc:  # noqa: BLE001 - reported by close()
            self.done.set_exception(exc)
            self.ready.set()

    async def _serve(self) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self.requests = asyncio.Queue()
        params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"],
                                       env=self.env, cwd=str(self.repo))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for tool in (await session.list_tools()).tools:
                self.schemas[tool.name] = tool.input_schema
            self.ready.set()
            while (item := await self.requests.get()) is not None:
                name, arguments, future = item
                try:
                    future.set_result(await session.call_tool(name, arguments))
                except Exception as exc:  # noqa: BLE001 - the caller asserts on it
                    future.set_exception(exc)

    def call(self, name: str, arguments: dict[str, object]) -> tuple[bool, object]:
        """(whether the SDK reported a tool error, the tool's JSON or the error text)."""
        future: concurrent.futures.Future[object] = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self.requests.put_nowait, (name, arguments, future))
        reply = future.result(timeout=60)
        text = next(c.text for c in reply.content  # type: ignore[attr-defined]
                    if getattr(c, "type", "") == "text")
        if reply.is_error:  # type: ignore[attr-defined]
            return True, text  # the SDK refused the arguments (a wrong type): still an answer
        return False, json.loads(text)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.requests.put_nowait, None)
        self.done.result(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    repo, env = make_repo(tmp_path_factory.mktemp("mcp"))
    for argv in (["init", SPEC, "--goal", "Promo codes"],
                 ["node", "add", SPEC, "D1", "--title", "Who?", "--option", "Everyone",
                  "--option", "Members", "--recommend", "1"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    running = Server(repo, env)
    yield running
    # still serving after everything the tests threw at it
    error, status = running.call("status", {"spec": SPEC})
    assert not error and status["ok"] is True  # type: ignore[index]
    running.close()


def _answered(server: Server, name: str, arguments: dict[str, object]) -> None:
    error, payload = server.call(name, arguments)
    if error:
        return
    assert isinstance(payload, dict) and "ok" in payload, (name, payload)
    if payload["ok"] is False:
        if "error" in payload:  # a refusal or bad input
            codes = [payload["error"]["code"]]
        elif name == "answer":  # nothing recorded: why, decision by decision, as the CLI says
            codes = [refusal["code"] for refusal in payload["refused"].values()]
        else:  # validate: the problems it found
            assert name == "validate", (name, payload)
            codes = [found["code"] for found in payload["diagnostics"]]
        assert "INTERNAL" not in codes, (name, {k: str(v)[:40] for k, v in arguments.items()},
                                         payload)


# -- paths outside the repository ------------------------------------------------------------

def test_a_path_outside_the_repository_is_refused(server: Server, tmp_path: Path) -> None:
    # issue 34 item 3: a spec, an init or a resource naming another repository
    elsewhere = tmp_path / "other"
    subprocess.run([*MDGRILL, "init", str(elsewhere / "specs" / "b"), "--goal", "G",
                    "--root", str(elsewhere)], env=server.env, capture_output=True, check=False)
    for name, arguments in (
            ("status", {"spec": str(elsewhere / "specs" / "b")}),
            ("init", {"spec": str(tmp_path / "new"), "goal": "G"}),
            ("record_answer", {"spec": "../" * 12 + "tmp", "decision_id": "D1",
                               "answer": "x"}),
            ("validate", {"path": "/etc"})):
        error, payload = server.call(name, arguments)
        assert not error and payload["error"]["code"] == "PATH_OUTSIDE_REPOSITORY", payload  # type: ignore[index]
    assert not (tmp_path / "new").exists()  # nothing was created outside


def test_a_resource_of_another_repository_is_refused(server: Server, tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    (tmp_path / "x").mkdir()
    (tmp_path / "x" / ".progress.md").write_text("---\nmdgrill: 1\n---\nsecret\n")

    async def read(uri: str) -> str:
        params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"],
                                       env=server.env, cwd=str(server.repo))
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            try:
                got = await session.read_resource(uri)
            except Exception as exc:  # noqa: BLE001 - the refusal arrives as an MCP error
                return f"error: {exc}"
            return str(got.contents[0].text)  # type: ignore[union-attr]

    outside = str(tmp_path / "x").replace("/", "~")
    refused = asyncio.run(read(f"mdgrill://spec/{outside}/progress"))
    assert "secret" not in refused and "PATH_OUTSIDE_REPOSITORY" in refused, refused
    inside = asyncio.run(read(f"mdgrill://spec/{SPEC.replace('/', '~')}/progress"))
    assert "mdgrill: 1" in inside


# -- no call stops the server ----------------------------------------------------------------

def test_every_argument_of_every_tool_takes_hostile_values(server: Server) -> None:
    assert sorted(server.schemas) == sorted(VALID)
    calls = 0
    for name, schema in sorted(server.schemas.items()):
        properties = schema.get("properties", {})
        assert isinstance(properties, dict)
        for argument in sorted(properties):
            for value in HOSTILE:
                _answered(server, name, {**VALID[name], argument: value})
                calls += 1
    assert calls > 1000


def _values() -> st.SearchStrategy[object]:
    text = st.text(alphabet=st.characters(codec="utf-8"), max_size=64)
    return st.one_of(text, text.map(lambda t: "--" + t), st.integers(), st.floats(),
                     st.booleans(), st.none(), st.lists(text, max_size=5),
                     st.dictionaries(text, text, max_size=3), st.sampled_from(HOSTILE))


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_arguments_get_an_answer(server: Server, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(VALID)), label="tool")
    properties = sorted(server.schemas[name].get("properties", {}))  # type: ignore[arg-type]
    arguments = dict(VALID[name])
    for argument in data.draw(st.lists(st.sampled_from(properties), max_size=3,
                                       unique=True), label="fuzzed"):
        arguments[argument] = data.draw(_values(), label=argument)
    _answered(server, name, arguments)


def test_validate_takes_a_spec_a_glossary_or_a_folder(server: Server) -> None:
    # the tool checks what `mdgrill validate PATH` checks, with no CLI run behind it
    glossary = server.repo / "docs" / "CONTEXT.md"
    glossary.parent.mkdir(exist_ok=True)
    glossary.write_text("# Ctx\n\n## Language\n\n**Order**:\nA thing.\n\n**Order**:\n"
                        "Another.\n", encoding="utf-8")
    try:
        for path in ("docs/CONTEXT.md", "docs", None):
            error, payload = server.call("validate", {} if path is None else {"path": path})
            assert not error and payload["ok"] is False, (path, payload)  # type: ignore[index]
            # the errors: the whole repository also holds the spec, whose node has warnings
            codes = [d["code"] for d in payload["diagnostics"]  # type: ignore[index]
                     if d["severity"] == "error"]
            assert codes == ["DUPLICATE_TERM"], (path, payload)
        error, payload = server.call("validate", {"path": SPEC})
        assert not error and payload["ok"] is True and payload["errors"] == 0  # type: ignore[index]
    finally:
        glossary.unlink()
