"""Report verbs: `status`, `tree`, `ledger`, `lint` (read-only; nothing is ever written)."""

from __future__ import annotations

import argparse
import os
import sys

from mdgrill.cli.verbs import Outcome, Verb, add_spec, on_spec
from mdgrill.core import reports
from mdgrill.diagnostics import Diagnostic, format_diagnostic, has_errors, sort_diagnostics
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.shell import store
from mdgrill.shell.session import display

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.formats.glossary import Glossary
    from mdgrill.formats.textfile import TextFile

ARTIFACTS = ("research.md", "requirements.md", "design.md", "tasks.md")


def _lint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", nargs="?", default=".",
                   help="a spec folder, a file, or a folder holding specs (default: .)")


def _tree_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--format", choices=["text", "mermaid"], default="text",
                   help="text (default) or a ```mermaid block that embeds in Markdown")


def _ledger_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--new", action="store_true", help="only the entries the last round "
                   "added (what an agent posts to the chat)")


def use_color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _tree(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.status import tree

    done = tree(spec, format=args.format,
                color=use_color() and not getattr(args, "json", False))
    return Outcome(done.data, done.text)


def _ledger(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.status import ledger

    done = ledger(spec, new=bool(args.new))
    data = done.to_json()
    data.pop("text")  # the JSON stays as it was: entries, new, outline
    return Outcome(data, done.text)


def _status(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.status import status_view

    view = status_view(spec)
    text = reports.status_text(view, use_color())
    for problem in view["problems"]:
        text += f"\nproblem: {problem}"
    return Outcome(dict(view), text)


# -- lint -------------------------------------------------------------------------------------


def _lint(args: argparse.Namespace) -> Outcome:
    target = os.path.abspath(args.path)
    if not os.path.exists(target):
        raise MdgrillError("NOT_FOUND", f"{args.path} does not exist")
    root = store.repository(target, args.root)
    glossaries, diagnostics = _glossaries(root)
    rules = _rules(glossaries)
    checked: list[str] = []
    for path, ranges in _targets(target):
        shown = display(path)
        try:
            from mdgrill.formats.textfile import decode

            tf = decode(store.read_file(path, shown, root), shown)
            spans = _progress_ranges(tf, shown) if ranges == "progress" else None
        except MdgrillError as exc:
            from mdgrill.checks.spec import from_input_error

            diagnostics.append(from_input_error(exc, shown))
            continue
        checked.append(shown)
        diagnostics.extend(reports.lint_lines(shown, tf.lines, rules, spans))
    items = sort_diagnostics(diagnostics)
    failed = has_errors(items)
    text = "\n".join(format_diagnostic(d) for d in items) or \
        f"no glossary problems ({len(checked)} file(s), {len(rules)} avoided word(s))"
    return Outcome({"diagnostics": [d.to_json() for d in items], "files": checked,
                    "glossaries": [display(g[0]) for g in glossaries]}, text,
                   1 if failed else 0)


def _glossaries(root: str) -> tuple[list[tuple[str, Glossary]], list[Diagnostic]]:
    """Every CONTEXT*.md under the root, parsed; plus their own diagnostics."""
    from mdgrill.checks.spec import from_input_error
    from mdgrill.formats import glossary as gl
    from mdgrill.formats.markdown import refuse_conflict
    from mdgrill.formats.textfile import decode

    found: list[tuple[str, Glossary]] = []
    diagnostics: list[Diagnostic] = []
    from mdgrill.shell.walk import walk

    for dirpath, _, filenames in walk(root):
        for name in filenames:
            if not (name.startswith("CONTEXT") and name.endswith(".md")):
                continue
            path = os.path.join(dirpath, name)
            shown = display(path)
            try:
                tf = decode(store.read_file(path, shown, root), shown)
                refuse_conflict(tf.text, shown)
            except InputError as exc:
                diagnostics.append(from_input_error(exc, shown))
                continue
            parsed = gl.parse_glossary(tf, shown)
            diagnostics.extend(parsed.diagnostics)
            diagnostics.extend(gl.check_glossary(parsed))
            if name != "CONTEXT-MAP.md":
                diagnostics.extend(gl.language_rules(parsed))
            if parsed.terms:
                found.append((path, parsed))
    diagnostics.extend(_two_contexts(found))
    return found, diagnostics


def _two_contexts(found: list[tuple[str, Glossary]]) -> list[Diagnostic]:
    first: dict[str, tuple[str, int]] = {}
    out: list[Diagnostic] = []
    for _, parsed in found:
        for term in parsed.terms:
            for name in term.names:
                key = name.casefold()
                seen = first.get(key)
                if seen is None:
                    first[key] = (parsed.path, term.line)
                elif seen[0] != parsed.path:
                    out.append(Diagnostic(parsed.path, term.line, term.col, "warning",
                                          "TERM_IN_TWO_CONTEXTS",
                                          f'"{name}" is also defined in {seen[0]}:{seen[1]}: '
                                          "keep one definition, or make the two meanings "
                                          "explicit in CONTEXT-MAP.md"))
    return out


def _rules(found: list[tuple[str, Glossary]]) -> list[reports.AvoidRule]:
    names: set[str] = set()
    for _, parsed in found:
        for term in parsed.terms:
            names.update(n.casefold() for n in term.names)
    rules: list[reports.AvoidRule] = []
    seen: set[str] = set()
    for _, parsed in found:
        for term in parsed.terms:
            for word in term.avoid:
                key = word.strip().casefold()
                # A word another context defines as its own term is not wrong to use.
                if not key or key in names or key in seen:
                    continue
                seen.add(key)
                rules.append(reports.AvoidRule(word.strip(), term.name))
    return rules


def _targets(target: str) -> list[tuple[str, str]]:
    """(file, kind) to lint: `progress` (tree and rounds only) or `whole`."""
    if os.path.isfile(target):
        kind = "progress" if os.path.basename(target) == store.PROGRESS else "whole"
        return [(target, kind)]
    out: list[tuple[str, str]] = []
    for folder in store.find_specs(target):
        out.append((os.path.join(folder, store.PROGRESS), "progress"))
        out.extend((os.path.join(folder, n), "whole") for n in ARTIFACTS
                   if os.path.isfile(os.path.join(folder, n)))
    return out


def _progress_ranges(tf: TextFile, shown: str) -> list[tuple[int, int]]:
    """The lines of a `.progress.md` that lint reads: the design tree only. The recorded
    rounds are sealed, so a warning there could never be acted on (and `term add --spec`
    records the glossary's own definition, avoided words included, in one)."""
    from mdgrill.formats.progress import TREE

    prog = Progress(tf, shown)
    return [(sec.start, sec.end) for key, sec in prog.sections.items() if key == TREE]


VERBS = (
    Verb("status", "One screen on a spec: phase, interview, pending questions, frontier.",
         add_spec, on_spec(_status)),
    Verb("tree", "Draw the design tree as text or as a Mermaid diagram.",
         _tree_arguments, on_spec(_tree)),
    Verb("ledger", "List decisions as an elicitation ledger (E1 [section] question = answer).",
         _ledger_arguments, on_spec(_ledger)),
    Verb("lint", "Glossary lint: _Avoid_ words used in the design tree and the artifacts.",
         _lint_arguments, _lint),
)
