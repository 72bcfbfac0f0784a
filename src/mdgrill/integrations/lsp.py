"""`mdgrill lsp`: the spec's problems, decisions and rounds in any editor that speaks LSP.

A thin layer over the library calls the CLI makes: diagnostics are `validate`'s (same codes,
same lines) for `.progress.md`, `CONTEXT.md` and `CONTEXT-MAP.md`, computed from the editor's
buffer on open and on every change; a decision ID is hovered with its question, status,
answer and what it waits on (the review's reading of the tree) and leads to its node; the
outline lists the tree's nodes and the log's rounds; `Depends on:` and `Spawned by:` lines
complete with the tree's IDs; a filled questionnaire slot offers a code action that records
the saved questionnaire, as `mdgrill collect` does; in any other file, the first line of a
bound file, the header of a bound Python definition and the heading of a bound Markdown
section are hovered with the decisions bound to them (what `mdgrill why` says). Nothing
else writes: a recorded round being changed shows as `validate`'s ROUND_EDITED, in the
editor before anything is saved.
Needs the `lsp` extra (pygls 2): `pip install '.[mcp,lsp]'` from a clone.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from mdgrill.checks.spec import NodeChecks
from mdgrill.diagnostics import Diagnostic
from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.formats.schema import ID_PATTERN
from mdgrill.formats.textfile import TextFile

SPEC_FILES = (".progress.md", "questions.md")
GLOSSARIES = ("CONTEXT.md", "CONTEXT-MAP.md")
_WORD = re.compile(ID_PATTERN)
_REFERENCE_LINE = re.compile(r"^\s*[-*+] (?:Depends on|Spawned by):")


def _path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def _progress_of(uri: str, text: str) -> Progress | None:
    """The spec the document belongs to: the buffer itself for a `.progress.md`, the spec
    folder's file for its questionnaire."""
    path = _path(uri)
    try:
        if os.path.basename(path) == ".progress.md":
            return Progress(TextFile(text), path)
        with open(os.path.join(os.path.dirname(path), ".progress.md"), "rb") as handle:
            from mdgrill.formats.progress import read_progress

            return read_progress(handle.read(), path)
    except (OSError, MdgrillError):
        return None


def diagnostics_of(uri: str, text: str, buffers: Buffers | None = None) -> list[types.Diagnostic]:
    """`validate`'s diagnostics of a buffer, as LSP diagnostics (one line each). With
    `buffers`, a `.progress.md` is revalidated from its last parse there (`revalidate`)."""
    path = _path(uri)
    name = os.path.basename(path)
    if name == ".progress.md":
        if buffers is not None:
            found = buffers.validate(uri, text.encode("utf-8"), name)
        else:
            from mdgrill.checks.spec import validate_progress_bytes

            found = validate_progress_bytes(text.encode("utf-8"), name)
    elif name in GLOSSARIES:
        from mdgrill.checks.spec import validate_glossary_bytes

        found = validate_glossary_bytes(text.encode("utf-8"), name, is_map=name != "CONTEXT.md")
    else:
        return []
    lines = text.split("\n")
    out = []
    for d in found:
        line = max(d.line - 1, 0)
        width = len(lines[line]) if line < len(lines) else 0
        out.append(types.Diagnostic(
            range=types.Range(types.Position(line, max(d.col - 1, 0)),
                              types.Position(line, max(width, d.col - 1))),
            message=d.message, code=d.code, source="mdgrill",
            severity=types.DiagnosticSeverity.Error if d.is_error
            else types.DiagnosticSeverity.Warning))
    return out


