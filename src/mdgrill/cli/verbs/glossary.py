"""`term add`: write one glossary entry into the CONTEXT.md that owns it (docs/contract.md)."""

from __future__ import annotations

import argparse
import os

from mdgrill.cli.verbs import Outcome, Verb
from mdgrill.errors import InputError
from mdgrill.formats.markdown import refuse_conflict
from mdgrill.shell import store
from mdgrill.shell.session import display

# `typing` is not loaded for this verb otherwise; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import GlossaryLine

MAP = "CONTEXT-MAP.md"
ROOT_GLOSSARY = "CONTEXT.md"


def configure_term(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="add", required=True)
    add = sub.add_parser("add", help="add or update a glossary term", allow_abbrev=False)
    add.add_argument("term", metavar="TERM", help="the canonical name, as the team writes it")
    add.add_argument("--definition", required=True, metavar="T", help="one or two sentences")
    add.add_argument("--avoid", action="append", metavar="A", help="a word to avoid for it "
                     "(repeat); omitted on an update: the old list stays")
    add.add_argument("--context", metavar="NAME", help="the context (from CONTEXT-MAP.md)")
    add.add_argument("--spec", metavar="SPEC", help="also record it in the spec's open round "
                     "(`Domain language:`)")
    add.add_argument("--context-description", metavar="T", help="when this creates the "
                     "context's CONTEXT.md: one or two sentences on what the context covers")
    add.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                     help="print one JSON object on stdout")


def glossary_path(root: str, context: str | None) -> tuple[str, str]:
    """(path of the CONTEXT.md to write, context name) by the map, else the root file."""
    map_path = os.path.join(root, MAP)
    if not os.path.lexists(map_path):
        return os.path.join(root, ROOT_GLOSSARY), context or os.path.basename(root)
    from mdgrill.formats.glossary import parse_context_map
    from mdgrill.formats.textfile import decode

    cmap = parse_context_map(decode(store.read_file(map_path, MAP, root), MAP), MAP)
    if not cmap.contexts:
        raise InputError("NOT_FOUND", f"{MAP} lists no contexts under `## Contexts`: add "
                         "`- [Name](path/CONTEXT.md): ...` bullets")
    names = ", ".join(c.name for c in cmap.contexts)
    if context is None:
        if len(cmap.contexts) > 1:
            raise InputError("CONTEXT_REQUIRED", f"{MAP} lists several contexts ({names}): "
                             "pass --context NAME")
        entry = cmap.contexts[0]
    else:
        matches = [c for c in cmap.contexts if c.name.lower() == context.lower()]
        if not matches:
            raise InputError("NOT_FOUND", f"no context `{context}` in {MAP} (contexts: {names})")
        entry = matches[0]
    link = entry.path.split("#", 1)[0]
    if not link or os.path.isabs(link) or link.startswith(("/", "\\")) or "://" in link:
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{MAP}:{entry.line}: the path of context "
                         f"{entry.name} ({entry.path}) must be relative to the repository")
    target = os.path.normpath(os.path.join(root, link))
    if os.path.isdir(target) or link.endswith("/"):
        target = os.path.join(target, ROOT_GLOSSARY)
    shown = f"{MAP}:{entry.line}: the path of context {entry.name} ({entry.path})"
    store.require_in_work_tree(os.path.dirname(target), root, shown)  # nor into `.git/`
    store.require_in_work_tree(target, root, shown)
    return target, entry.name


def run_term(args: argparse.Namespace) -> Outcome:
    from mdgrill.formats.glossary import new_glossary, parse_glossary, set_term
    from mdgrill.formats.textfile import TextFile, decode

    if args.spec:
        spec = store.resolve_spec(args.spec, args.root)
        root = spec.root
    else:
        spec = None
        root = store.repository(args.root or os.getcwd(), args.root)
    path, context_name = glossary_path(root, args.context)
    rel = store.relpath_posix(path, root)
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    with store.Lock(folder):
        before: bytes | None = None
        if os.path.lexists(path):
            before = store.read_file(path, rel, root)
            tf = decode(before, rel)
            refuse_conflict(tf.text, rel)
            glossary = parse_glossary(tf, rel)
            updated = bool(glossary.find(args.term))
            new_tf = set_term(tf, glossary, args.term, args.definition, args.avoid)
        else:
            updated = False
            new_tf = TextFile(new_glossary(context_name, args.term, args.definition,
                                           args.avoid or [],
                                           description=args.context_description))
        store.atomic_write(path, new_tf.encode(), expect=before)
    result: dict[str, object] = {"term": args.term, "path": rel, "context": context_name,
                                 "updated": updated}
    if spec is not None:
        result["round_line"] = _record_in_round(spec, args, rel)
    verb = "updated" if updated else "added"
    return Outcome(result, f"{verb} **{args.term}** in {display(path)}")


def _record_in_round(spec: store.Spec, args: argparse.Namespace, rel: str) -> bool:
    from mdgrill.core import machine
    from mdgrill.formats.progress import Progress, Transition
    from mdgrill.shell.session import transaction

    def step(prog: Progress) -> Transition[GlossaryLine]:
        change = machine.domain_language(prog.data, prog, args.term, args.definition)
        iv = prog.data.get("interview")
        if change.append_lines and isinstance(iv, dict):
            iv = dict(iv)
            old = iv.get("glossaries")
            touched = [str(p) for p in old] if isinstance(old, list) else []
            if rel not in touched:
                touched.append(rel)
                iv["glossaries"] = touched
                change.updates["interview"] = iv
        return Transition(change, {"recorded": bool(change.append_lines)})

    return bool(transaction(spec, step)["recorded"])


VERBS = (
    Verb("term", "Edit the glossary: `term add TERM --definition T ...`.",
         configure_term, run_term),
)
