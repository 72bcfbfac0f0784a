"""`mdgrill mcp` serves stdio on asyncio's pipe transports (`integrations/pipes.py`, issue 37
goal 2) and the JSON-RPC on the wire is what the SDK's own stdio transport gives: the same
lines, read the same way, answered with the same bytes; nothing but JSON-RPC on stdout; the
end of stdin ends the server, a client that stops reading does not break it."""

from __future__ import annotations

import asyncio
import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import import_part
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reliability import MDGRILL, make_repo

import_part("mcp", "the MCP SDK is the `mcp` extra (pip install -e '.[dev]' installs it)")

SPEC = "specs/a"
# the SDK's own stdio transport, serving the same tools (the baseline of the wire)
SDK_SERVER = [sys.executable, "-c", "import anyio\nfrom mcp.server.mcpserver import MCPServer\n"
              "from mdgrill.integrations.mcp import server\n"
              "anyio.run(MCPServer.run_stdio_async, server())"]


# -- reading lines as the SDK's text file does -----------------------------------------------

def _lines_of(chunks: list[bytes]) -> list[str]:
    """What `LineReader` yields for stdin arriving in these chunks."""
    from mdgrill.integrations.pipes import LineReader

    async def run() -> list[str]:
        stream = asyncio.StreamReader()

        async def feed() -> None:
            for chunk in chunks:
                stream.feed_data(chunk)
                await asyncio.sleep(0)  # the reader sees each chunk on its own
            stream.feed_eof()
        feeding = asyncio.ensure_future(feed())
        lines = [line async for line in LineReader(stream)]
        await feeding
        return lines
    return asyncio.run(run())


def _sdk_lines(data: bytes) -> list[str]:
    """What the SDK's stdio transport reads from the same bytes: a UTF-8 text file with bad
    bytes replaced and universal newlines."""
    return list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))


def test_lines_split_and_decode_as_the_sdk_reads_them() -> None:
    cases = [
        [b'{"a": 1}\n', b'{"b": 2}\n'],
        [b'{"a":', b' 1}\n{"b"', b': 2}'],  # split anywhere; the last line has no end
        [b"one\r\ntwo\rthree\n"],  # CRLF and a lone CR end lines too
        [b"one\r", b"\ntwo\r", b"three"],  # CR and LF in two chunks are one line end
        ["é€😀".encode()[:3], "é€😀".encode()[3:] + b"\n"],  # a character across chunks
        [b"bad \xff\xfe bytes\n", b"\xe2\x82\n"],  # invalid and cut sequences are replaced
        [b"\n\n", b"\r\r\n"],  # empty lines are lines (the SDK answers each as a parse error)
        [b"x" * (3 << 20) + b"\n", b"y\n"],  # a line far longer than a pipe's read
    ]
    for chunks in cases:
        assert _lines_of(chunks) == _sdk_lines(b"".join(chunks)), chunks


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\0", b"\r")), max_size=12),
       st.sampled_from([b"\n", b"\r", b"\r\n", b"\xc3", b"\xa9", b"\xff", b"a"]))
def test_any_chunks_read_as_the_sdk_reads_them(chunks: list[bytes], extra: bytes) -> None:
    chunks = [chunk + extra for chunk in chunks]
    assert _lines_of(chunks) == _sdk_lines(b"".join(chunks))


# -- the wire, against the SDK's own transport -----------------------------------------------

