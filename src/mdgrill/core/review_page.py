"""The review as one self-contained HTML page (pure: reviews in, text out).

Nothing on the page is fetched when it is opened: the tree is an SVG drawn here, the style is
inline, there is no script, and a Content-Security-Policy forbids everything else, so the page
opens the same from a CI artifact, an e-mail attachment or a file on disk. The answers and
facts are the users' and agents' words, rendered from Markdown by mistune with their HTML
escaped; a link keeps only a safe target, and an image becomes its alt text (loading it would
be a request).
"""

from __future__ import annotations

from html import escape
from typing import Any

from mdgrill.core.review import (
    RUBBER_STAMP_RUN,
    STATUSES,
    BoundView,
    Decided,
    NodeView,
    SpecReview,
    TermView,
    layers,
    reaffirmed_of,
    slug,
)

COLORS = {"resolved": "#2e7d32", "open": "#c62828", "blocked": "#6d6d6d",
          "investigating": "#1565c0", "out of scope": "#8d6e63",
          "skipped with assumptions": "#ef6c00"}

STYLE = """
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #ffffff; --muted: #5f6368;
  --card: #f6f8fa; --line: #d0d7de; --new: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9aa4ae;
  --card: #161b22; --line: #30363d; --new: #3b2e00; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; font: 15px/1.5 system-ui, sans-serif;
  color: var(--fg); background: var(--bg); }
h1 { font-size: 1.5rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
.broken { color: #b3261e; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; list-style: none; }
.counts li { padding: .25rem .6rem; border-radius: 1rem; background: var(--card);
  border-left: .4rem solid var(--c); }
.tree { overflow-x: auto; background: var(--card); border-radius: .5rem; }
.tree svg { display: block; min-width: 100%; }
.tree text { fill: #ffffff; font: 12px system-ui, sans-serif; }
.tree line { stroke: var(--muted); }
details, .block { background: var(--card); border-radius: .5rem; margin: .5rem 0;
  padding: .5rem .8rem; }
.new { background: var(--new); }
.badge { font-size: .75rem; padding: 0 .4rem; border-radius: .6rem; color: #fff;
  background: var(--c); white-space: nowrap; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid var(--line); padding: .3rem .4rem; text-align: left;
  vertical-align: top; }
code { overflow-wrap: anywhere; }
.entry p { display: inline; margin: 0; }
.flag { border-left: .4rem solid #ef6c00; }
@media (max-width: 40rem) { body { padding: .5rem; font-size: 14px; } }
@media print { .tree { overflow: visible; } details { display: block; }
  details > summary { list-style: none; } body { max-width: none; } }
"""
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def page(title: str, reviews: list[SpecReview], subtitle: str = "",
         glossaries: list[tuple[str, list[TermView]]] | None = None,
         drifted: list[BoundView] | None = None) -> str:
    """The HTML page of one or more specs' reviews, the glossaries' changes, and the bound
    decisions that drifted (None: no decision is bound) or were reaffirmed."""
    md = _markdown()
    body = [f"<h1>{escape(title)}</h1>"]
    if subtitle:
        body.append(f'<p class="muted">{escape(subtitle)}</p>')
    body.extend(_bindings(drifted, [r for review in reviews for r in reaffirmed_of(review)],
                          md))
    if not reviews and not glossaries:
        body.append("<p>No spec changed in this range.</p>")
    for review in reviews:
        body.extend(_spec(review, md))
    for path, terms in glossaries or []:
        body.append(f"<h2>Glossary <code>{escape(path)}</code></h2>")
        body.append(_terms(terms, md))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _spec(review: SpecReview, md: Any) -> list[str]:
    out = [f'<h2 id="{escape(slug(review.spec))}">{escape(review.title)} '
           f'<span class="muted">{escape(review.spec)}, phase {escape(review.phase)}</span></h2>']
    if review.goal:
        out.append(f"<p>{md(review.goal)}</p>")
    out.append('<ul class="counts">' + "".join(
        f'<li style="--c:{COLORS[s]}">{review.counts[s]} {escape(s)}</li>' for s in STATUSES)
        + "</ul>")
    out.append(f'<p class="muted">Counted from the design tree: {len(review.nodes)} '
               "decisions.</p>")
    out.extend(_how_decided(review))
    if review.nodes:
        out.append(f'<div class="tree">{tree_svg(review.nodes, review.spec)}</div>')
        out.append(_decisions(review, md))
    out.append("<h3>Approvals</h3>")
    if not review.approvals:
        out.append('<p class="muted">None recorded.</p>')
    for a in review.approvals:
        commit = f", commit <code>{escape(a.commit[:12])}</code> {escape(a.date or '')}" \
            if a.commit else ""
        reply = f", the user's reply: <q>{escape(a.reply)}</q>" if a.reply else ""
        channel = f" ({escape(a.channel)})" if a.channel else ""
        digest = f", context digest <code>{escape(a.digest[:12])}</code>" if a.digest else ""
        approach = f"<br>The approach approved: {md(a.approach)}" if a.approach else ""
        broken = f'<br><strong class="broken">No longer holds</strong>: {escape(a.broken)}' \
            if a.broken else ""
        out.append(f'<p class="block"><a href="#{a.anchor}">{escape(a.title)}</a>: '
                   f"{escape(a.what)}{commit}{digest}{reply}{channel}{approach}{broken}</p>")
    out.append("<h3>Rounds</h3>")
    if review.since is not None:
        out.append(f'<p class="muted">Highlighted: recorded since {escape(review.since)}.</p>')
    for block in review.blocks:
        items = "".join(_entry(key, value, children, md)
                        for key, value, children in block.entries)
        mark = " new" if block.new else ""
        decided = f'<p class="muted">How the user decided: {_decided(block.decided)}.</p>' \
            if block.decided is not None else ""
        out.append(f'<details open class="{mark.strip()}" id="{block.anchor}"><summary>'
                   f"<strong>{escape(block.title)}</strong></summary>{decided}"
                   f"<ul>{items}</ul></details>")
    return out


