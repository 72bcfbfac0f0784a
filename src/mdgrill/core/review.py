"""What a reviewer looks at in one spec: each decision with its status and answer, the rounds
in order, the approvals, the glossary's changes, and counts taken from the tree (pure).

`spec_review(new, old)` compares a spec with an earlier version of it (`old`, None for the
whole history): the log is append-only, so the rounds since then are the blocks past the old
log's length, and the decisions added or reopened since then are marked. The HTML page
(`core/review_page.py`) and the pull-request comment (`core/review_markdown.py`) draw the same
review.
"""

from __future__ import annotations

from mdgrill.formats.progress import Block, Progress
from mdgrill.model.replies import option_label
from mdgrill.model.tree import (
    DEFAULTED_ANSWER,
    INVESTIGATING,
    OUT_OF_SCOPE,
    RESOLVED,
    compute_frontier,
    ledger_of,
    prerequisites,
    required_sections,
)

# The statuses a reviewer sees, in the order the counts are listed
STATUSES = ("resolved", "open", "blocked", "investigating", "out of scope",
            "skipped with assumptions")
APPROVAL_KINDS = {"confirmed": "interview approved", "bypassed": "quick mode bypass",
                  "artifact_approved": "artifact approved"}
# A run of this many answers in a row that took the recommendation unchanged is flagged: a
# reviewer should see whether the user decided or only agreed.
RUBBER_STAMP_RUN = 5
ACCEPTED = " (accepted recommendation: "


class NodeView:
    __slots__ = ("id", "title", "section", "status", "answer", "round", "prerequisites",
                 "spawned_by", "added", "reopened", "blockers", "amended", "other")

    def __init__(self, node_id: str, title: str, section: str | None) -> None:
        self.id = node_id
        self.title = title
        self.section = section
        self.status = "open"
        self.answer: str | None = None
        self.round: str | None = None  # the anchor of the round that settled it
        self.prerequisites: list[str] = []
        self.spawned_by: str | None = None
        self.added = False  # since the base revision
        self.reopened = False  # by a Revised block since the base revision
        self.blockers: list[str] = []
        self.amended = False  # its answer's wording was corrected by `amend`
        self.other = False  # answered in the user's own words (`Other`), not an option


class Decided:
    """How the user decided in one round: answers recorded, recommendations taken unchanged,
    another of the options chosen, answers in the user's own words (no option's)."""

    __slots__ = ("answers", "recommended", "other_option", "own_words")

    def __init__(self, answers: int, recommended: int, other_option: int) -> None:
        self.answers = answers
        self.recommended = recommended
        self.other_option = other_option
        self.own_words = answers - recommended - other_option


class BlockView:
    __slots__ = ("anchor", "title", "kind", "entries", "new", "decided")

    def __init__(self, anchor: str, block: Block, new: bool) -> None:
        self.anchor = anchor
        self.title = block.title
        self.kind = block.kind
        # (key, value, nested lines): the texts are the user's and the agent's words
        self.entries = [(e.key, e.value, [text for text, _ in e.children])
                        for e in block.entries]
        self.new = new
        self.decided: Decided | None = None  # for a round that recorded answers


class ApprovalView:
    __slots__ = ("anchor", "title", "kind", "what", "phase", "interview", "reply", "digest",
                 "commit", "date", "approach", "channel", "broken")

    def __init__(self, anchor: str, block: Block) -> None:
        self.anchor = anchor
        self.title = block.title
        self.kind = block.kind
        self.what = APPROVAL_KINDS[block.kind]
        self.phase = block.phase
        self.interview = block.first("Interview")
        reply = block.first("Reply")
        self.reply = reply.strip().strip('"') if reply else None
        self.digest = block.first("Context digest") or block.first("Sha256")
        self.commit: str | None = None
        self.date: str | None = None
        self.approach: str | None = None  # what the user approved (the interview's approach)
        self.channel = _channel_words(block, reply)
        # why the approval no longer covers the tree as it stands (APPROVAL_SCOPE_CHANGED),
        # as check-delegation would refuse it; None while it holds
        self.broken: str | None = None


# How an approval came, by the channel its Confirmed block names (services/channels.py)
_CHANNEL_WORDS = {
    "hook": "the user's reply captured by the hooks",
    "elicitation": "the user's selection in the MCP client's form",
    "terminal": "the user's selection at their own terminal (mdgrill approve)",
    "signed": "a signed approval commit",
    "agent": "the reply as the agent relayed it",
}


