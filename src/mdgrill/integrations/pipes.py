"""The MCP server's stdin and stdout on asyncio's own pipe transports (issue 37, goal 2).

The SDK's `stdio_server()` reads and writes the standard streams through `anyio.wrap_file`:
a worker thread for every line read and two for every line written (write, flush), each a
wake-up of another thread that the scheduler of a loaded machine can keep waiting. Here the
event loop reads and writes the pipes itself. The messages are made and written as that
transport makes them, with the SDK's own calls (`MessageReader`, `MessageWriter`), but by the
task that asks for the next message or sends one, where `stdio_server()` hands each through a
task of its own and a stream more: two task switches a call fewer. The JSON-RPC on the wire
is the SDK's, byte for byte (tests/test_mcp_pipes.py).

As the SDK does, the wire is moved to private descriptors while the server runs: fd 0 reads
the null device and fd 1 writes to stderr, so a stray print or a child's output never lands
between two messages; both are restored on the way out. Stdin or stdout that is not a pipe or
a socket (a file, a terminal) is left to the SDK (`pipes()` yields None).
"""

from __future__ import annotations

import asyncio
import gc
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

# typing costs 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import Any

    from mcp.server.mcpserver import MCPServer
    from mcp.types import JSONRPCError

# the pipe's chunk: asyncio stops reading ahead at twice this much unread
CHUNK = 1 << 16


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class LineReader:
    """Stdin's lines as text, as the SDK's wrapped text file yields them: decoded as UTF-8
    with bad bytes replaced, split at `\\n`, `\\r\\n` and a lone `\\r` (universal newlines),
    each ending in `\\n` but the last one when the input ends without one."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._lines: list[str] = []
        self._rest = b""
        self._ended = False

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while not self._lines:
            if self._ended:
                raise StopAsyncIteration
            chunk = await self._reader.read(CHUNK)
            if chunk:
                *whole, self._rest = (self._rest + chunk).split(b"\n")
                for raw in whole:
                    self._add(raw, "\n")
            else:
                self._ended = True
                if self._rest:
                    self._add(self._rest, "")
                self._rest = b""
        return self._lines.pop(0)

    def _add(self, raw: bytes, end: str) -> None:
        if b"\r" in raw:  # `\r\n` is one line end, a lone `\r` another
            if raw.endswith(b"\r"):
                raw, end = raw[:-1], "\n"
            *lone, raw = raw.split(b"\r")
            self._lines.extend(part.decode("utf-8", "replace") + "\n" for part in lone)
        self._lines.append(raw.decode("utf-8", "replace") + end)


class LineWriter:
    """Stdout, taking the SDK's text lines: each written at once, `flush` waits while the
    pipe is full. A client that has gone (a broken pipe) takes nothing more: the lines are
    dropped, and the server ends at the end of its input, as it does without one."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._gone = False

    async def write(self, text: str) -> None:
        if not self._gone:
            try:
                self._writer.write(text.encode("utf-8"))
            except (ConnectionError, RuntimeError):  # closing or closed: the client left
                self._gone = True

    async def flush(self) -> None:
        if not self._gone:
            try:
                await self._writer.drain()
            except ConnectionError:
                self._gone = True


class MessageReader:
    """The client's messages as the SDK's server reads them from its transport: each line
    validated as a JSON-RPC message as the SDK's `stdio_server()` does it, in the task that
    asks for the next message. A line that is none is handed on as its exception, which the
    SDK only logs: so the error JSON-RPC owes it (`refusal`) is sent first with `answer`,
    where the SDK's client would otherwise wait forever for a request nobody answers (one
    holding a lone surrogate, `\\ud800`, which the SDK's parser refuses)."""

    def __init__(self, lines: LineReader,
                 answer: Callable[[object], Awaitable[None]] | None = None) -> None:
        from mcp import types
        from mcp.shared.message import SessionMessage

        self._lines = lines
        self._parse = types.jsonrpc_message_adapter.validate_json
        self._message = SessionMessage
        self._answer = answer
        self._closed = False

    async def receive(self) -> object:
        import anyio

        if self._closed:
            raise anyio.ClosedResourceError
        try:
            line = await self._lines.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None
        try:
            return self._message(self._parse(line, by_name=False))
        except Exception as exc:  # noqa: BLE001 - handed on, as the SDK's transport does
            owed = refusal(line)
            if owed is not None and self._answer is not None:
                await self._answer(self._message(owed))
            return exc

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> object:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._closed = True

    def close(self) -> None:
        self._closed = True

    async def __aenter__(self) -> MessageReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def refusal(line: str) -> JSONRPCError | None:
    """The JSON-RPC error (2.0, section 5.1) owed to a line the SDK could not read as a
    message, or None where none is owed: a blank line; a notification (no `id`) or a
    response (no `method`), which are never answered. Not JSON: a parse error. A request
    holding a lone surrogate: invalid params, said as the CLI says it (no UTF-8 text). Any
    other request: an invalid request. Its `id` is answered as sent where JSON-RPC allows
    one (a string of text or an integer), else as null."""
    import json

    from mcp import types

    if not line.strip():
        return None
    try:
        sent = json.loads(line)
    except (ValueError, RecursionError):  # nested deeper than Python reads: no JSON here
        return _error(None, types.PARSE_ERROR, "Parse error: the line is no JSON")
    if not isinstance(sent, dict):
        return _error(None, types.INVALID_REQUEST, "Invalid Request: not a JSON object")
    if "id" not in sent or "method" not in sent:
        return None
    sent_id = sent["id"]
    if not (isinstance(sent_id, str) and _is_text(sent_id)
            or isinstance(sent_id, int) and not isinstance(sent_id, bool)):
        sent_id = None
    try:
        text = json.dumps(sent, ensure_ascii=False)  # `\ud800` read as one, if any
    except RecursionError:
        text = ""
    if not _is_text(text):
        return _error(sent_id, types.INVALID_PARAMS,
                      "Invalid params: a value holds a lone surrogate (such as \\ud800), "
                      "which is no UTF-8 text: send text")
    return _error(sent_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 "
                  "request the server can read")