class Wire:
    """A server process spoken to line by line, as a client does: what it answers to each
    write is read before the next one goes."""

    def __init__(self, argv: list[str], repo: Path, env: dict[str, str],
                 stdout: int | io.BufferedWriter = subprocess.PIPE, reading: bool = True,
                 ) -> None:
        self.proc = subprocess.Popen(argv, cwd=repo, env=env, stdin=subprocess.PIPE,
                                     stdout=stdout, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        if self.proc.stdout is not None and reading:  # else the caller reads stdout itself
            threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        self.errors: list[bytes] = []  # stderr, read all along: a full pipe would stop it
        self._errors = threading.Thread(target=self._keep, args=(self.proc.stderr,),
                                        daemon=True)
        self._errors.start()

    def _read(self, out: io.BufferedReader) -> None:
        for line in out:
            self.lines.put(line)

    def _keep(self, err: io.BufferedReader) -> None:
        self.errors.extend(err)

    def send(self, data: bytes, answers: int) -> list[bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return [self.lines.get(timeout=60) for _ in range(answers)]

    def end(self) -> tuple[int, str]:
        """Close stdin: the server ends (its exit status, its stderr)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self._errors.join(timeout=60)
        return code, b"".join(self.errors).decode("utf-8", "replace")


def request(id_: int, method: str, params: dict[str, object] | None = None) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message, ensure_ascii=False).encode()


def call(id_: int, tool: str, **arguments: object) -> bytes:
    return request(id_, "tools/call", {"name": tool, "arguments": arguments})


# (what the client writes, how many lines it waits for)
CONVERSATION: list[tuple[bytes, int]] = [
    (request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}) + b"\n", 1),
    (b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n', 0),
    (request(2, "tools/list") + b"\n", 1),
    (call(3, "status", spec=SPEC) + b"\n", 1),
    (call(4, "record_answer", spec=SPEC, decision_id="D1", answer="Everyone ✓") + b"\r\n", 1),
    # two requests in one write, one ended by a lone CR
    (request(5, "ping") + b"\r" + call(6, "ledger", spec=SPEC) + b"\n", 2),
    (b"this is not json\n" + request(7, "ping") + b"\n", 1),  # a bad line, then a good one
    (call(8, "status", spec="ok").replace(b'"ok"', b'"o\xffk"') + b"\n", 1),  # a bad byte
    (call(9, "status", spec="a\0b") + b"\n", 1),  # a NUL: the tool's refusal
    (call(10, "status", spec="/etc") + b"\n", 1),  # outside the repository
    (request(11, "no/such/method") + b"\n", 1),
    (call(12, "no_such_tool") + b"\n", 1),
    (call(13, "open_frontier", spec=SPEC, round="x", decision_id=[]) + b"\n", 1),
]


def _interview(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, env = make_repo(tmp_path)
    for argv in (["init", SPEC, "--goal", "Pipes"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    return repo, env


def _converse(argv: list[str], repo: Path, env: dict[str, str], owed: int = 0,
              ) -> tuple[list[bytes], int, str]:
    """The answers to CONVERSATION; `owed`: the lines more its line of no JSON is answered
    with (the SDK's transport leaves it unanswered, ours owes it a parse error)."""
    wire = Wire(argv, repo, env)
    answers = [line for data, count in CONVERSATION
               for line in wire.send(data, count + (owed if b"not json" in data else 0))]
    code, err = wire.end()
    return answers, code, err


def test_the_wire_is_the_sdk_transports_byte_for_byte(tmp_path: Path) -> None:
    ours, code, err = _converse([*MDGRILL, "mcp"], *_interview(tmp_path / "ours"), owed=1)
    theirs, sdk_code, _ = _converse(SDK_SERVER, *_interview(tmp_path / "sdk"))
    assert code == 0 and sdk_code == 0
    assert "Traceback" not in err, err
    # but for the error JSON-RPC owes a line of no JSON, which the SDK leaves unanswered
    assert json.loads(ours.pop(6)) == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32700, "message": "Parse error: the line is no JSON"}}
    assert len(ours) == len(theirs) == 13
    for mine, sdk in zip(ours, theirs, strict=True):
        assert mine.replace(b"/ours/", b"/sdk/") == sdk, (mine[:300], sdk[:300])
    # every line on stdout is a JSON-RPC message, each answer with its request's id
    answers = [json.loads(line) for line in ours]
    assert [a.get("id") for a in answers] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert all(a["jsonrpc"] == "2.0" for a in answers)
    recorded = json.loads(answers[3]["result"]["content"][0]["text"])
    assert recorded["ok"] is True, recorded
    unknown = json.loads(answers[7]["result"]["content"][0]["text"])
    assert "o\ufffdk" in unknown["error"]["message"], unknown  # the bad byte, replaced
    refused = json.loads(answers[8]["result"]["content"][0]["text"])
    assert refused["error"]["code"] == "INVALID_INPUT"


def test_a_client_that_stops_reading_leaves_the_server_to_end_cleanly(tmp_path: Path) -> None:
    repo, env = _interview(tmp_path)
    wire = Wire([*MDGRILL, "mcp"], repo, env, reading=False)
    wire.send(CONVERSATION[0][0] + CONVERSATION[1][0], 0)
    assert wire.proc.stdout is not None
    assert json.loads(wire.proc.stdout.readline())["id"] == 1
    wire.proc.stdout.close()  # the client goes deaf: the server's writes meet a broken pipe
    for n in range(20):
        wire.send(call(100 + n, "status", spec=SPEC) + b"\n", 0)
    code, err = wire.end()
    assert code == 0 and "Traceback" not in err, err


def test_stdout_that_is_no_pipe_is_served_by_the_sdks_files(tmp_path: Path) -> None:
    # a file for stdout: the SDK's own transport serves it, with the same answers
    repo, env = _interview(tmp_path)
    out = tmp_path / "out.jsonl"
    with out.open("wb") as handle:
        wire = Wire([*MDGRILL, "mcp"], repo, env, stdout=handle)
        for data, _ in CONVERSATION[:4]:
            wire.send(data, 0)
            deadline = time.monotonic() + 60
            while not _answered(out, data) and time.monotonic() < deadline:
                time.sleep(0.02)  # the answer lands in the file
        code, err = wire.end()
    assert code == 0 and "Traceback" not in err, err
    answers = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert json.loads(answers[2]["result"]["content"][0]["text"])["ok"] is True


def _answered(out: Path, data: bytes) -> bool:
    """Whether the request in `data` (if any) has its answer in `out`."""
    sent = json.loads(data)
    if "id" not in sent:
        return True
    whole = out.read_bytes().split(b"\n")[:-1]  # a line being written is not read yet
    return any(json.loads(line).get("id") == sent["id"] for line in whole)


# -- the descriptors -------------------------------------------------------------------------

STRAY = """
import asyncio, os, sys
from mdgrill.integrations.pipes import pipes

async def main():
    async with pipes() as wire:
        assert wire is not None
        reader, writer = wire
        print("a stray print", flush=True)
        os.write(1, b"a stray write\\n")
        assert os.read(0, 10) == b""  # fd 0 reads the null device, not the wire
        async for line in reader:
            await writer.write("echo " + line)
            await writer.flush()
    print("after", flush=True)

asyncio.run(main())
"""


@pytest.mark.skipif(os.name != "posix", reason="pipes on POSIX descriptors")
def test_only_the_wire_reaches_stdout_and_the_descriptors_come_back() -> None:
    proc = subprocess.run([sys.executable, "-c", STRAY], input=b"one\ntwo\n",
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"echo one\necho two\nafter\n"
    assert proc.stderr == b"a stray print\na stray write\n"


def test_a_request_the_sdk_cannot_read_is_answered_never_left_waiting(tmp_path: Path) -> None:
    """A request holding a lone surrogate (`\\ud800`) is valid JSON the SDK's parser refuses,
    and the SDK only logs what it cannot read: its client then waited for the answer forever.
    It is answered with the error JSON-RPC 2.0 owes it (section 5.1), under its own id, and
    the next request is served; a notification is never answered, whatever it holds."""
    repo, env = _interview(tmp_path)
    wire = Wire([*MDGRILL, "mcp"], repo, env)
    wire.send(CONVERSATION[0][0] + CONVERSATION[1][0], 1)
    lone = call(2, "record_answer", spec=SPEC, decision_id="D1", answer="x").replace(
        b'"x"', b'"\\ud800"')
    deep = b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"a": ' + \
        b"[" * 100_000 + b"]" * 100_000 + b"}}"
    note = b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"a": "\\ud800"}}'
    answers = [json.loads(line) for line in wire.send(
        b"\n".join([lone, deep, note, b"", request(4, "ping")]) + b"\n", 3)]
    code, err = wire.end()
    assert code == 0 and "Traceback" not in err, err
    assert answers == [
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": (
            "Invalid params: a value holds a lone surrogate (such as \\ud800), which is no "
            "UTF-8 text: send text")}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700,
                                                 "message": "Parse error: the line is no JSON"}},
        {"jsonrpc": "2.0", "id": 4, "result": {}}]
    assert D1_UNANSWERED(repo)


