"""The review as GitHub Markdown, for a pull-request comment or a job summary (pure).

The same content as the HTML page: counts from the tree, the tree as a Mermaid block (GitHub
draws it), each decision with its question, status and answer, the rounds since the base
revision folded in `<details>`, the approvals and the glossary's changes. The users' words go
in as text: `<`, `>` and `&` are escaped, so an answer cannot close a `<details>` or open a
tag, and `[`, `]` are escaped, so it makes no link and no image (which GitHub would fetch).
"""

from __future__ import annotations

from mdgrill.core.review import STATUSES, BoundView, SpecReview, TermView, reaffirmed_of


def comment(title: str, reviews: list[SpecReview], subtitle: str = "",
            glossaries: list[tuple[str, list[TermView]]] | None = None,
            drifted: list[BoundView] | None = None) -> str:
    out = [f"## {title}", ""]
    if subtitle:
        out += [subtitle, ""]
    out += _bindings(drifted, [r for review in reviews for r in reaffirmed_of(review)])
    if not reviews and not glossaries:
        out.append("No spec changed in this range.")
    for review in reviews:
        out += _spec(review)
    for path, terms in glossaries or []:
        out += [f"### Glossary `{path}`", ""]
        for t in terms:
            avoid = f" _Avoid_: {', '.join(t.avoid)}" if t.avoid else ""
            out.append(f"- **{_text(t.name)}** ({t.change}): {_text(t.definition)}{avoid}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _spec(review: SpecReview) -> list[str]:
    out = [f"### {_text(review.title)} (`{review.spec}`, phase {review.phase})", ""]
    counts = " · ".join(f"{review.counts[s]} {s}" for s in STATUSES if review.counts[s])
    out += [f"**{len(review.nodes)} decisions:** {counts or 'none yet'}", ""]
    if review.nodes:
        out += ["```mermaid", "graph TD"]
        for n in review.nodes:
            out.append(f'  {_node_key(n.id)}["{_mermaid(n.id + ": " + n.title)}"]:::'
                       f"{n.status.replace(' ', '_')}")
            out.extend(f"  {_node_key(p)} --> {_node_key(n.id)}" for p in n.prerequisites
                       if review.node(p) is not None)
        out += ["  classDef resolved fill:#2e7d32,color:#fff",
                "  classDef open fill:#c62828,color:#fff",
                "  classDef blocked fill:#6d6d6d,color:#fff", "```", ""]
        out += ["| decision | status | answer |", "|---|---|---|"]
        for n in review.nodes:
            marks = "".join(f" *{m}*" for m, on in (("new", n.added), ("reopened", n.reopened))
                            if on)
            answer = _cell(n.answer) if n.answer else (
                "waits on " + ", ".join(n.blockers) if n.blockers else "")
            out.append(f"| `{n.id}` {_cell(n.title)}{marks} | {n.status} | {answer} |")
        out.append("")
    if review.approvals:
        out.append("**Approvals**")
        for a in review.approvals:
            commit = f", commit {a.commit[:12]}" if a.commit else ""
            reply = f", the user's reply: “{_text(a.reply)}”" if a.reply else ""
            broken = f" — **no longer holds**: {_text(a.broken)}" if a.broken else ""
            out.append(f"- {_text(a.title)}: {a.what}{commit}{reply}{broken}")
        out.append("")
    new = [b for b in review.blocks if b.new] if review.since is not None else review.blocks
    if new:
        out.append(f"**Rounds{' since ' + review.since if review.since else ''}**")
        out.append("")
        for block in new:
            out += ["<details>", f"<summary>{_text(block.title)}</summary>", ""]
            for key, value, children in block.entries:
                out.append(f"- **{_text(key)}:** {_text(value)}")
                out.extend(f"  - {_text(c)}" for c in children)
            out += ["", "</details>", ""]
    return out


def _bindings(drifted: list[BoundView] | None, reaffirmed: list[BoundView]) -> list[str]:
    """Decisions bound to code: drifted now (first: they wait on their owner), reaffirmed."""
    if drifted is None and not reaffirmed:
        return []
    out = ["### Decisions bound to code", ""]
    if drifted is not None:
        if not drifted:
            out += ["**Drifted:** none: every bound target is as it was bound.", ""]
        else:
            out += [f"**Drifted ({len(drifted)}):** changed in substance since the decision "
                    "was bound (`mdgrill drift`); the owner answers with `mdgrill reaffirm`.",
                    "", "| decision | answer | target | what changed |", "|---|---|---|---|"]
            out += [_bound_row(b) for b in drifted]
            out.append("")
    if reaffirmed:
        out += [f"**Reaffirmed ({len(reaffirmed)}):**", "",
                "| decision | answer | target | the owner's selection |", "|---|---|---|---|"]
        out += [_bound_row(b) for b in reaffirmed]
        out.append("")
    return out


def _bound_row(b: BoundView) -> str:
    return (f"| `{b.decision}` ({_cell(b.spec)}) | {_cell(b.answer)} | {_code(b.target)} | "
            f"{_cell(b.detail)} |")


def _code(value: str) -> str:
    """A target in a table cell: as code, without a backtick or a bar to break out of it."""
    return "`" + " ".join(value.split()).replace("`", "'").replace("|", "\\|") + "`"


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
        .replace("[", "\\[").replace("]", "\\]")


def _cell(value: str) -> str:
    return _text(" ".join(value.split())).replace("|", "\\|")


def _mermaid(text: str) -> str:
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def _node_key(node_id: str) -> str:
    return "n_" + "".join(c if c.isalnum() else "_" for c in node_id)
