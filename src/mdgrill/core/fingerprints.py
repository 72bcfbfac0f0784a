"""What a bound target is, and its fingerprint: the part of a file a decision is bound to,
hashed so that changes of form (layout, comments, docstrings, blank space) do not count.

A target is a file (`src/pricing.py`), a glob (`src/pricing/**`), a Python symbol
(`src/pricing.py::discount`, `src/pricing.py::Cart.total`, a test `tests/test_x.py::test_y`)
or a Markdown section (`docs/policy.md#Refunds`). A fingerprint is written `<kind>:<hex>`:
the kind names how it was made and carries a version, so a language that gains a syntax-aware
fingerprint later (a tree-sitter grammar, say) gets a new kind while the recorded ones are
still recomputed by their own rule: no recorded binding turns red because mdgrill learned more.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from mdgrill.errors import InputError

PYTHON = "python-ast-1"  # the syntax tree without docstrings, positions or comments
MARKDOWN = "markdown-text-1"  # the text with every run of blank space made one space
FILE = "file-1"  # the bytes, line ends made LF: every other language, for now
GLOB = "glob-1"  # each matched file's path and fingerprint, in path order

_PYTHON_SUFFIXES = (".py", ".pyi")
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
_GLOB_CHARS = re.compile(r"[*?\[]")


class Target(NamedTuple):
    """A parsed target: the file (or glob), and the symbol or section inside it, if any."""

    text: str
    path: str
    symbol: str | None = None
    section: str | None = None
    is_glob: bool = False

    @property
    def kind(self) -> str:
        if self.is_glob:
            return "glob"
        if self.symbol is not None:
            return "test" if is_test_path(self.path, self.symbol) else "symbol"
        return "section" if self.section is not None else "file"

    def at(self, path: str) -> Target:
        """The same symbol or section in another file (a rename)."""
        return parse_target(self.text.replace(self.path, path, 1)) \
            if self.text.startswith(self.path) else self


def is_test_path(path: str, symbol: str) -> bool:
    """A pytest-style test: `test_*.py` or `*_test.py` holding a `test_*` function."""
    name = path.rsplit("/", 1)[-1]
    return (name.startswith("test_") or name.endswith("_test.py")) and \
        symbol.rsplit(".", 1)[-1].startswith("test")


def parse_target(text: str) -> Target:
    """`path`, `glob`, `path.py::Qual.name` or `path.md#Heading` as a Target (or INVALID_INPUT)."""
    raw = text.strip()
    if not raw or "\n" in raw or "\x00" in raw:
        raise InputError("INVALID_INPUT", f"`{text}` is not a target: name a file, a glob, "
                         "`file.py::symbol` or `file.md#Heading`")
    if "::" in raw:
        path, _, symbol = raw.partition("::")
        if not path.endswith(_PYTHON_SUFFIXES):
            raise InputError("INVALID_INPUT", f"`{raw}`: symbols are read in Python files only "
                             "for now; bind the whole file (`{path}`)")
        if not symbol or not all(part.isidentifier() for part in symbol.split(".")):
            raise InputError("INVALID_INPUT", f"`{raw}`: `{symbol}` is not a Python name such "
                             "as `discount` or `Cart.total`")
        return Target(raw, _clean_path(path, raw), symbol=symbol)
    if "#" in raw:
        path, _, section = raw.partition("#")
        if path.endswith(_MARKDOWN_SUFFIXES):
            if not section.strip():
                raise InputError("INVALID_INPUT", f"`{raw}`: name the section after `#`")
            return Target(raw, _clean_path(path, raw), section=section.strip())
    path = _clean_path(raw, raw)
    return Target(raw, path, is_glob=_GLOB_CHARS.search(path) is not None)


def _clean_path(path: str, raw: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if not path or path.startswith("/") or ".." in path.split("/"):
        raise InputError("INVALID_INPUT", f"`{raw}`: name a path inside the repository, "
                         "relative to its root")
    return path


def file_kind(path: str) -> str:
    """The fingerprint a whole file of this type gets."""
    if path.endswith(_PYTHON_SUFFIXES):
        return PYTHON
    if path.endswith(_MARKDOWN_SUFFIXES):
        return MARKDOWN
    return FILE


def target_kind(target: Target) -> str:
    """The fingerprint kind a new binding of `target` records."""
    if target.is_glob:
        return GLOB
    if target.symbol is not None:
        return PYTHON
    if target.section is not None:
        return MARKDOWN
    return file_kind(target.path)


def _digest(kind: str, text: str | bytes) -> str:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return f"{kind}:{hashlib.sha256(data).hexdigest()}"


# -- Python --------------------------------------------------------------------------------


class _NoDocstrings(ast.NodeTransformer):
    """Drops the docstring of every module, class and function."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        return super().generic_visit(node)


