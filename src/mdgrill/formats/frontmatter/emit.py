"""Writing values: scalars and flow lists as mdgrill renders them, and the splice that
replaces only the keys that change."""

from __future__ import annotations

from mdgrill.formats.frontmatter.block import MISSING, FrontMatter
from mdgrill.formats.frontmatter.subset import (
    YAML11_SPECIAL,
    YAML11_WORDS,
    is_plain_int,
    is_plain_key,
    is_word_list,
    safe_plain,
)
from mdgrill.formats.textfile import Edit, TextFile

# ---------------------------------------------------------------------------------------
# Rendering and splicing


def _render_float(value: float) -> str:
    """A float as YAML 1.1 reads it back (it wants a dot: `1e+16` would be a string)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "." not in text:
        mantissa, e, exponent = text.partition("e")
        text = f"{mantissa}.0{e}{exponent}"
    return text


def render_scalar(value: object, flow: bool = False) -> str:
    """A scalar in the subset: plain where its meaning is unambiguous, else double-quoted."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _render_float(value)
    text = str(value)
    plain = safe_plain(text, flow)
    if text and plain and not YAML11_SPECIAL.match(text) \
            and not is_plain_int(text) and not text.endswith((" ", ":")) \
            and ": " not in text and " #" not in text and "  " not in text:
        return text
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text) and \
            any(c in "abcdef" for c in text):
        return text
    return quote(text)


def quote(text: str) -> str:
    """A YAML double-quoted scalar that JSON also reads (every control character escaped)."""
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF) or \
                0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _render_key(key: str) -> str:
    # `no:` or `on:` as a plain key is a boolean to YAML 1.1 (PyYAML): quote it
    return key if is_plain_key(key) and not YAML11_SPECIAL.match(key) else quote(key)


def render_flow(value: object) -> str:
    if isinstance(value, list):
        # every item a non-empty str, asked of 10,000 IDs at C speed
        if value and {*map(type, value)} == {str} and all(value):
            joined = "[" + ", ".join(value) + "]"
            # an item holding ", " would read back as two: the count rules that out
            if is_word_list(joined) and joined.count(", ") == len(value) - 1 and \
                    YAML11_WORDS.isdisjoint(value):
                return joined
        return "[" + ", ".join(render_flow(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            key = _render_key(k)
            parts.append(f"{key}: {render_flow(v)}")
        return "{" + ", ".join(parts) + "}"
    return render_scalar(value, flow=True)


def render_entry(key: str, value: object, indent: int = 0,
                 block_lists: frozenset[str] = frozenset()) -> list[str]:
    """Lines for `key: value`: mappings as indented blocks, lists of mappings one per line."""
    pad = " " * indent
    name = _render_key(key)
    if isinstance(value, dict) and value:
        lines = [f"{pad}{name}:"]
        for k, v in value.items():
            lines.extend(render_entry(k, v, indent + 2, block_lists))
        return lines
    if isinstance(value, list) and value and key in block_lists:
        return [f"{pad}{name}:"] + [f"{pad}  - {render_flow(v)}" for v in value]
    if isinstance(value, (dict, list)):
        return [f"{pad}{name}: {render_flow(value)}"]
    return [f"{pad}{name}: {render_scalar(value)}"]


def splice(tf: TextFile, fm: FrontMatter | None, updates: dict[str, object],
           order: list[str], block_lists: frozenset[str] = frozenset()) -> list[Edit]:
    """Edits that set top-level keys to new values (a `MISSING`-valued key is removed).

    Keys not in `updates` keep their lines byte for byte; new keys go after the nearest
    preceding key of `order` that is present.
    """
    if fm is None:
        lines = ["---"]
        for key in order:
            if key in updates and updates[key] is not MISSING:
                lines.extend(render_entry(key, updates[key], 0, block_lists))
        lines.append("---")
        return [Edit(0, 0, lines)]
    edits: list[Edit] = []
    inserts: dict[int, list[str]] = {}
    for key, value in updates.items():
        span = fm.spans.get(key)
        if value is MISSING:
            if span is not None:
                edits.append(Edit(span[0], span[1], []))
            continue
        if fm.data.get(key, MISSING) == value and span is not None and \
                type(fm.data.get(key)) is type(value):
            continue
        new_lines = render_entry(key, value, 0, block_lists)
        if span is not None:
            edits.append(Edit(span[0], span[1], new_lines))
            continue
        at = fm.close
        if key in order:
            for prev in reversed(order[:order.index(key)]):
                if prev in fm.spans:
                    at = fm.spans[prev][1]
                    break
            else:
                at = fm.open + 1
        inserts.setdefault(at, []).extend(new_lines)
    for at, new_lines in inserts.items():
        edits.append(Edit(at, at, new_lines))
    return edits




def apply_head_edits(fm: FrontMatter, edits: list[Edit], newline: str) -> str:
    """The new front matter text (fences included) after line edits within it."""
    from mdgrill.formats.textfile import apply_edits

    head = TextFile("".join(fm.head), False, newline)
    return apply_edits(head, edits).text