def revalidate(data: bytes, path: str, earlier: Progress | None,
               nodes: NodeChecks | None = None) -> tuple[list[Diagnostic], Progress | None]:
    """`validate_progress_parsed` of `data`, reading again only what changed since `earlier`
    (a parse of an earlier version of the buffer, or None): its front matter, the ledger of
    an unchanged log and the bullets of every block and node whose bytes did not change are
    taken from it, and `nodes` keeps what was said of each node for the next version. Every
    check runs on the result with `validate`'s own reading (the tree's and the log's line
    tokens; a node checked again is checked from its own lines' tokens), so the diagnostics
    are a full validate's (issue 37, goal 4). A buffer that does not read takes the full
    path, which says why as `validate` does."""
    from mdgrill.checks.spec import check_progress, validate_progress_parsed

    if not data or data.isspace() or (earlier is None and nodes is None):
        return validate_progress_parsed(data, path)
    from mdgrill.diagnostics import sort_diagnostics
    from mdgrill.formats.progress import read_progress, reread_progress
    from mdgrill.model.tree import carry_ledger

    try:
        if earlier is None:
            prog = read_progress(data, path)
        else:
            prog = reread_progress(data, path, earlier)
        if earlier is None or not carry_ledger(prog, earlier):
            # the ledger is read afresh: from the log's tokens, as `validate` reads it
            prog.read_log_rows()
        return sort_diagnostics(check_progress(prog, nodes)), prog
    except (MdgrillError, RecursionError):
        return validate_progress_parsed(data, path)


class Buffers:
    """Each open `.progress.md` buffer's last parse and what was said of its nodes, for its
    next change to start from."""

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[str, tuple[Progress | None, NodeChecks]] = {}

    def validate(self, uri: str, data: bytes, path: str) -> list[Diagnostic]:
        earlier, nodes = self._parsed.get(uri) or (None, NodeChecks())
        found, prog = revalidate(data, path, earlier, nodes)
        self._parsed[uri] = (prog, nodes)
        return found

    def forget(self, uri: str) -> None:
        self._parsed.pop(uri, None)


def word_at(text: str, position: types.Position) -> str | None:
    lines = text.split("\n")
    if position.line >= len(lines):
        return None
    line = lines[position.line]
    for m in _WORD.finditer(line):
        if m.start() <= position.character <= m.end():
            return m.group(0)
    return None


class TermHit:
    """A glossary term under the cursor: its canonical name, definition, where it is."""

    __slots__ = ("name", "definition", "path", "line", "avoided")

    def __init__(self, name: str, definition: str, path: str, line: int, avoided: str) -> None:
        self.name = name
        self.definition = definition
        self.path = path
        self.line = line  # 1-based
        self.avoided = avoided  # the _Avoid_ word under the cursor, or ""


def _glossaries_for(path: str) -> list[str]:
    """The CONTEXT.md files that speak for a document: its folder's and its parents', up to
    the repository's root."""
    out = []
    folder = os.path.dirname(path)
    while True:
        candidate = os.path.join(folder, "CONTEXT.md")
        if os.path.isfile(candidate):
            out.append(candidate)
        if os.path.isdir(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            return out
        folder = os.path.dirname(folder)


def term_at(uri: str, text: str, position: types.Position) -> TermHit | None:
    """The glossary term (or an `_Avoid_` word of one) the cursor stands on."""
    from mdgrill.formats.glossary import parse_glossary
    from mdgrill.formats.textfile import decode

    lines = text.split("\n")
    if position.line >= len(lines):
        return None
    line = lines[position.line].lower()
    for glossary_path in _glossaries_for(_path(uri)):
        try:
            with open(glossary_path, "rb") as handle:
                glossary = parse_glossary(decode(handle.read(), glossary_path), glossary_path)
        except (OSError, MdgrillError):
            continue
        for term in glossary.terms:
            for word, avoided in [*((n, "") for n in term.names), *((a, a) for a in term.avoid)]:
                start = line.find(word.lower())
                while start >= 0:
                    if start <= position.character <= start + len(word):
                        return TermHit(term.names[0], term.definition, glossary_path,
                                       term.line, avoided)
                    start = line.find(word.lower(), start + 1)
    return None


def bound_target_at(uri: str, text: str, line: int) -> tuple[str, str] | None:
    """(the repository root, the target the 0-based `line` names): the file on its first
    line, a Python definition on its header, a Markdown section on its heading."""
    from mdgrill.core import fingerprints as fp
    from mdgrill.shell import store

    path = _path(uri)
    if os.path.basename(path) in SPEC_FILES + GLOSSARIES:
        return None
    root = store.repository(path)
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        return None
    rel = rel.replace(os.sep, "/")
    if line == 0:
        return root, rel
    data = text.encode("utf-8", "surrogatepass")
    if path.endswith((".py", ".pyi")):
        symbol = fp.symbol_at(data, line + 1)
        return (root, f"{rel}::{symbol}") if symbol else None
    if path.endswith((".md", ".markdown", ".mdx")):
        heading = fp.heading_at(data, line + 1)
        return (root, f"{rel}#{heading}") if heading else None
    return None


def bindings_hover(uri: str, text: str, position: types.Position) -> types.Hover | None:
    """On a bound file's first line, a bound definition's header or a bound section's
    heading: the decisions bound to it, their answers and who approved them (`why`'s)."""
    from mdgrill.services.bindings import why

    at = bound_target_at(uri, text, position.line)
    if at is None:
        return None
    root, target = at
    try:
        found = why(root, target)
    except MdgrillError:
        return None
    if not found:
        return None
    lines = [f"**Decisions bound to** `{target}`"]
    for r in found:
        b = r.binding
        lines.append(f"- **{b.decision}** ({r.spec}): {b.answer}; bound as `{b.target}` at "
                     f"{b.at[:12]} by {b.by or 'unnamed'}; approved by "
                     f"{r.approved_by or 'not approved yet'}")
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value="\n".join(lines)))


