"""Reply classification (DESIGN §5): the deterministic table smart-ralph's gate uses."""

from __future__ import annotations

import pytest

from mdgrill.replies import BARE_SKIP, CONTROL_ONLY, SUBSTANTIVE, classify_reply, normalize_reply

TABLE = [
    ("", CONTROL_ONLY), ("   ", CONTROL_ONLY), ("\n\t", CONTROL_ONLY), ("...", CONTROL_ONLY),
    ("👍", CONTROL_ONLY), ("ok", CONTROL_ONLY), ("OK.", CONTROL_ONLY), ("okay!", CONTROL_ONLY),
    ("Yes!!!", CONTROL_ONLY), ("y", CONTROL_ONLY), ("yes 🎉", CONTROL_ONLY),
    ("approved", CONTROL_ONLY), ("Approved.", CONTROL_ONLY), ("confirm", CONTROL_ONLY),
    ("confirmed", CONTROL_ONLY), ("continue", CONTROL_ONLY), ("continue please", CONTROL_ONLY),
    ("please continue", CONTROL_ONLY), ("Please, continue. Thanks!", CONTROL_ONLY),
    ("go ahead", CONTROL_ONLY), ("Go-ahead", CONTROL_ONLY), ("looks good", CONTROL_ONLY),
    ("Looks good, thank you!", CONTROL_ONLY), ("LOOKS   GOOD", CONTROL_ONLY),
    ("next", CONTROL_ONLY), ("proceed", CONTROL_ONLY), ("sounds good!", CONTROL_ONLY),
    ("apply the changes", CONTROL_ONLY), ("please please ok thanks thanks", CONTROL_ONLY),
    ("ok thanks", CONTROL_ONLY), ("thank you", CONTROL_ONLY), ("thanks", CONTROL_ONLY),
    ("please", CONTROL_ONLY), ("please thank you", CONTROL_ONLY),
    ("skip", BARE_SKIP), ("Skip.", BARE_SKIP), ("SKIP!!", BARE_SKIP), ("please skip", BARE_SKIP),
    ("skip, thanks", BARE_SKIP), ("  skip  ", BARE_SKIP),
    ("skip it", SUBSTANTIVE), ("skip D2", SUBSTANTIVE), ("approve", SUBSTANTIVE),
    ("LGTM", SUBSTANTIVE), ("yes, but only for staff", SUBSTANTIVE), ("ok thanks bye", SUBSTANTIVE),
    ("thank you very much", SUBSTANTIVE), ("no", SUBSTANTIVE), ("15 minutes", SUBSTANTIVE),
    ("External customers", SUBSTANTIVE), ("yes yes", SUBSTANTIVE), ("okey", SUBSTANTIVE),
    ("thanks please", CONTROL_ONLY), ("ok ok", SUBSTANTIVE), ("1", SUBSTANTIVE),
    ("Ja", SUBSTANTIVE), ("ÿes", SUBSTANTIVE),
]


@pytest.mark.parametrize(("reply", "expected"), TABLE)
def test_classification_table(reply: str, expected: str) -> None:
    assert classify_reply(reply) == expected


@pytest.mark.parametrize(("reply", "normalized"), [
    ("Please, continue. Thanks!", "continue"), ("  Go--ahead!! ", "go ahead"),
    ("please please thanks thank you", ""), ("thank you thanks", ""), ("I'm fine", "i m fine"),
    ("LOOKS\u2028GOOD", "looks good"), ("thanks, please", ""),
])
def test_normalize(reply: str, normalized: str) -> None:
    assert normalize_reply(reply) == normalized
