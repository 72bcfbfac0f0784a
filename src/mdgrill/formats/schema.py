"""The schema of `.progress.md` as text: phases, heading words, IDs, key order.

The constants the text format and the record's invariants (`model.record`) share.
"""

from __future__ import annotations

import re

PHASES = ("start", "triage", "research", "requirements", "design", "tasks")
STATUSES = ("collecting", "awaiting_confirmation", "complete", "skipped", "bypassed_quick")
TERMINAL = frozenset({"complete", "skipped", "bypassed_quick"})
CANONICAL_CONFIRMATION = "approve-and-delegate"
QUICK_REASON = "Explicit --quick authorization"
ID_PATTERN = r"[A-Za-z][A-Za-z0-9._-]*"  # a decision or node ID: D1, auth.users, x-1
ID_RE = re.compile(ID_PATTERN + r"\Z")
SHA256_RE = re.compile(r"[0-9a-f]{64}\Z")

# Front matter keys in the order mdgrill writes them; others are the user's and stay put.
TOP_KEYS = ["mdgrill", "spec", "goal", "phase", "mode", "discovery_revision",
            "required_sections", "git", "interview", "skill_manifest", "skills", "artifact",
            "log"]
INTERVIEW_KEYS = ["id", "phase", "round", "status", "context_digest", "context", "asked",
                  "pending", "approach", "confirmation", "bypass_reason", "assumptions"]
BLOCK_LISTS = frozenset({"skills", "context"})

HEADING_WORD = {"start": "Goal", "triage": "Triage", "research": "Research",
                "requirements": "Requirements", "design": "Design", "tasks": "Tasks"}
PHASE_OF_WORD = {w.lower(): p for p, w in HEADING_WORD.items()}
PHASE_OF_WORD["start"] = "start"


def is_id(value: object) -> bool:
    return isinstance(value, str) and ID_RE.match(value) is not None


class Problem:
    """An invariant that does not hold: a code, a message, and the front matter key at fault."""

    __slots__ = ("code", "message", "key")

    def __init__(self, code: str, message: str, key: str) -> None:
        self.code = code
        self.message = message
        self.key = key

    def __repr__(self) -> str:
        return f"Problem({self.code}, {self.message!r})"