def hover_of(uri: str, text: str, position: types.Position) -> types.Hover | None:
    """A decision ID under the cursor: its question, status, answer and what it waits on;
    a glossary term (or a word it avoids): its definition and canonical name; a bound file,
    definition or section: the decisions bound to it."""
    from mdgrill.core.review import spec_review

    bound = bindings_hover(uri, text, position)
    if bound is not None:
        return bound
    word = word_at(text, position)
    prog = _progress_of(uri, text)
    node = spec_review("spec", prog).node(word) if word is not None and prog is not None \
        else None
    if node is None:
        hit = term_at(uri, text, position)
        if hit is None:
            return None
        value = f"**{hit.name}**: {hit.definition}"
        if hit.avoided:
            value = f"_{hit.avoided}_ is avoided: say **{hit.name}**.\n\n" + value
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=value))
    lines = [f"**{node.id}**: {node.title}", "", f"status: {node.status}"]
    if node.answer:
        lines.append(f"answer: {node.answer}")
    if node.prerequisites:
        lines.append(f"waits on: {', '.join(node.prerequisites)}")
    if node.section:
        lines.append(f"section: {node.section}")
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value="\n\n".join(lines)))


def definition_of(uri: str, text: str, position: types.Position) -> types.Location | None:
    """From a decision ID to its node in the spec's `.progress.md`; from a glossary term to
    its entry in `CONTEXT.md`."""
    word = word_at(text, position)
    prog = _progress_of(uri, text)
    node = prog.node(word) if word is not None and prog is not None else None
    if node is None:
        hit = term_at(uri, text, position)
        if hit is None:
            return None
        at = types.Position(max(hit.line - 1, 0), 0)
        return types.Location(uri="file://" + hit.path, range=types.Range(at, at))
    target = uri if _path(uri).endswith("/.progress.md") else \
        "file://" + os.path.join(os.path.dirname(_path(uri)), ".progress.md")
    start = types.Position(node.line, 0)
    return types.Location(uri=target, range=types.Range(start, start))


def symbols_of(uri: str, text: str) -> list[types.DocumentSymbol]:
    """The outline: the tree's nodes and the log's blocks."""
    if not _path(uri).endswith("/.progress.md"):
        return []
    try:
        prog = Progress(TextFile(text), _path(uri))
    except MdgrillError:
        return []
    out = []
    for node in prog.nodes:
        out.append(_symbol(f"{node.id}: {node.title}", types.SymbolKind.Key, node.line,
                           node.end))
    for block in prog.blocks:
        out.append(_symbol(block.title, types.SymbolKind.Event, block.line, block.end))
    return out