def _is_text(value: str) -> bool:
    """Whether `value` is UTF-8 text (no lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _error(sent_id: str | int | None, code: int, message: str) -> JSONRPCError:
    from mcp import types

    return types.JSONRPCError(jsonrpc="2.0", id=sent_id,
                              error=types.ErrorData(code=code, message=message))


class MessageWriter:
    """The server's messages, each serialised as the SDK's `stdio_server()` does it and
    written by the task that sends it (`send` returns once the pipe took it). Messages go out
    in the order they are sent: a line is handed to the pipe whole before any wait."""

    def __init__(self, out: LineWriter) -> None:
        self._out = out
        self._closed = False

    async def send(self, item: Any) -> None:
        import anyio

        if self._closed:
            raise anyio.ClosedResourceError
        await self._out.write(item.message.model_dump_json(by_alias=True, exclude_unset=True)
                              + "\n")
        await self._out.flush()

    async def aclose(self) -> None:
        self._closed = True

    def close(self) -> None:
        self._closed = True

    async def __aenter__(self) -> MessageWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@asynccontextmanager
async def pipes() -> AsyncIterator[tuple[LineReader, LineWriter] | None]:
    """Stdin and stdout as a line reader and writer on the event loop, or None when either
    is not a pipe or a socket."""
    if not (_is_pipe(0) and _is_pipe(1)):
        yield None
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    blocking = os.get_blocking(wire_in), os.get_blocking(wire_out)
    diverted = False
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
        diverted = True
        reader = asyncio.StreamReader(limit=CHUNK)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader),
            os.fdopen(wire_in, "rb", buffering=0, closefd=False))
        write_transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
            os.fdopen(wire_out, "wb", buffering=0, closefd=False))
        # `flush` returns once the pipe has taken every byte, as the SDK's flush does
        write_transport.set_write_buffer_limits(high=0)
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        try:
            yield LineReader(reader), LineWriter(writer)
        finally:
            read_transport.close()
            write_transport.close()
            await asyncio.sleep(0)  # let the transports let go of the descriptors
    finally:  # the wire back on fd 0 and 1, as it was (on the way out, nothing to raise)
        with suppress(OSError):
            if diverted:
                os.dup2(wire_in, 0)
                os.dup2(wire_out, 1)
        for fd, was_blocking in zip((wire_in, wire_out), blocking, strict=True):
            with suppress(OSError):
                os.set_blocking(fd, was_blocking)
            with suppress(OSError):
                os.close(fd)


def pipe_server(name: str, *, instructions: str) -> MCPServer:
    """The SDK's server, serving stdio on `pipes()` where it can (`mdgrill mcp` runs it).
    The SDK is imported here, not when this module loads: it is the `[mcp]` extra, and its
    stdio module imports `fcntl`, which Windows has not (tests/test_portability.py)."""
    from mcp.server.mcpserver import MCPServer

    class PipeServer(MCPServer):
        async def run_stdio_async(self) -> None:
            # What start-up made (the SDK's models and schemas, ~90,000 objects) lives as long as
            # the server: frozen, the cycle collector's full passes (75-270 ms each, now and then
            # in the middle of a call) no longer walk it. What the calls make is collected as ever.
            gc.freeze()
            async with pipes() as wire:
                if wire is None:  # a file or a terminal: the SDK's own wrapped files
                    await super().run_stdio_async()
                    return
                lines, out = wire
                # `Server.run` is the SDK's serving loop; MCPServer keeps its Server private
                # (the SDK's in-memory transport reaches it the same way)
                lowlevel = self._lowlevel_server
                writer = MessageWriter(out)
                await lowlevel.run(MessageReader(lines, writer.send),  # type: ignore[arg-type]
                                   writer, lowlevel.create_initialization_options())

    return PipeServer(name, instructions=instructions)
