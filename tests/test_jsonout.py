"""mdgrill's own `--json` formatter writes exactly what `json.dumps(ensure_ascii=False)` does."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.cli.jsonout import LONG, dumps

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(), st.floats(),
                    st.sampled_from(["\x00", "\x1f\x7f", '"\\', "\u2028", "é😀", "\ud800"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=30)


@settings(max_examples=600, deadline=None)
@given(VALUES)
def test_same_text_as_json_dumps(value: object) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False)


def test_long_lists_and_odd_keys_go_to_json() -> None:
    ids = [f"D{i}" for i in range(LONG + 1)]
    assert dumps({"pending": ids}) == json.dumps({"pending": ids}, ensure_ascii=False)
    assert dumps({1: "a", None: [True]}) == json.dumps({1: "a", None: [True]})
    assert dumps({"ok": True, "answer": 'say "hi"\n\ttab'}) == \
        '{"ok": true, "answer": "say \\"hi\\"\\n\\ttab"}'
