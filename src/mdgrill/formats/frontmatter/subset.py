"""The strict subset of YAML mdgrill writes, parsed in well under a millisecond."""

from __future__ import annotations

import re

from mdgrill.errors import InputError
from mdgrill.formats.frontmatter.safe_yaml import MAX_DEPTH, MAX_NODES

# ---------------------------------------------------------------------------------------
# The strict subset parser


class NotSubset(Exception):
    pass


# The subset's shapes, each read by str methods in C rather than by a regex compiled on every
# start (~0.1 ms each, a third of this module's import). The regexes below are the spec:
# tests/test_frontmatter_shapes.py holds each reader equal to its regex over generated text.
PLAIN_KEY = r"[A-Za-z_][A-Za-z0-9_-]*\Z"
PLAIN_INT = r"-?(?:0|[1-9][0-9]*)\Z"
# What a plain scalar may look like for the subset parser to trust its meaning: no YAML
# indicator at the start, no `: ` or ` #`, and not a word YAML 1.1 resolves to non-string.
SAFE_PLAIN = r"[A-Za-z_/.][A-Za-z0-9_ ./@()+,'-]*\Z"
# The same inside a flow collection (no comma).
SAFE_PLAIN_FLOW = r"[A-Za-z_/.][A-Za-z0-9_ ./@()+'-]*\Z"
KEY_LINE = r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?\Z"

_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
# what is left of a plain scalar once every character it may hold is deleted
_NOT_PLAIN = str.maketrans("", "", _WORD_CHARS + " ./@()+,'-")
_NOT_PLAIN_FLOW = str.maketrans("", "", _WORD_CHARS + " ./@()+'-")


def is_plain_key(text: str) -> bool:
    """Whether PLAIN_KEY matches: a letter or `_`, then letters, digits, `_` or `-`."""
    if not text or not text.isascii() or not (text[0].isalpha() or text[0] == "_"):
        return False
    rest = text[1:].replace("_", "").replace("-", "")
    return not rest or rest.isalnum()  # (on ASCII: letters and digits only)


def is_plain_int(text: str) -> bool:
    """Whether PLAIN_INT matches: an optional `-`, then `0` or digits not starting with 0."""
    digits = text[1:] if text[:1] == "-" else text
    return digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0")


def safe_plain(text: str, flow: bool) -> bool:
    """Whether SAFE_PLAIN (SAFE_PLAIN_FLOW in a flow collection) matches `text`."""
    return (bool(text) and text.isascii() and (text[0].isalpha() or text[0] in "_/.")
            and not text.translate(_NOT_PLAIN_FLOW if flow else _NOT_PLAIN))


def key_line(text: str) -> tuple[str, str | None] | None:
    """What KEY_LINE matches `text` with, as its groups (the key; what follows the blanks
    after its colon, None when nothing follows the colon), or None when it does not."""
    key, colon, rest = text.partition(":")  # a key holds no colon: this is its colon
    if not colon or not is_plain_key(key):
        return None
    if not rest:
        return key, None
    if rest[0] not in " \t":
        return None
    value = rest.lstrip(" \t")
    return None if "\n" in value else (key, value)  # (`.` stops at a line feed)


class _Words:
    """Words YAML 1.1 reads as booleans, nulls or special floats (a set: an alternation
    regex of them cost 4 ms to compile on every start)."""

    WORDS = frozenset((  # noqa: SIM905 - a list literal of 34 words reads worse
        "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF "
        "null Null NULL ~ .inf .Inf .INF .nan .NaN .NAN +.inf +.Inf +.INF -.inf -.Inf -.INF"
    ).split())

    def match(self, text: str) -> bool:
        return text in self.WORDS


YAML11_SPECIAL = _Words()


def parse_subset(lines: list[str], base: int, path: str) -> dict[str, object]:
    for line in lines:
        if "#" in line and _has_comment(line):
            raise NotSubset
        if "\t" in line:
            raise NotSubset
    value, i = _parse_block(lines, 0, 0, base, path)
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i != len(lines):
        raise NotSubset
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError("MALFORMED_FILE",
                         f"{path}:{base + 1}:1: the front matter must be a mapping of keys "
                         "(`key: value` lines)", path=path, line=base + 1)
    _check_size(value, lines, base, path)
    return value


def _check_size(value: dict[str, object], lines: list[str], base: int, path: str) -> None:
    """The limits PyYAML's path enforces, counted the same way (a key is a value too)."""
    count = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH or count > MAX_NODES:
            _too_big(lines, base, path, depth)
        if isinstance(node, dict):
            count += len(node)  # the keys
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            if node and {*map(type, node)} <= _SCALARS:
                # a list of scalars (`asked` holds 10,000 IDs): its items would be the next
                # ones popped, each adding one, so they are counted at once
                count += len(node)
                if depth + 1 > MAX_DEPTH or count > MAX_NODES:
                    _too_big(lines, base, path, depth + 1)
            else:
                stack.extend((v, depth + 1) for v in node)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _too_big(lines: list[str], base: int, path: str, depth: int) -> None:
    line = _deepest_line(lines) if depth > MAX_DEPTH else len(lines)
    raise InputError("MALFORMED_FILE", f"{path}:{base + line}:1: the front matter nests "
                     f"deeper than {MAX_DEPTH} levels or holds more than "
                     f"{MAX_NODES:,} values: simplify it", path=path, line=base + line)