def D1_UNANSWERED(repo: Path) -> bool:  # noqa: N802 - read as a sentence in the assert
    return "D1 ->" not in (repo / SPEC / ".progress.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("line", "owed"), [
    ("", None), (" \t\n", None),
    ("{", (None, -32700)), ("[1, 2]", (None, -32600)), ("7", (None, -32600)),
    ('{"jsonrpc": "2.0", "method": "x", "params": 5}', None),  # a notification
    ('{"jsonrpc": "2.0", "id": 1, "result": 5, "extra": "\\ud800"}', None),  # a response
    ('{"jsonrpc": "1.0", "id": 7, "method": "ping"}', (7, -32600)),
    ('{"jsonrpc": "1.0", "id": "r-1", "method": "ping"}', ("r-1", -32600)),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping", "x": "\\ud800"}', (None, -32602)),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', (None, -32600)),
    ('{"jsonrpc": "2.0", "id": "\\udc80", "method": "ping"}', (None, -32602)),
    ('{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"\\ud800": 1}}', (9, -32602)),
])
def test_what_a_line_the_sdk_cannot_read_is_owed(line: str,
                                                 owed: tuple[object, int] | None) -> None:
    from mdgrill.integrations.pipes import refusal

    found = refusal(line)
    assert (None if found is None else (found.id, found.error.code)) == owed


def test_a_request_too_deep_to_write_back_is_refused_as_an_invalid_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import json as json_module

    from mdgrill.integrations.pipes import refusal

    def too_deep(*args: object, **kwargs: object) -> str:
        raise RecursionError

    monkeypatch.setattr(json_module, "dumps", too_deep)
    found = refusal('{"jsonrpc": "2.0", "id": 3, "method": "ping"}')
    assert found is not None and (found.id, found.error.code) == (3, -32600)


def test_a_closed_reader_reads_nothing_more() -> None:
    import anyio

    from mdgrill.integrations.pipes import MessageReader

    class Lines:
        async def __anext__(self) -> str:
            return '{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'

    reader = MessageReader(Lines())  # type: ignore[arg-type]
    assert asyncio.run(reader.receive()) is not None
    reader.close()
    with pytest.raises(anyio.ClosedResourceError):
        asyncio.run(reader.receive())