def _symbol(name: str, kind: types.SymbolKind, line: int, end: int) -> types.DocumentSymbol:
    whole = types.Range(types.Position(line, 0), types.Position(max(end - 1, line), 0))
    head = types.Range(types.Position(line, 0), types.Position(line, len(name) + 4))
    return types.DocumentSymbol(name=name, kind=kind, range=whole, selection_range=head)


def completions_of(uri: str, text: str, position: types.Position) -> list[types.CompletionItem]:
    """The tree's IDs, on a `Depends on:` or `Spawned by:` line."""
    lines = text.split("\n")
    if position.line >= len(lines) or not _REFERENCE_LINE.match(lines[position.line]):
        return []
    prog = _progress_of(uri, text)
    if prog is None:
        return []
    return [types.CompletionItem(label=node.id, detail=node.title,
                                 kind=types.CompletionItemKind.Reference)
            for node in prog.nodes]


COLLECT = "mdgrill.collect"
_SLOT = re.compile(r"^\s*[-*] (?:\[[xX]\] |Other:\s*\S)")


def actions_of(uri: str, text: str, at: types.Range) -> list[types.Command]:
    """On a filled slot of a saved questionnaire: record it (what `mdgrill collect` does)."""
    if os.path.basename(_path(uri)) != "questions.md":
        return []
    lines = text.split("\n")
    if at.start.line >= len(lines) or not _SLOT.match(lines[at.start.line]):
        return []
    # a bare command (LSP allows it in place of a CodeAction): clients read it unambiguously
    return [types.Command(title="mdgrill: record the answered questions (collect)",
                          command=COLLECT, arguments=[uri])]


def collect_for(uri: str) -> str:
    """Run `collect` for the questionnaire's spec (the file as saved on disk)."""
    from mdgrill.services.answers import collect, report_lines
    from mdgrill.shell import store
    from mdgrill.shell.people import who

    spec = store.resolve_spec(os.path.dirname(_path(uri)))
    got = collect(spec, who(spec, None))
    problems = got.filled.problems if got.filled is not None else []
    if problems:
        return "nothing recorded: " + "; ".join(f"line {n}: {m}" for n, m in problems)
    if got.done is None:
        return "nothing answered yet (save the file first)"
    return "; ".join(report_lines(got.done))


def server() -> LanguageServer:
    ls = LanguageServer("mdgrill", "1")
    buffers = Buffers()

    def publish(uri: str) -> None:
        doc = ls.workspace.get_text_document(uri)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics_of(uri, doc.source, buffers)))

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        buffers.forget(params.text_document.uri)

    def text(uri: str) -> str:
        return str(ls.workspace.get_text_document(uri).source)

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        return hover_of(params.text_document.uri, text(params.text_document.uri),
                        params.position)

    @ls.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(params: types.DefinitionParams) -> types.Location | None:
        return definition_of(params.text_document.uri, text(params.text_document.uri),
                             params.position)

    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        return symbols_of(params.text_document.uri, text(params.text_document.uri))

    @ls.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=[" ", ","]))
    def complete(params: types.CompletionParams) -> list[types.CompletionItem]:
        return completions_of(params.text_document.uri, text(params.text_document.uri),
                              params.position)

    @ls.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def actions(params: types.CodeActionParams) -> list[types.Command]:
        return actions_of(params.text_document.uri, text(params.text_document.uri),
                          params.range)

    @ls.command(COLLECT)
    def run_collect(*arguments: Any) -> str:
        first = arguments[0] if arguments else ""
        uri = first[0] if isinstance(first, list) and first else first  # args as one list
        try:
            message = collect_for(str(uri))
        except MdgrillError as exc:
            message = f"{exc.code}: {exc.message}"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info,
                                                       message=message))
        return message

    return ls
