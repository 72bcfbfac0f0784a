"""Front matter: the fast subset parser agrees with PyYAML on everything the renderer writes,
render/parse round-trips, and splicing leaves every other line byte-identical."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdgrill.errors import InputError
from mdgrill.formats import frontmatter as fio
from mdgrill.formats.textfile import TextFile, apply_edits, decode

YAML_WORDS = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "False", "null", "~",
              "1e3", "0x1f", "0o17", "2026-11-30", "12:30:00", ".inf", "-.inf", ".nan", "1_000",
              "+1", "-0", "0.5", "=", "<<", "!tag", "&a", "*a", "|", ">", "@x", "`x", "%x",
              "- x", "-x", "? x", ": x", "a: b", "a #b", "#x", "'q'", '"q"', "[a]", "{a: 1}",
              "a,b", "", " ", "x ", " x", "a  b", "D1", "auth.users", "req-1"]
hostile = st.one_of(
    st.sampled_from(YAML_WORDS),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.text(alphabet="ab:#-'\"\\ \t,[]{}\u2028\x85\u00e9\U0001f600\x07\ufeff", max_size=10),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), hostile)
plain_key = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
flat_dicts = st.dictionaries(plain_key, scalars, max_size=4)
values = st.one_of(scalars, st.lists(scalars, max_size=5), flat_dicts,
                   st.lists(flat_dicts, max_size=3))
records = st.dictionaries(plain_key, values, min_size=1, max_size=6)


def front(data: dict[str, object], block_lists: frozenset[str] = frozenset()) -> str:
    lines = ["---"]
    for key, value in data.items():
        lines.extend(fio.render_entry(key, value, 0, block_lists))
    lines.append("---")
    return "\n".join(lines) + "\n# Body\n"


def parse(text: str) -> fio.FrontMatter:
    tf = TextFile(text)
    fm = fio.split(tf, "f.md")
    assert fm is not None
    return fio.load(tf, fm, "f.md")


def inner(text: str) -> str:
    """The YAML between the fence lines (a value may itself end in `---`)."""
    lines = text.split("\n")
    return "\n".join(lines[1:lines.index("---", 1)]) + "\n"


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records, st.booleans())
def test_parse_render_agrees_with_pyyaml(data: dict[str, object], block: bool) -> None:
    text = front(data, frozenset(data) if block else frozenset())
    fm = parse(text)
    assert fm.data == data
    assert yaml.safe_load(inner(text)) == data


@settings(max_examples=200, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,6}", fullmatch=True), max_size=30))
def test_id_lists_take_the_fast_path(ids: list[str]) -> None:
    text = front({"asked": ids})
    fm = parse(text)
    assert fm.data == {"asked": ids} and fm.exact
    assert yaml.safe_load(inner(text)) == {"asked": ids}


@pytest.mark.parametrize("items", [[""], ["a, b"], ["yes", "D1"], ["D1", "no"], ["", "x"], ["x "],
                                   ["on"], ["1"], ["a b"]])
def test_word_list_fast_path_is_not_fooled(items: list[str]) -> None:
    text = front({"k": items})
    assert parse(text).data == {"k": items}
    assert yaml.safe_load(inner(text)) == {"k": items}


@pytest.mark.parametrize("ch", ["\ufffe", "\uffff", "\x85", "\u2028", "\x7f", "\ufeff"])
def test_characters_pyyaml_refuses_raw_are_escaped(ch: str) -> None:
    # PyYAML's reader rejects U+FFFE/U+FFFF anywhere in the stream: a file that later needs
    # the PyYAML fallback (a user comment) must still load
    text = front({"k": f"a{ch}b"}).replace("---\n# Body", "# comment\n---\n# Body")
    fm = parse(text)
    assert fm.data == {"k": f"a{ch}b"} and not fm.exact


def test_scalar_quoting_of_yaml11_words() -> None:
    for word in YAML_WORDS:
        text = front({"k": word})
        assert parse(text).data == {"k": word}, word
        assert yaml.safe_load(inner(text)) == {"k": word}, word


@st.composite
def user_files(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    data = draw(records)
    lines = ["---"]
    for key, value in data.items():
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# a comment", "#", "# key: value", ""])))
        lines.extend(fio.render_entry(key, value))
    lines.append("unknown_user_key: keep me  # trailing comment")
    lines.append("---")
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    return nl.join(lines + ["# Body", "text"]) + nl, data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_files(), st.booleans(), st.data())
def test_splice_keeps_untouched_lines(file: tuple[str, dict[str, object]], bom: bool,
                                      draw: st.DataObject) -> None:
    text, data = file
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    tf = decode(raw, "f.md")
    fm = fio.split(tf, "f.md")
    assert fm is not None
    fio.load(tf, fm, "f.md")
    keys = sorted(data)
    changed = draw.draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))
    updates: dict[str, object] = {k: draw.draw(values) for k in changed}
    if draw.draw(st.booleans()):
        updates["zz_new"] = draw.draw(values)
    order = [*keys, "zz_new"]
    edits = fio.splice(tf, fm, updates, order)
    out = apply_edits(tf, edits)
    touched = set()
    for key in updates:
        if key in fm.spans:
            touched.update(range(*fm.spans[key]))
    kept_before = [line for i, line in enumerate(tf.lines) if i not in touched]
    inserted = sum(len(e.new_lines) for e in edits)
    removed = sum(e.end - e.start for e in edits)
    assert len(out.lines) == len(tf.lines) - removed + inserted
    # every untouched line is still there, byte for byte and in order
    it = iter(out.lines)
    assert all(any(line == other for other in it) for line in kept_before)
    assert out.encode().startswith(b"\xef\xbb\xbf") == bom
    assert "unknown_user_key: keep me  # trailing comment" in out.text
    fm2 = fio.split(out, "f.md")
    assert fm2 is not None
    expected = dict(data)
    expected.update(updates)
    expected["unknown_user_key"] = "keep me"
    assert fio.load(out, fm2, "f.md").data == expected


@pytest.mark.parametrize(("text", "line"), [
    ("---\na: 1\na: 2\n---\n", 3), ("---\na: [1\n---\n", 2), ("---\n- 1\n---\n", 2),
    ("---\na: &x 1\nb: *x\n---\n", 3), ("---\na: !!python/object:os.system x\n---\n", 2),
])
def test_bad_front_matter_is_input_error(text: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        parse(text)
    assert info.value.code == "MALFORMED_FILE"
    assert info.value.line is not None and info.value.line >= 2


def test_unclosed_front_matter() -> None:
    with pytest.raises(InputError) as info:
        fio.split(TextFile("---\na: 1\n# Body\n"), "f.md")
    assert info.value.code == "MALFORMED_FILE"


def test_no_front_matter() -> None:
    assert fio.split(TextFile("# Title\n---\n"), "f.md") is None