def _channel_words(block: Block, reply: str | None) -> str:
    """The channel of an approval in words (older blocks name none: a captured reply's hash
    means the hooks, a reply alone the agent)."""
    sha = block.first("Reply sha256")
    channel = block.first("Channel") or ("hook" if sha else "agent" if reply else "")
    words = _CHANNEL_WORDS.get(channel, channel)
    if sha and channel in ("hook", "elicitation"):
        words += f" (sha256 {sha[:12]})"
    relayed = block.first("Relayed by")
    if words and relayed:
        words += f", relayed by {relayed}"
    return words


class TermView:
    __slots__ = ("name", "definition", "avoid", "change")

    def __init__(self, name: str, definition: str, avoid: list[str], change: str) -> None:
        self.name = name
        self.definition = definition
        self.avoid = avoid
        self.change = change  # added | changed | removed


class BoundView:
    """A decision bound to code as the review lists it: drifted now (what `drift` reports),
    or reaffirmed by its owner after a change (a Reaffirmed block)."""

    __slots__ = ("spec", "decision", "answer", "target", "detail", "anchor", "new")

    def __init__(self, spec: str, decision: str, answer: str, target: str, detail: str,
                 anchor: str = "", new: bool = False) -> None:
        self.spec = spec
        self.decision = decision
        self.answer = answer
        self.target = target
        self.detail = detail  # what changed (drifted), or the selection and reply
        self.anchor = anchor  # the Reaffirmed block's, on the page
        self.new = new  # recorded since the base revision

    def to_json(self) -> dict[str, object]:
        return {"spec": self.spec, "decision": self.decision, "answer": self.answer,
                "target": self.target, "detail": self.detail}


def reaffirmed_of(review: SpecReview) -> list[BoundView]:
    """The reaffirmations a review shows: those since its base revision, or all of them."""
    return [r for r in review.reaffirmed if r.new or review.since is None]


class SpecReview:
    __slots__ = ("spec", "title", "goal", "phase", "nodes", "blocks", "approvals", "counts",
                 "since", "stamped", "reaffirmed")

    def __init__(self, spec: str, title: str, goal: str, phase: str) -> None:
        self.spec = spec
        self.title = title
        self.goal = goal
        self.phase = phase
        self.nodes: list[NodeView] = []
        self.blocks: list[BlockView] = []
        self.approvals: list[ApprovalView] = []
        self.counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        self.since: str | None = None  # the base revision, when there is one
        # the longest run of answers that took the recommendation unchanged: (length, the
        # anchors of its first and last rounds); flagged at RUBBER_STAMP_RUN
        self.stamped: tuple[int, str, str] = (0, "", "")
        self.reaffirmed: list[BoundView] = []  # the owners' rulings after a bound change

    def node(self, node_id: str) -> NodeView | None:
        return next((n for n in self.nodes if n.id == node_id), None)


def spec_review(spec: str, new: Progress, old: Progress | None = None) -> SpecReview:
    """The review of `new`, marking what changed since `old` (None: nothing is marked)."""
    title = new.title.text if new.title is not None else spec
    review = SpecReview(spec, title, str(new.data.get("goal") or ""),
                        str(new.data.get("phase") or ""))
    blocks = new.blocks
    first_new = len(old.blocks) if old is not None else len(blocks)
    anchors = [f"{slug(spec)}-b{i + 1}" for i in range(len(blocks))]
    approach: dict[str, str] = {}  # phase -> the approach last presented for approval
    for i, block in enumerate(blocks):
        review.blocks.append(BlockView(anchors[i], block, i >= first_new))
        if block.kind in APPROVAL_KINDS:
            review.approvals.append(ApprovalView(anchors[i], block))
            if block.kind == "confirmed":
                review.approvals[-1].approach = approach.get(str(block.phase))
        presented = block.first("Approach")
        if presented:
            approach[str(block.phase)] = presented
        if block.kind == "reaffirmed":
            review.reaffirmed.append(_reaffirmed(spec, block, anchors[i], i >= first_new))
    reopened = {node_id.strip() for b in blocks[first_new:] if b.kind == "revised"
                for e in b.get("Reopened") for node_id in e.value.split(",")}
    _nodes(review, new, old, blocks, anchors, reopened)
    _how_decided(review, new, blocks)
    _mark_broken(review, new)
    return review