def _deepest_line(lines: list[str]) -> int:
    """The 1-based line (within the front matter) with the deepest indent."""
    return max(range(len(lines)),
               key=lambda i: _indent_of(lines[i]) if lines[i].strip() else -1) + 1


def _has_comment(line: str) -> bool:
    in_dq = False
    prev = " "
    i = 0
    while i < len(line):
        ch = line[i]
        if in_dq:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_dq = False
        elif ch == '"':
            in_dq = True
        elif ch == "#" and prev in " \t":
            return True
        prev = ch
        i += 1
    return False


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _parse_block(lines: list[str], i: int, indent: int, base: int,
                 path: str) -> tuple[object, int]:
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        return None, i
    first = lines[i]
    if _indent_of(first) != indent:
        raise NotSubset
    if first[indent:].startswith("- ") or first[indent:] == "-":
        return _parse_sequence(lines, i, indent, base, path)
    return _parse_mapping(lines, i, indent, base, path)


def _parse_sequence(lines: list[str], i: int, indent: int, base: int,
                    path: str) -> tuple[list[object], int]:
    items: list[object] = []
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent_of(line)
        if ind < indent:
            break
        if ind != indent or not (line[indent:].startswith("- ") or line[indent:] == "-"):
            raise NotSubset
        text = line[indent + 2:].strip()
        if not text or key_line(text) is not None:
            raise NotSubset  # nested block under a dash: leave it to PyYAML
        items.append(_parse_inline(text))
        i += 1
    return items, i


def _parse_mapping(lines: list[str], i: int, indent: int, base: int,
                   path: str) -> tuple[dict[str, object], int]:
    result: dict[str, object] = {}
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent_of(line)
        if ind < indent:
            break
        if ind != indent:
            raise NotSubset
        m = key_line(line[indent:])
        if m is None:
            raise NotSubset
        key, rest = m
        if YAML11_SPECIAL.match(key):
            raise NotSubset  # a YAML 1.1 word as a key is not a string to PyYAML
        if key in result:
            raise InputError("MALFORMED_FILE",
                             f"{path}:{base + i + 1}:{indent + 1}: the key `{key}` appears twice "
                             "in the front matter: keep one", path=path, line=base + i + 1)
        i += 1
        if rest is None or not rest.strip():
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent_of(lines[j]) > indent:
                value, i = _parse_block(lines, j, _indent_of(lines[j]), base, path)
            elif j < len(lines) and _indent_of(lines[j]) == indent and \
                    lines[j][indent:].startswith("- "):
                value, i = _parse_sequence(lines, j, indent, base, path)
            else:
                value = None
            result[key] = value
        else:
            result[key] = _parse_inline(rest.strip())
    return result, i


