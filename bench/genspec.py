"""Generate large `.progress.md` files directly as text (not through 10,000 CLI calls).

Used by the bench scripts. The front matter's `log:` digest is computed with
`mdgrill.progress.log_digest`, so the files pass mdgrill's load checks.
"""

from __future__ import annotations

import json
import os

from mdgrill.formats.frontmatter import render_entry
from mdgrill.formats.progress import log_digest
from mdgrill.formats.schema import BLOCK_LISTS
from mdgrill.model.digest import context_digest

PER_ROUND = 4
GOAL = "Let customers sign in with a one-time email link instead of a password."


def _node(i: int) -> list[str]:
    return [
        f"### D{i}: Question number {i} about the login flow",
        f"- Section: s{i % 7}",
        f"- Depends on: {'D' + str(i - 1) if i > 1 else 'none'}",
        "- Options:",
        "  - Short link lifetime (Recommended): matches the session policy",
        "  - Long link lifetime: fewer resends",
        "",
    ]


def _round(rnd: int, ids: list[str], close: bool) -> list[str]:
    lines = [f"### Requirements Grill - Round {rnd}", f"- Asked: {', '.join(ids)}"]
    lines.extend(f"- Decisions: {d} -> answer to {d}: keep it simple, as discussed in round {rnd}"
                 for d in ids)
    if close:
        lines.extend(["- Facts resolved: none", "- Out of scope: none",
                      "- Domain language: none", "- Frontier after round: none"])
    lines.append("")
    return lines


def progress_text(decisions: int, pending: list[str] | None = None, nodes: bool = True,
                  rounds: int | None = None) -> str:
    """A spec mid-interview with `decisions` answered IDs and an open round.

    With `pending` (default [X1]) the open round asked those IDs and they are unanswered;
    with pending=[] the last round holds answers only and nothing is pending.
    `rounds` overrides how many rounds the decisions are spread over.
    """
    if pending is None:
        pending = ["X1"]
    per_round = PER_ROUND if rounds is None else max(1, -(-decisions // rounds))
    ids = [f"D{i}" for i in range(1, decisions + 1)]
    chunks = [ids[i:i + per_round] for i in range(0, len(ids), per_round)] or [[]]
    log: list[str] = [""]
    rnd = 0
    for n, chunk in enumerate(chunks):
        if not chunk:
            break
        rnd += 1
        last = n == len(chunks) - 1
        log.extend(_round(rnd, chunk, close=not (last and not pending)))
    if pending:
        rnd += 1
        log.extend([f"### Requirements Grill - Round {rnd}", f"- Asked: {', '.join(pending)}"])
    rnd = max(rnd, 1)
    log_body = "\n".join(log).rstrip("\n") + "\n"
    blocks = sum(1 for line in log if line.startswith("### "))
    tree: list[str] = []
    if nodes:
        for i in range(1, decisions + 1):
            tree.extend(_node(i))
    interview = {
        "id": "req-1", "phase": "requirements", "round": rnd, "status": "collecting",
        # the digest of the goal with no sources: every gate verb recomputes it
        "context_digest": context_digest("requirements", GOAL, []), "context": [],
        "asked": ids + pending, "pending": list(pending), "approach": None,
        "confirmation": None, "bypass_reason": None, "assumptions": [],
    }
    front: list[str] = ["---"]
    for key, value in (("mdgrill", 1), ("spec", "bench"), ("goal", GOAL),
                       ("phase", "requirements"), ("mode", "interactive"),
                       ("required_sections", []), ("interview", interview), ("skills", []),
                       ("log", {"blocks": blocks, "sha256": log_digest(log_body)})):
        front.extend(render_entry(key, value, 0, BLOCK_LISTS))
    front.append("---")
    body = ["# Bench spec", "", "## Goal", "", GOAL, "", "## Design Tree", "", *tree,
            "## Interview Responses"]
    return "\n".join(front + body) + "\n" + log_body


def json_state(decisions: int, pending: list[str] | None = None, tree: bool = True) -> str:
    """The same state as a JSON file, for the plain-stdlib baseline script: the interview,
    the answers, the rounds and (with `tree`) the design tree progress_text() writes."""
    if pending is None:
        pending = ["X1"]
    ids = [f"D{i}" for i in range(1, decisions + 1)]
    rnd = -(-decisions // PER_ROUND) + (1 if pending else 0)
    state = {
        "interview": {"id": "req-1", "phase": "requirements", "round": max(rnd, 1),
                      "status": "collecting", "asked": ids + pending, "pending": list(pending)},
        "answers": {d: f"answer to {d}: keep it simple" for d in ids},
        "rounds": [{"round": r + 1, "asked": ids[r * PER_ROUND:(r + 1) * PER_ROUND]}
                   for r in range(-(-decisions // PER_ROUND))],
    }
    if tree:
        state["tree"] = {
            f"D{i}": {"title": f"Question number {i} about the login flow",
                      "section": f"s{i % 7}", "depends_on": [f"D{i - 1}"] if i > 1 else [],
                      "options": ["Short link lifetime (Recommended): matches the session policy",
                                  "Long link lifetime: fewer resends"]}
            for i in range(1, decisions + 1)}
    return json.dumps(state, indent=1)


def write_spec(folder: str, text: str) -> str:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, ".progress.md")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


def validate_text(rounds: int, nodes: int) -> str:
    """A spec with `rounds` closed rounds (two decisions and a fact each, ~490 bytes) and a
    design tree of `nodes` nodes: 10,000 rounds make a file of about 5 MB, issue 2's size."""
    log: list[str] = []
    for r in range(1, rounds + 1):
        a, b = f"D{2 * r - 1}", f"D{2 * r}"
        log += ["", f"### Requirements Grill - Round {r}", f"- Asked: {a}, {b}",
                f"- Facts resolved: {a} -> the session store is Redis "
                f"(`src/auth/session.py`, line {r})",
                f"- Decisions: {a} -> External customers only; staff keep SSO through the "
                f"admin portal (round {r})",
                f"- Decisions: {b} -> Links expire after 15 minutes and can be used once, as "
                "the security team asked; a second request sends a new link and voids the first",
                "- Out of scope: none", "- Domain language: none",
                f"- Frontier after round: D{2 * r + 1}, D{2 * r + 2}"]
    tree: list[str] = []
    for i in range(1, nodes + 1):
        tree += ["", *_node(i)[:-1]]
    log_text = "\n".join(log)
    front = ["---"]
    for key, value in (("mdgrill", 1), ("spec", "big"), ("goal", GOAL),
                       ("phase", "requirements"), ("mode", "interactive"),
                       ("required_sections", []), ("interview", None), ("skills", []),
                       ("log", {"blocks": rounds, "sha256": log_digest(log_text)})):
        front += render_entry(key, value, 0, BLOCK_LISTS)
    front.append("---")
    body = ["# Big spec", "", "## Goal", "", GOAL, "", "## Design Tree", *tree, "",
            "## Interview Responses", log_text]
    return "\n".join(front + body) + "\n"
