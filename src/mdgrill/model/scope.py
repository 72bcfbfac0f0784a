"""The approval's scope: one digest over everything the user was asked to approve.

An approval used to cover the goal and the context artifacts alone, so the design tree could be
rewritten after it ("Should the agent delete the production database?" under the old answer)
and every gate stayed green. The scope is computed at `await-confirmation`, written into the
brief's block and the Confirmed block (and the approval commit's trailer), and recomputed by
`confirm`, `check-delegation` and `validate`: a change inside it after the brief was shown is
APPROVAL_SCOPE_CHANGED, named part by part; the way to change it is `revise` and a new brief.

What is inside: the context digest (goal and artifacts), the interview and confirmation IDs,
the approach, every decision the log had settled when the brief was shown (its answer as it
reads now, amendments included; out of scope; defaulted by a skip) together with its design-
tree node (title, every `- Key: value` line and nested option) and the nodes it depends on or
was spawned by, and the skip's reason and assumptions. Outside: everything else — other
sections, prose, decisions settled later, the front matter's own fields, and a node's
`- Binds:` lines (what carries the decision out; `drift` holds those to account).
"""

from __future__ import annotations

from hashlib import sha256
from typing import TYPE_CHECKING, NamedTuple

from mdgrill.formats.progress.lines import split_ids
from mdgrill.model.tree import DEFAULTED_ANSWER, prerequisites, read_ledger

if TYPE_CHECKING:
    from mdgrill.formats.progress import Block, Node, Progress

SCOPE_KEY = "Approval scope"  # the block line that records the digest
PARTS_KEY = "Scope parts"  # the block line that records each part's short digest
_SHORT = 12


class Scope(NamedTuple):
    """The scope's digest and its parts (name -> short digest), in a stable order."""

    digest: str
    parts: dict[str, str]

    def parts_line(self) -> str:
        return ", ".join(f"{name} {short}" for name, short in self.parts.items())