def parse_python(data: bytes) -> ast.Module | None:
    """The module's syntax tree, or None when it does not parse."""
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError):
        return None


def canonical(node: object) -> str:
    """A syntax tree as text that Python versions agree on: node names and their non-empty
    fields, no positions. `ast.dump` is not that: 3.13 leaves out the empty fields that 3.12
    prints, and versions add fields (`type_params`) that are empty in code that predates them.
    """
    if isinstance(node, ast.AST):
        fields = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            fields.append(f"{name}={canonical(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(canonical(item) for item in node) + "]"
    return repr(node)


def _tree_digest(node: ast.AST) -> str:
    return _digest(PYTHON, canonical(_NoDocstrings().visit(node)))


def tree_fingerprint(node: ast.AST) -> str:
    """The `python-ast-1` fingerprint of a parsed module or definition (for a caller that
    parsed the file once for several things; the node's docstrings are dropped in place)."""
    return _tree_digest(node)


def _named(body: list[ast.stmt]) -> Iterable[tuple[str, ast.stmt]]:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield stmt.name, stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    yield target.id, stmt
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id, stmt


def find_symbol(tree: ast.Module, symbol: str) -> ast.stmt | None:
    """The definition `symbol` (`name` or `Class.name`) names in the module (the last one)."""
    body: list[ast.stmt] = tree.body
    found: ast.stmt | None = None
    for part in symbol.split("."):
        found = None
        for name, stmt in _named(body):
            if name == part:
                found = stmt  # a later definition replaces an earlier one, as Python does
        if found is None:
            return None
        body = found.body if isinstance(found, ast.ClassDef) else []
    return found


def symbols(tree: ast.Module) -> dict[str, ast.stmt]:
    """Every top-level and class-level definition by its qualified name."""
    out: dict[str, ast.stmt] = {}

    def walk(body: list[ast.stmt], prefix: str, depth: int) -> None:
        for name, stmt in _named(body):
            out[prefix + name] = stmt
            if isinstance(stmt, ast.ClassDef) and depth < 8:
                walk(stmt.body, f"{prefix}{name}.", depth + 1)

    walk(tree.body, "", 0)
    return out


def python_fingerprint(data: bytes, symbol: str | None = None) -> str | None:
    """The fingerprint of a module or one symbol in it; None when absent or unparseable."""
    tree = parse_python(data)
    if tree is None:
        return None
    if symbol is None:
        return _tree_digest(tree)
    node = find_symbol(tree, symbol)
    return _tree_digest(node) if node is not None else None


def symbol_line(data: bytes, symbol: str) -> int | None:
    """The 1-based line where the symbol is defined (its first decorator), if found."""
    tree = parse_python(data)
    node = find_symbol(tree, symbol) if tree is not None else None
    if node is None:
        return None
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def symbol_at(data: bytes, line: int) -> str | None:
    """The qualified name of the innermost definition whose header (its decorators down to
    the line before its body) holds the 1-based `line`: what an editor's cursor names."""
    tree = parse_python(data)
    if tree is None:
        return None
    found: str | None = None
    for name, node in symbols(tree).items():
        decorators: list[ast.expr] = getattr(node, "decorator_list", [])
        first = min([node.lineno, *(d.lineno for d in decorators)])
        body: list[ast.stmt] = getattr(node, "body", [])
        last = max(body[0].lineno - 1, node.lineno) if body else (node.end_lineno or node.lineno)
        if first <= line <= last:
            found = name  # a class's members come after it: the innermost wins
    return found


# -- Markdown ------------------------------------------------------------------------------


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig", "replace")


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def section_span(data: bytes, section: str) -> tuple[int, int, int] | None:
    """(start offset, end offset, 1-based line) of the section whose heading is `section`
    (its text, any case and spacing, or its anchor); up to the next heading as high."""
    from mdgrill.formats.markdown import scan_headings

    text = _text(data)
    headings = scan_headings(text)
    wanted = _squeeze(section).casefold()
    for index, heading in enumerate(headings):
        if _squeeze(heading.text).casefold() != wanted and slug(heading.text) != section:
            continue
        end = len(text)
        for later in headings[index + 1:]:
            if later.level <= heading.level:
                end = later.offset
                break
        return heading.offset, end, heading.line + 1
    return None


