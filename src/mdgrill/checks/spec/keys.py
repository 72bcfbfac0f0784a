"""The keys a node and each kind of block may hold, and the limits of a node's options."""

from __future__ import annotations

import re

NODE_KEYS = ("Section", "Depends on", "Spawned by", "Evidence", "Investigating", "Options",
             "Recommendation", "Rationale", "Tradeoffs", "Consequences", "Binds")
NODE_KEYS_LOWER = {k.lower() for k in NODE_KEYS}
MIN_OPTIONS = 2
MAX_OPTIONS = 4

CLOSING_KEYS = ("Facts resolved", "Decisions", "Out of scope", "Domain language",
                "Frontier after round")
# `Session`: when another tool held the round (an imported spec-kit clarify session's date).
ROUND_KEYS = ("Asked", *CLOSING_KEYS, "Assumptions", "Other", "Stop", "By", "Amended", "Was",
              "Reason", "Session", "Kept elsewhere")
BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "round": ROUND_KEYS,
    "awaiting": ("Confirmation ID", "Approach", "Approval scope", "Scope parts"),
    "confirmed": ("Interview", "Confirmation ID", "Source", "Status", "Context digest",
                  "Approval scope", "Reply", "Reply sha256", "Channel", "By", "Relayed by"),
    "revised": ("Retired", "Reopened", "Dependents", "Kept", "Next round"),
    "skipped": ("Confirmation ID", "Reason", "Retired", "Defaulted", "Default", "Assumption",
                "Approach",
                "Approval scope", "Scope parts", "By"),
    "bypassed": ("Interview", "Reason", "Context digest"),
    "reset": ("Interview", "Reason", "Reopened"),
    "cancelled": ("Interview", "Confirmation ID", "Reply", "By"),
    "mode": ("Mode", "Authorization", "At"),
    "reopened": ("From phase", "Reason", "Superseded", "By"),
    "amended": ("Amended", "Was", "Reason", "By"),
    "imported": ("Source", "Sessions", "Rounds", "Phase", "Approved through", "Updated",
                 "Note"),
    "bound": ("Decision", "At", "Target", "By"),
    "reaffirmed": ("Decision", "Selection", "Reply", "At", "Moved", "Target", "By"),
}
BLOCK_KEYS_LOWER = {kind: {k.lower() for k in keys} for kind, keys in BLOCK_KEYS.items()}
# A block after a round that proves the round was closed (a Reset may abandon it open).
CLOSES_ROUND = frozenset({"round", "awaiting", "confirmed", "skipped", "revised", "bypassed",
                          "imported"})
# After one of these a phase's rounds count from 1 again (an import ends another tool's count).
NEW_SEQUENCE = frozenset({"confirmed", "skipped", "bypassed", "reset", "reopened", "imported"})
LINE_COL_PREFIX = re.compile(r":(\d+):(\d+): ")  # after the path that starts the message