def _frame(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return str(len(data)).encode("ascii") + b":" + data


def _short(*texts: str) -> str:
    return sha256(b"".join(_frame(t) for t in texts)).hexdigest()[:_SHORT]


def _node_text(node: Node | None) -> list[str]:
    if node is None:
        return ["(no node)"]
    out = [node.title.strip()]
    for entry in node.entries:
        if entry.key.strip().lower() == "binds":
            # what carries the decision out, not what the user approved: a `- Binds:` key
            # may be written after the approval (issue 36), and drift holds it to account
            continue
        out.append(f"{entry.key.strip().lower()}: {entry.value.strip()}")
        out.extend(f"  {text.strip()}" for text, _ in entry.children)
    return out


def approval_scope(prog: Progress, settled_in: list[Block], *, interview_id: str,
                   confirmation_id: str, approach: str, context_digest: str,
                   skip: list[str] | None = None) -> Scope:
    """The scope of an approval whose brief was shown after the blocks `settled_in`; `skip`:
    the Skipped block's reason, defaulted IDs and assumptions, when a skip is the brief."""
    now = read_ledger(prog.blocks)
    # at await-confirmation the brief follows every block: one reading serves both
    settled = now if len(settled_in) == len(prog.blocks) else read_ledger(settled_in)
    # answered, defaulted by an earlier skip (the ledger settles those too) or out of scope
    decided = [i for i in settled.order if i in settled.answers] + sorted(settled.out_of_scope)
    defaulted: set[str] = set()
    for line in skip or ():
        if line.startswith("defaulted:"):
            defaulted.update(split_ids(line.partition(":")[2]))
    decided.extend(sorted(defaulted))
    parts: dict[str, str] = {
        "the context": _short(context_digest),
        "the interview": _short(interview_id, confirmation_id),
        "the approach": _short(approach.strip()),
    }
    index: dict[str, Node] = {}
    for node in prog.nodes:  # the first node of an ID, as Progress.node finds it
        index.setdefault(node.id, node)
    seen: set[str] = set()
    queue = list(dict.fromkeys(decided))
    while queue:
        node_id = queue.pop(0)
        if node_id in seen:
            continue
        seen.add(node_id)
        answer = now.answers.get(node_id)
        if node_id in now.out_of_scope:
            status = "out of scope"
        elif node_id in defaulted and answer in (None, DEFAULTED_ANSWER):
            status = "defaulted"  # the same before and after the Skipped block is written
        elif answer is not None:
            status = "answer: " + answer.strip()
        else:
            status = "open"
        found = index.get(node_id)
        parts[node_id] = _short(status, *_node_text(found))
        if found is not None:
            queue.extend(p for p in prerequisites(found) if p not in seen)
    if skip:
        parts["the skip"] = _short(*skip)
    digest = sha256(b"".join(_frame(f"{name}={short}") for name, short in parts.items()))
    return Scope(digest.hexdigest(), parts)


def recorded_parts(line: str | None) -> dict[str, str]:
    """A `Scope parts` line read back: `name short, name short`."""
    out: dict[str, str] = {}
    for item in (line or "").split(","):
        name, _, short = item.strip().rpartition(" ")
        if name and short:
            out[name] = short
    return out


def changed_parts(recorded: dict[str, str], now: Scope) -> list[str]:
    """What differs, in words: `D1 changed`, `D4 is new`, `D2 is gone`."""
    out = [f"{name} changed" for name, short in recorded.items()
           if name in now.parts and now.parts[name] != short]
    out += [f"{name} is gone" for name in recorded if name not in now.parts]
    out += [f"{name} is new" for name in now.parts if name not in recorded]
    return out


SKIP_KEYS = ("reason", "defaulted", "default", "assumption")  # `default`: one per defaulted ID


def skip_lines(block: Block) -> list[str] | None:
    """A Skipped block's lines that the scope covers; None for a brief."""
    if block.kind != "skipped":
        return None
    return [f"{e.key.lower()}: {e.value.strip()}" for e in block.entries
            if e.key.lower() in SKIP_KEYS]


def brief_block(prog: Progress, phase: str,
                confirmation_id: str) -> tuple[int, Block] | None:
    """The latest brief of this phase and confirmation ID (an Awaiting Confirmation or a
    Skipped block), with its index in the log: the approval's scope is what the log held
    before it."""
    found: tuple[int, Block] | None = None
    for index, block in enumerate(prog.blocks):
        if block.kind in ("awaiting", "skipped") and block.phase == phase \
                and block.first("Confirmation ID") == confirmation_id:
            found = (index, block)
    return found


def scope_now(prog: Progress, phase: str, interview_id: str, confirmation_id: str,
              context_digest: str) -> tuple[str, Scope, Block] | None:
    """(the recorded digest, the scope recomputed now, the brief's block) for the brief this
    confirmation answers; None when that brief recorded no scope (written before scopes)."""
    found = brief_block(prog, phase, confirmation_id)
    if found is None:
        return None
    index, block = found
    recorded = block.first(SCOPE_KEY)
    if not recorded:
        return None
    approach = block.first("Approach") or "Skip remaining interview decisions"
    now = approval_scope(prog, prog.blocks[:index], interview_id=interview_id,
                         confirmation_id=confirmation_id, approach=approach,
                         context_digest=context_digest, skip=skip_lines(block))
    return recorded.strip(), now, block


def scope_refusal(prog: Progress, recorded: str, now: Scope, block: Block) -> str | None:
    """The words of APPROVAL_SCOPE_CHANGED, or None when the scope holds."""
    if recorded == now.digest:
        return None
    changed = changed_parts(recorded_parts(block.first(PARTS_KEY)), now)
    what = "; ".join(changed) if changed else "its digest differs"
    return (f"what the user approved changed after the brief at line {block.line + 1} was "
            f"shown ({what}): an approval covers exactly that brief. Put the tree back "
            "(`git diff`, `mdgrill restore`), or change it the recorded way: `revise` the "
            "decisions, then a new brief and a new approval")


def _latest_confirmed(prog: Progress, phase: str) -> Block | None:
    found = None
    for block in prog.blocks:
        if block.kind == "confirmed" and block.phase == phase:
            found = block
    return found


def confirmed_scope(prog: Progress, phase: str) -> str | None:
    """The scope the latest Confirmed block of `phase` records (for the commit's trailer)."""
    block = _latest_confirmed(prog, phase)
    return None if block is None else block.first(SCOPE_KEY)


def confirmed_id(prog: Progress, phase: str) -> str | None:
    """The confirmation ID the latest Confirmed block of `phase` answered."""
    block = _latest_confirmed(prog, phase)
    return None if block is None else block.first("Confirmation ID")