def _bindings(drifted: list[BoundView] | None, reaffirmed: list[BoundView],
              md: Any) -> list[str]:
    """Decisions bound to code: those whose target drifted (now), those reaffirmed."""
    if drifted is None and not reaffirmed:
        return []
    out = ['<h2 id="bindings">Decisions bound to code</h2>']
    if drifted is not None:
        out.append(f'<h3 id="drifted">Drifted ({len(drifted)})</h3>')
        if not drifted:
            out.append('<p class="muted">No bound decision has drifted: every bound target is '
                       "as it was bound.</p>")
        else:
            out.append('<p class="muted">A bound target changed in substance since its '
                       "decision was bound to it (what <code>mdgrill drift</code> reports now): "
                       "the decision's owner answers with <code>mdgrill reaffirm</code>.</p>")
            out.append(_bound_table(drifted, "what changed", md))
    if reaffirmed:
        out.append(f'<h3 id="reaffirmed">Reaffirmed ({len(reaffirmed)})</h3>')
        out.append(_bound_table(reaffirmed, "the owner's selection", md))
    return out


def _bound_table(rows: list[BoundView], last: str, md: Any) -> str:
    out = [f"<table><tr><th>decision</th><th>answer</th><th>target</th><th>{last}</th></tr>"]
    for b in rows:
        where = f' <a href="#{escape(b.anchor)}">block</a>' if b.anchor else ""
        out.append(f'<tr class="bound"><td><code>{escape(b.decision)}</code> '
                   f'<span class="muted">{escape(b.spec)}</span></td><td>{md(b.answer)}</td>'
                   f"<td><code>{escape(b.target)}</code></td>"
                   f"<td>{escape(b.detail)}{where}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _decided(d: Decided) -> str:
    return (f"{d.answers} answer{'s' if d.answers != 1 else ''}: {d.recommended} took the "
            f"recommendation unchanged, {d.other_option} chose another option, "
            f"{d.own_words} in the user's own words")


def _how_decided(review: SpecReview) -> list[str]:
    """The whole interview's way of deciding, and a flag on a run of rubber stamps."""
    rounds = [b.decided for b in review.blocks if b.decided is not None]
    if not rounds:
        return []
    total = Decided(sum(d.answers for d in rounds), sum(d.recommended for d in rounds),
                    sum(d.other_option for d in rounds))
    out = [f"<p>How the user decided, over {len(rounds)} round"
           f"{'s' if len(rounds) != 1 else ''}: {_decided(total)}.</p>"]
    run, first, last = review.stamped
    if run >= RUBBER_STAMP_RUN:
        out.append(f'<p class="block flag"><strong>{run} answers in a row took the '
                   f'recommendation unchanged</strong> (<a href="#{first}">from this round</a> '
                   f'to <a href="#{last}">this one</a>): check that the user decided, not only '
                   "agreed.</p>")
    return out


def _terms(terms: list[TermView], md: Any) -> str:
    rows = ["<table><tr><th>term</th><th>change</th><th>definition</th><th>avoid</th></tr>"]
    for t in terms:
        rows.append(f"<tr><td><strong>{escape(t.name)}</strong></td><td>{t.change}</td>"
                    f"<td>{md(t.definition)}</td><td>{escape(', '.join(t.avoid))}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _decisions(review: SpecReview, md: Any) -> str:
    rows = ["<table><tr><th>decision</th><th>status</th><th>answer</th></tr>"]
    for n in review.nodes:
        marks = "".join(f' <span class="badge" style="--c:#6f42c1">{m}</span>' for m, on in
                        (("new", n.added), ("reopened", n.reopened), ("amended", n.amended),
                         ("own words", n.other)) if on)
        answer = md(n.answer) if n.answer else (
            "waits on " + escape(", ".join(n.blockers)) if n.blockers else "")
        where = f' <a href="#{n.round}">round</a>' if n.round else ""
        rows.append(f'<tr id="{escape(_row(review.spec, n.id))}"><td>'
                    f"<code>{escape(n.id)}</code> {escape(n.title)}{marks}</td>"
                    f'<td><span class="badge" style="--c:{COLORS[n.status]}">'
                    f"{escape(n.status)}</span></td><td>{answer}{where}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _entry(key: str, value: str, children: list[str], md: Any) -> str:
    nested = "".join(f"<li>{md(c)}</li>" for c in children)
    return (f'<li class="entry"><strong>{escape(key)}:</strong> {md(value)}'
            + (f"<ul>{nested}</ul>" if nested else "") + "</li>")


def tree_svg(nodes: list[NodeView], spec: str) -> str:
    """The design tree drawn in rows (a node below what it waits on), coloured by status,
    each node a link to the round that settled it (an open one: to its row of the table)."""
    rows = layers(nodes)
    box_w, box_h, gap_x, gap_y = 150, 34, 20, 36
    # the whole label, wrapped: a box is as tall as its lines, a row as its tallest box
    heights = {n.id: box_h + LINE_H * (len(label_lines(n.id + ": " + n.title)) - 1)
               for row in rows for n in row}
    columns = _columns(rows)
    width = (max(columns.values(), default=0) + 1) * (box_w + gap_x) + gap_x
    where: dict[str, tuple[int, int]] = {}
    top = gap_y
    for row in rows:
        for node in row:
            where[node.id] = (gap_x + columns[node.id] * (box_w + gap_x), top)
        top += max(heights[n.id] for n in row) + gap_y
    height = top
    edges = []
    for node in nodes:
        if node.id not in where:
            continue
        x, y = where[node.id]
        for p in node.prerequisites:
            if p in where:
                px, py = where[p]
                edges.append(f'<line x1="{px + box_w // 2}" y1="{py + heights[p]}" '
                             f'x2="{x + box_w // 2}" y2="{y}"/>')
    boxes = []
    for node in nodes:
        if node.id not in where:
            continue
        x, y = where[node.id]
        lines = label_lines(node.id + ": " + node.title)
        text = "".join(f'<tspan x="{x + 8}" dy="{LINE_H if i else 0}">{escape(line)}</tspan>'
                       for i, line in enumerate(lines))
        target = f"#{node.round}" if node.round else f"#{_row(spec, node.id)}"
        boxes.append(f'<a href="{escape(target)}"><title>{escape(node.id)}: '
                     f"{escape(node.title)} ({escape(node.status)})</title>"
                     f'<rect x="{x}" y="{y}" width="{box_w}" height="{heights[node.id]}" '
                     f'rx="6" fill="{COLORS[node.status]}"/><text x="{x + 8}" y="{y + 21}">'
                     f"{text}</text></a>")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="design tree">'
            + "".join(edges) + "".join(boxes) + "</svg>")


def _columns(rows: list[list[NodeView]]) -> dict[str, int]:
    """Each node's column: the first row left to right; below it, each node as near the
    middle of what it waits on as the row allows (sorted by that place), so an edge, a
    spawned sub-question's above all, runs down to its parent instead of across the tree."""
    column: dict[str, int] = {}
    for depth, row in enumerate(rows):
        def wanted(node: NodeView) -> float:
            above = [column[p] for p in node.prerequisites if p in column]
            return sum(above) / len(above) if above else float(len(column))

        free = 0
        for node in sorted(row, key=wanted) if depth else row:
            column[node.id] = max(free, round(wanted(node))) if depth else free
            free = column[node.id] + 1
    return column


LINE_H = 15  # a label line in the tree's boxes
LINE_CHARS = 20  # what fits one line of a box at the tree's font (150 px at 12 px)


def label_lines(label: str) -> list[str]:
    """A node's whole label in lines that fit its box (a word longer than a line is cut
    into pieces, never dropped)."""
    import textwrap

    return textwrap.wrap(label, LINE_CHARS, break_long_words=True) or [label]


def _row(spec: str, node_id: str) -> str:
    return slug("node-" + spec + "-" + node_id)



def _markdown() -> Any:
    """mistune's renderer for the users' words: their HTML escaped, a link only with a safe
    target (mistune drops `javascript:` and the like), an image shown as its alt text."""
    import mistune

    class Inert(mistune.HTMLRenderer):
        def image(self, text: str, url: str, title: str | None = None) -> str:
            return f'<span class="muted">[image: {escape(text)}]</span>'

        def paragraph(self, text: str) -> str:
            return text  # one value is one paragraph: no <p> inside a table cell

    render = mistune.create_markdown(escape=True, renderer=Inert(escape=True))

    def md(text: str) -> str:
        return str(render(text)).strip()
    return md
