"""What the log says about the interview now open: its blocks, and whether quick mode was
authorized (the gate and `validate` both ask)."""

from __future__ import annotations

from mdgrill.formats.progress import Block, Progress

# A block after which a phase's next round starts a new interview (after `imported`, the
# history another tool recorded: mdgrill's own interview of the phase starts there).
NEW_INTERVIEW = frozenset({"confirmed", "bypassed", "reset", "reopened", "imported"})


def quick_authorized(prog: Progress) -> bool:
    """Whether the log's last Mode block is the exact `--quick` authorization."""
    for block in reversed(prog.blocks):
        if block.kind == "mode":
            return (block.first("Mode") or "").strip() == "quick"
    return False


def interview_blocks(blocks: list[Block], phase: str) -> list[Block]:
    """Of the log's `blocks`, those of the interview now open for `phase` (since its last
    Confirmed, Bypassed or Reset block)."""
    start = 0
    for index, block in enumerate(blocks):
        if block.phase == phase and block.kind in NEW_INTERVIEW:
            start = index + 1
    return [b for b in blocks[start:] if b.phase == phase]