def _mark_broken(review: SpecReview, prog: Progress) -> None:
    """Mark the current interview's approval whose scope changed since: a reviewer reading
    "interview approved" must see that the tree under it is no longer what was approved."""
    from mdgrill.checks.spec.entry import check_approval_scope

    found = check_approval_scope(prog)
    if not found:
        return
    phase = str(prog.data.get("phase") or "")
    for approval in reversed(review.approvals):
        if approval.kind == "confirmed" and str(approval.phase) == phase:
            approval.broken = found[0].message
            return


def _reaffirmed(spec: str, block: Block, anchor: str, new: bool) -> BoundView:
    decision, _, answer = (block.first("Decision") or "").partition(" -> ")
    targets = [e.value.rpartition(" -> ")[0] or e.value for e in block.get("Target")]
    moved = [e.value.replace(" -> ", " → ") for e in block.get("Moved")]
    reply = (block.first("Reply") or "").strip().strip('"')
    by = block.first("By")
    detail = (f"{block.first('Selection') or '?'}" + (f" (reply: “{reply}”)" if reply else "")
              + (f", by {by}" if by else "") + (f"; moved {', '.join(moved)}" if moved else ""))
    return BoundView(spec, decision.strip(), answer.strip(), ", ".join(targets) or "—",
                     detail, anchor, new)


def _how_decided(review: SpecReview, prog: Progress, blocks: list[Block]) -> None:
    """Per round, how the user decided; and the longest run of recommendations taken
    unchanged, answer after answer across the rounds."""
    recommended: dict[str, str] = {}
    labels: dict[str, list[str]] = {}
    for node in prog.nodes:
        options, index = node.choices()
        labels[node.id] = [option_label(o) for o in options]
        if index is not None and 1 <= index <= len(options):
            recommended[node.id] = labels[node.id][index - 1]
    run, start, best = 0, "", (0, "", "")
    for view, block in zip(review.blocks, blocks, strict=True):
        decisions = [e.value.split(" -> ", 1) for e in block.get("Decisions")]
        answers = [(d[0].strip(), d[1].strip()) for d in decisions if len(d) == 2]
        if not answers:
            continue
        took = chose = 0
        for node_id, text in answers:
            rec = recommended.get(node_id)
            if rec is not None and (text == rec or text.startswith(rec + ACCEPTED)):
                took += 1
                run, start = run + 1, start or view.anchor
                if run > best[0]:
                    best = (run, start, view.anchor)
                continue
            run, start = 0, ""
            # an option's label, or its number as record-answer writes it: `Label (option 2`
            chose += any(text == label or text.startswith(label + " (option ")
                         for label in labels.get(node_id, []))
        view.decided = Decided(len(answers), took, chose)
    review.stamped = best


def _nodes(review: SpecReview, new: Progress, old: Progress | None, blocks: list[Block],
           anchors: list[str], reopened: set[str]) -> None:
    ledger = ledger_of(new)
    frontier = compute_frontier(new.nodes, ledger, required_sections(new.data))
    old_ids = {n.id for n in old.nodes} if old is not None else None
    others = {i.strip() for b in blocks for e in b.get("Other") for i in e.value.split(",")}
    starts = [b.line for b in blocks]
    for node in new.nodes:
        view = NodeView(node.id, node.title, node.section)
        view.prerequisites = prerequisites(node)
        view.spawned_by = node.spawned_by
        view.added = old_ids is not None and node.id not in old_ids
        view.reopened = node.id in reopened
        view.amended = node.id in ledger.amended
        view.other = node.id in others
        status = frontier.statuses.get(node.id)
        answer = ledger.answers.get(node.id)
        if status == OUT_OF_SCOPE:
            view.status = "out of scope"
        elif status == RESOLVED and answer == DEFAULTED_ANSWER:
            view.status = "skipped with assumptions"
        elif status == RESOLVED:
            view.status = "resolved"
        elif status == INVESTIGATING:
            view.status = "investigating"
        elif node.id in frontier.blocked:
            view.status, view.blockers = "blocked", frontier.blocked[node.id]
        view.answer = answer
        line = ledger.answer_line.get(node.id)
        if line is not None:
            index = max((i for i, start in enumerate(starts) if start <= line), default=None)
            view.round = anchors[index] if index is not None else None
        review.counts[view.status] += 1
        review.nodes.append(view)


