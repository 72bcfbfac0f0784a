"""Deterministic reply classification (DESIGN §5), as smart-ralph's phase gate does it."""

from __future__ import annotations

import re

SUBSTANTIVE = "substantive"
CONTROL_ONLY = "control_only"
BARE_SKIP = "bare_skip"

CONTROL_PHRASES = frozenset({
    "", "approved", "apply the changes", "confirm", "confirmed", "continue", "continue please",
    "go ahead", "looks good", "next", "ok", "okay", "please continue", "proceed", "sounds good",
    "y", "yes",
})
_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalize_reply(text: str) -> str:
    """Lower-case; every run outside [a-z0-9] becomes one space; trimmed; polite words dropped."""
    words = _NON_WORD.sub(" ", text.lower()).split()
    while words and words[0] == "please":
        words.pop(0)
    while words:
        if words[-1] in ("please", "thanks"):
            words.pop()
        elif words[-2:] == ["thank", "you"]:
            del words[-2:]
        else:
            break
    return " ".join(words)


def classify_reply(text: str) -> str:
    """`bare_skip`, `control_only` or `substantive`."""
    normalized = normalize_reply(text)
    if normalized == "skip":
        return BARE_SKIP
    if normalized in CONTROL_PHRASES:
        return CONTROL_ONLY
    return SUBSTANTIVE