# A flow list of plain words (`[D1, D3, auth.users]`: what `asked` and `pending` hold) is read
# and written without the tokenizer, which costs ~10 us an item: at 10,000 decisions that is
# most of a command's time. Anything else takes the general path.
# What `is_word_list` reads, as a regex: the spec its test holds it to (never compiled here).
WORD_LIST = r"\[(?:[A-Za-z_][A-Za-z0-9_.-]*(?:, [A-Za-z_][A-Za-z0-9_.-]*)*)?\]\Z"
YAML11_WORDS = frozenset([
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL"])


# `is_word_list` reads what WORD_LIST matches with a few passes of str methods in C: the
# regex's repeat kept a backtracking frame for each of 10,000 items (~0.5 ms and 500 KB of
# fresh memory a match, and a write matched the list three times). Each character's class:
# a letter or `_` may start a word ("a"), a digit, `.` or `-` only continue one ("0"); the
# separator's two characters stay themselves, and any other ASCII character is "x".
_CLASSES = str.maketrans({
    chr(code): ("a" if chr(code).isalpha() or chr(code) == "_" else
                "0" if chr(code).isdigit() or chr(code) in ".-" else
                chr(code) if chr(code) in ", " else "x")
    for code in range(128)})


def is_word_list(text: str) -> bool:
    """Whether WORD_LIST matches `text` (tests/test_frontmatter_word_list.py holds the two
    equal over generated text): `[]`, or words joined by `, ` in brackets, a word being a
    letter or `_` then letters, digits, `_`, `.` or `-`."""
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        return False
    inner = text[1:-1]
    if not inner:
        return True
    if not inner.isascii():  # (a flag CPython keeps: no pass over the text)
        return False
    classes = inner.translate(_CLASSES)
    # `, a` (a separator and the letter starting the next word) holds one comma and one
    # blank and never overlaps itself: with as many commas and as many blanks as there are
    # of it, each is in one, and the rest are word characters; the first word starts with a
    # letter too (so no word is empty)
    starts = classes.count(", a")
    return (classes[0] == "a" and "x" not in classes and classes.count(",") == starts
            and classes.count(" ") == starts)


def _parse_inline(text: str) -> object:
    if text[0] == "[" and is_word_list(text):
        items = text[1:-1].split(", ") if len(text) > 2 else []
        if YAML11_WORDS.isdisjoint(items):
            return items
    if text[0] in "[{":
        tokens = _tokenize(text)
        value, pos = _parse_flow(tokens, 0)
        if pos != len(tokens):
            raise NotSubset
        return value
    return _scalar(text, flow=False)


def _tokenize(text: str) -> list[tuple[str, str]]:
    # compiled here (re's cache keeps it), not when the module loads: the lists mdgrill
    # writes most (`asked`, `pending`) never reach the tokenizer
    flow_token = re.compile(r'\s*(?:([\[\]{},])|("(?:[^"\\]|\\.)*")|([^\[\]{},"]+))')
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = flow_token.match(text, pos)
        if m is None or m.end() == pos:
            if not text[pos:].strip():
                break
            raise NotSubset
        if m.group(1):
            tokens.append(("p", m.group(1)))
        elif m.group(2):
            tokens.append(("s", m.group(2)))
        else:
            raw = m.group(3).strip()
            if raw:
                tokens.append(("w", raw))
        pos = m.end()
    return tokens


def _flow_guard(tokens: list[tuple[str, str]], pos: int, depth: int) -> None:
    # Too deep for this recursive reader: PyYAML's C parser reads it and refuses it with a
    # line number, where recursion here would end in a RecursionError traceback.
    if pos >= len(tokens) or depth > MAX_DEPTH:
        raise NotSubset


def _parse_flow(tokens: list[tuple[str, str]], pos: int,  # noqa: C901 - a branch per token
                depth: int = 0) -> tuple[object, int]:
    _flow_guard(tokens, pos, depth)
    kind, tok = tokens[pos]
    if kind == "p" and tok == "[":
        items: list[object] = []
        pos += 1
        if pos < len(tokens) and tokens[pos] == ("p", "]"):
            return items, pos + 1
        while True:
            item, pos = _parse_flow(tokens, pos, depth + 1)
            items.append(item)
            if pos >= len(tokens):
                raise NotSubset
            if tokens[pos] == ("p", ","):
                pos += 1
                continue
            if tokens[pos] == ("p", "]"):
                return items, pos + 1
            raise NotSubset
    if kind == "p" and tok == "{":
        mapping: dict[str, object] = {}
        pos += 1
        if pos < len(tokens) and tokens[pos] == ("p", "}"):
            return mapping, pos + 1
        while True:
            if pos >= len(tokens) or tokens[pos][0] != "w":
                raise NotSubset
            word = tokens[pos][1]
            # `key: value` arrives as one word `key: value` or `key:` then a string token
            key, sep, rest = word.partition(":")
            if not sep or not is_plain_key(key) or key in mapping or \
                    YAML11_SPECIAL.match(key):
                raise NotSubset
            rest = rest.strip()
            pos += 1
            if rest:
                mapping[key] = _scalar(rest, flow=True)
            else:
                value, pos = _parse_flow(tokens, pos, depth + 1)
                mapping[key] = value
            if pos >= len(tokens):
                raise NotSubset
            if tokens[pos] == ("p", ","):
                pos += 1
                continue
            if tokens[pos] == ("p", "}"):
                return mapping, pos + 1
            raise NotSubset
    if kind == "s":
        return _unquote(tok), pos + 1
    if kind == "w":
        if ":" in tok:
            raise NotSubset
        return _scalar(tok, flow=True), pos + 1
    raise NotSubset


def _scalar(text: str, flow: bool) -> object:
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            raise NotSubset
        return _unquote(text)
    if text in ("null", "~"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if is_plain_int(text):
        return int(text)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text) and \
            any(c in "abcdef" for c in text):
        return text
    if not safe_plain(text, flow) or YAML11_SPECIAL.match(text) or text.endswith((" ", ":")):
        raise NotSubset
    if ": " in text or " #" in text or "  " in text:
        raise NotSubset
    return text


def _unquote(token: str) -> str:
    inner = token[1:-1]
    if "\\" not in inner:
        return inner
    if re.search(r"\\[^\"\\/bfnrtu]", inner):
        raise NotSubset  # YAML-only escapes (\x, \e, \N, \_ ...): let PyYAML read them
    try:
        import json

        value = json.loads(token)
    except ValueError:
        raise NotSubset from None
    if not isinstance(value, str):
        raise NotSubset
    return value