def attach_commits(review: SpecReview, commits: list[tuple[str, str, dict[str, str]]]) -> None:
    """Give each approval the commit that recorded it: (sha, date, trailers), newest first.
    An interview's approval is the `approve`, `skip` or `bypass` commit of its interview; an
    artifact's, the `approve-artifact` commit of its phase."""
    for approval in review.approvals:
        for sha, date, trailers in commits:
            transition = trailers.get("Mdgrill-Transition")
            if approval.kind == "artifact_approved":
                same = transition == "approve-artifact" and \
                    trailers.get("Mdgrill-Phase") == approval.phase
            else:
                same = transition in ("approve", "skip", "bypass") and \
                    trailers.get("Mdgrill-Interview") == approval.interview
            if same:
                approval.commit, approval.date = sha, date
                break


def term_changes(old: dict[str, tuple[str, list[str]]],
                 new: dict[str, tuple[str, list[str]]]) -> list[TermView]:
    """The glossary's terms added, changed or removed between two versions: name ->
    (definition, _Avoid_ words)."""
    out = [TermView(name, new[name][0], new[name][1], "added")
           for name in new if name not in old]
    out += [TermView(name, new[name][0], new[name][1], "changed")
            for name in new if name in old and new[name] != old[name]]
    out += [TermView(name, old[name][0], old[name][1], "removed")
            for name in old if name not in new]
    return out


def layers(nodes: list[NodeView]) -> list[list[NodeView]]:
    """The nodes in rows for drawing: a node sits one row below the lowest of the nodes it
    waits on. Nodes of a loop (which `validate` reports) go one row below what they wait on
    outside it."""
    from collections import deque

    known = {n.id: n for n in nodes}
    waiting = {i: [p for p in known[i].prerequisites if p in known and p != i] for i in known}
    after: dict[str, list[str]] = {i: [] for i in known}
    for node_id, before in waiting.items():
        for p in before:
            after[p].append(node_id)
    left = {i: len(before) for i, before in waiting.items()}
    depth = dict.fromkeys(known, 0)
    queue = deque(i for i, n in left.items() if n == 0)
    while queue:
        current = queue.popleft()
        for node_id in after[current]:
            depth[node_id] = max(depth[node_id], depth[current] + 1)
            left[node_id] -= 1
            if left[node_id] == 0:
                queue.append(node_id)
    rows: list[list[NodeView]] = []
    placed: set[str] = set()
    for node in nodes:
        if node.id in placed:
            continue  # a duplicated ID is drawn once
        placed.add(node.id)
        level = depth[node.id]
        while len(rows) <= level:
            rows.append([])
        rows[level].append(node)
    return rows


def slug(text: str) -> str:
    """An HTML id from any text (letters and digits kept, the rest dashes)."""
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "spec"


def terms_of(data: bytes | None, path: str) -> dict[str, tuple[str, list[str]]]:
    """Term name -> (definition, _Avoid_ words) of one CONTEXT.md version ({} if none or
    unreadable: the review then shows no change rather than failing)."""
    if not data:
        return {}
    from mdgrill.errors import MdgrillError
    from mdgrill.formats.glossary import parse_glossary
    from mdgrill.formats.textfile import decode

    try:
        glossary = parse_glossary(decode(data, path), path)
    except MdgrillError:
        return {}
    terms: dict[str, tuple[str, list[str]]] = {}
    for term in glossary.terms:
        for name in term.names:
            terms.setdefault(name, (term.definition, list(term.avoid)))
    return terms


_ID_LINES = ("- Decisions: ", "- Facts resolved: ", "- Out of scope: ", "- Other: ",
             "- Asked: ", "- Frontier after round: ")


def with_questions(block_text: str, titles: dict[str, str]) -> str:
    """A recorded block's text with each decision's question beside its ID (`D8 -> skip
    this` becomes `D8 (Which weekends?) -> skip this`), for a reviewer who should not have to
    look D8 up. Only the review shows it so; the file keeps its own lines."""
    out = []
    for line in block_text.split("\n"):
        prefix = next((p for p in _ID_LINES if line.startswith(p)), None)
        if prefix is None:
            out.append(line)
            continue
        rest = line[len(prefix):]
        if prefix in ("- Asked: ", "- Frontier after round: "):
            ids = [i.strip() for i in rest.split(",")]
            out.append(prefix + ", ".join(f"{i} ({titles[i]})" if i in titles else i
                                          for i in ids))
            continue
        head, arrow, tail = rest.partition(" -> ")
        key = head.strip()
        out.append(prefix + (f"{key} ({titles[key]}){arrow}{tail}" if arrow and key in titles
                             else rest))
    return "\n".join(out)