def heading_at(data: bytes, line: int) -> str | None:
    """The text of the heading on the 1-based `line`, if one is there."""
    from mdgrill.formats.markdown import scan_headings

    return next((h.text for h in scan_headings(_text(data)) if h.line + 1 == line), None)


def same_section(a: str, b: str) -> bool:
    """Whether two section names (a heading's text, any case and spacing, or its anchor)
    name the same heading."""
    return _squeeze(a).casefold() == _squeeze(b).casefold() or slug(a) == b or slug(b) == a


def section_count(data: bytes, section: str) -> int:
    """How many headings `section` names (a binding wants exactly one)."""
    from mdgrill.formats.markdown import scan_headings

    wanted = _squeeze(section).casefold()
    return sum(_squeeze(h.text).casefold() == wanted or slug(h.text) == section
               for h in scan_headings(_text(data)))


def markdown_fingerprint(data: bytes, section: str | None = None) -> str | None:
    """The fingerprint of a Markdown file or one section of it; None when the section is gone."""
    text = _text(data)
    if section is None:
        return _digest(MARKDOWN, _squeeze(text))
    span = section_span(data, section)
    if span is None:
        return None
    return _digest(MARKDOWN, _squeeze(text[span[0]:span[1]]))


def file_fingerprint(data: bytes) -> str:
    """The whole file's bytes, with CRLF line ends read as LF (a checkout setting, not code)."""
    return _digest(FILE, data.replace(b"\r\n", b"\n"))


# -- one entry point -----------------------------------------------------------------------


def _python(target: Target, data: bytes) -> str | None:
    return python_fingerprint(data, target.symbol)


def _markdown(target: Target, data: bytes) -> str | None:
    return markdown_fingerprint(data, target.section)


def _file(target: Target, data: bytes) -> str | None:
    return file_fingerprint(data)


# kind -> how a file's bytes become that kind's fingerprint. A new kind is one more entry;
# a recorded fingerprint is always recomputed by the kind it names.
FINGERPRINTERS: dict[str, Callable[[Target, bytes], str | None]] = {
    PYTHON: _python, MARKDOWN: _markdown, FILE: _file,
}


def kind_of(fingerprint: str) -> str:
    return fingerprint.partition(":")[0]


def fingerprint(target: Target, data: bytes, kind: str | None = None) -> str | None:
    """The target's fingerprint in `data` (by `kind`, default the target's own); None when the
    symbol or section is not there (or a Python file does not parse)."""
    kind = kind or target_kind(target)
    make = FINGERPRINTERS.get(kind)
    if make is None:
        raise InputError("INVALID_INPUT", f"fingerprint kind `{kind}` is not one this mdgrill "
                         f"knows ({', '.join(sorted(FINGERPRINTERS))}): upgrade mdgrill")
    return make(target, data)


def glob_fingerprint(files: list[tuple[str, bytes]]) -> str:
    """A glob's fingerprint: each matched file's path and own fingerprint, in path order."""
    lines = []
    for path, data in sorted(files):
        lines.append(f"{path}\x00{fingerprint(Target(path, path), data)}")
    return _digest(GLOB, "\n".join(lines))


def glob_pattern(glob: str) -> re.Pattern[str]:
    """A glob as a regular expression: `*` within a folder, `**` across folders."""
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = glob.find("]", i + 1)
            if close < 0:
                out.append(re.escape(c))
            else:
                out.append("[" + glob[i + 1:close].replace("\\", "\\\\") + "]")
                i = close
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


__all__ = ["FILE", "FINGERPRINTERS", "GLOB", "MARKDOWN", "PYTHON", "Target", "canonical",
           "file_fingerprint",
           "file_kind", "find_symbol", "fingerprint", "glob_fingerprint", "glob_pattern",
           "heading_at", "is_test_path", "kind_of", "markdown_fingerprint", "parse_python",
           "parse_target",
           "python_fingerprint", "same_section", "section_count", "section_span", "slug",
           "symbol_at", "symbol_line", "symbols", "target_kind", "tree_fingerprint"]
