"""`mdgrill validate [PATH…] [--prompt DRAFT [--spec SPEC]]`: check files, print diagnostics.

The shell part of validation: find the files (a spec folder, a `.progress.md`, a glossary, or
any folder walked for them), read them safely, and hand the bytes to the pure checks in
`mdgrill.checks` / `mdgrill.prompt_checks`. The map paths' filesystem check (a link through a
symlink out of the repository) is here, since it needs the disk. Nothing is ever written.
"""

from __future__ import annotations

import argparse
import os
import sys

from mdgrill.cli.verbs import Outcome, Verb, print_now
from mdgrill.diagnostics import Diagnostic, error, format_diagnostic, sort_diagnostics, warning
from mdgrill.errors import InputError
from mdgrill.git.discovery import find_root
from mdgrill.shell import store
from mdgrill.shell.session import display

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.formats.progress import Progress

GLOSSARY = "CONTEXT.md"
MAP = "CONTEXT-MAP.md"
KNOWN_NAMES = (store.PROGRESS, GLOSSARY, MAP)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="a spec folder, a .progress.md, a CONTEXT.md / CONTEXT-MAP.md, or a "
                   "folder to search (default: the repository root)")
    p.add_argument("--prompt", metavar="DRAFT", help="check a built prompt: provenance "
                   "comments (`<!-- E<n> -->`) and the 15 checklist rows")
    p.add_argument("--spec", metavar="SPEC", help="with --prompt: the spec whose ledger the "
                   "provenance comments cite (without it only their shape is checked)")


_NOT_OURS = frozenset({"NO_FRONT_MATTER", "NOT_MDGRILL"})


class _Target:
    __slots__ = ("kind", "path", "root", "found")

    def __init__(self, kind: str, path: str, root: str, found: bool = False) -> None:
        self.kind = kind  # progress | glossary | map | prompt
        self.path = path
        self.root = root
        self.found = found  # met while walking a folder, not named on the command line


def run(args: argparse.Namespace) -> Outcome:
    root_arg = os.path.abspath(args.root) if args.root else None
    if args.spec and not args.prompt:
        raise InputError("USAGE", "--spec goes with --prompt DRAFT (the spec whose ledger the "
                         "prompt cites)")
    paths: list[str] = list(args.paths)
    if not paths and not args.prompt:
        paths = [root_arg or find_root(os.getcwd())]
    for path in paths + ([args.prompt] if args.prompt else []):
        if not os.path.lexists(path):
            raise InputError("NOT_FOUND", f"{path} does not exist: give a spec folder, a "
                             ".progress.md, a CONTEXT.md or a folder to search")
    targets = collect(paths, root_arg)
    diagnostics: list[Diagnostic] = []
    if args.prompt:
        diagnostics.extend(_check_prompt(args, root_arg))
    seen: set[str] = {os.path.abspath(t.path) for t in targets}
    index = 0
    while index < len(targets):  # a map adds its contexts' files as it is checked
        diagnostics.extend(_check_target(targets[index], targets, seen))
        index += 1
    files = len(targets) + (1 if args.prompt else 0)
    return _outcome(sort_diagnostics(diagnostics), files, bool(getattr(args, "json", False)))


def _outcome(diagnostics: list[Diagnostic], files: int, want_json: bool) -> Outcome:
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} " \
              f"in {files} file{'s' * (files != 1)}"
    result: dict[str, object] = {"diagnostics": [d.to_json() for d in diagnostics],
                                 "files": files, "errors": errors, "warnings": warnings}
    if not want_json:
        # printed here rather than by the cli so that the summary follows the diagnostics
        if diagnostics:
            print_now("".join(format_diagnostic(d) + "\n" for d in diagnostics))
        sys.stderr.write(summary + "\n")
    return Outcome(result, "", 1 if errors else 0)


# ---------------------------------------------------------------------------------------
# Finding the files


def root_for(path: str, root_arg: str | None) -> str:
    return store.repository(path, root_arg)


def kind_of(name: str) -> str:
    if name == GLOSSARY:
        return "glossary"
    if name == MAP:
        return "map"
    return "progress"  # `.progress.md`, or any other file given by name


def collect(paths: list[str], root_arg: str | None) -> list[_Target]:
    """The files to check under the PATH arguments, each once, in a stable order."""
    targets: list[_Target] = []
    seen: set[str] = set()

    def add(kind: str, path: str, root: str, found: bool = False) -> None:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            targets.append(_Target(kind, key, root, found))

    for path in paths:
        root = root_for(path, root_arg)
        if not os.path.isdir(path) or os.path.basename(os.path.normpath(path)) in KNOWN_NAMES:
            add(kind_of(os.path.basename(os.path.normpath(path))), path, root)
        elif os.path.lexists(os.path.join(path, store.PROGRESS)):
            add("progress", os.path.join(path, store.PROGRESS), root)
            for name in (GLOSSARY, MAP):
                if os.path.lexists(os.path.join(path, name)):
                    add(kind_of(name), os.path.join(path, name), root)
        else:
            for kind, found in walk(path):
                add(kind, found, root, found=True)
    return targets


def walk(top: str) -> list[tuple[str, str]]:
    """Specs and glossaries under `top`, in the folders `shell.walk` goes through."""
    from mdgrill.shell.walk import walk as walk_folders

    found: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in walk_folders(top):
        for name in dirnames:
            if name in KNOWN_NAMES:  # a folder where a file should be: reported as such
                found.append((kind_of(name), os.path.join(dirpath, name)))
        dirnames[:] = [d for d in dirnames if d not in KNOWN_NAMES]
        for name in KNOWN_NAMES:
            if name in filenames:
                found.append((kind_of(name), os.path.join(dirpath, name)))
    return found


# ---------------------------------------------------------------------------------------
# Checking them


def _read(target: _Target, shown: str) -> bytes | Diagnostic:
    try:
        return store.read_file(target.path, shown, target.root)
    except InputError as exc:
        from mdgrill.checks.spec import from_input_error

        return from_input_error(exc, shown)


def _check_target(target: _Target, targets: list[_Target], seen: set[str]) -> list[Diagnostic]:
    shown = display(target.path)
    data = _read(target, shown)
    if isinstance(data, Diagnostic):
        return [data]
    if target.kind == "progress":
        from mdgrill.checks.spec import validate_progress_parsed

        found, prog = validate_progress_parsed(data, shown)
        if target.found and found and found[0].code in _NOT_OURS:
            # a smart-ralph (or other) progress file met on a walk: not an mdgrill spec yet
            return [warning(shown, 1, "NOT_MDGRILL", "not an mdgrill spec (no `mdgrill: 1` "
                            "front matter): skipped; convert it with `mdgrill import-ralph`")]
        return found + _drift(target, prog, found)
    from mdgrill.checks.spec import validate_glossary_bytes

    if target.kind == "glossary":
        return validate_glossary_bytes(data, shown)
    return _check_map(target, data, shown, targets, seen)


def _drift(target: _Target, prog: Progress | None,
           found: list[Diagnostic]) -> list[Diagnostic]:
    """What changed under the spec's approvals: the files they name, read from disk."""
    if prog is None or prog.fm is None or any(d.code == "MERGE_CONFLICT" for d in found):
        return []
    from mdgrill.shell.drift import spec_diagnostics

    try:
        return spec_diagnostics(prog, store.Spec(os.path.dirname(target.path), target.root))
    except InputError:
        return []


def _check_map(target: _Target, data: bytes, shown: str, targets: list[_Target],
               seen: set[str]) -> list[Diagnostic]:
    from mdgrill.checks.spec import check_context_map_model, from_input_error
    from mdgrill.formats.glossary import parse_context_map
    from mdgrill.formats.markdown import refuse_conflict
    from mdgrill.formats.textfile import decode

    try:
        tf = decode(data, shown)
        refuse_conflict(tf.text, shown)
    except InputError as exc:
        return [from_input_error(exc, shown)]
    cmap = parse_context_map(tf, shown)
    folder = os.path.dirname(target.path)
    rel = os.path.relpath(folder, target.root)
    depth = 0 if rel == "." or rel.startswith("..") else len(rel.split(os.sep))
    out = check_context_map_model(cmap, depth)
    lexical_escapes = {(d.line, d.col) for d in out if d.code == "MAP_PATH_ESCAPES"}
    for ctx in cmap.contexts:
        link = ctx.path.split("#")[0]
        if not link or (ctx.line, ctx.col) in lexical_escapes or "://" in link:
            continue
        path = os.path.normpath(os.path.join(folder, link))
        if not os.path.lexists(path):
            continue  # created when the context's first term is written
        if not store.is_inside(path, target.root):
            out.append(error(shown, ctx.line, "MAP_PATH_ESCAPES",
                             f'context "{ctx.name}" points at {ctx.path!r}, which goes through '
                             "a symlink out of the repository: point it at a CONTEXT.md inside "
                             "the repository", ctx.col))
        elif os.path.abspath(path) not in seen:
            seen.add(os.path.abspath(path))
            targets.append(_Target("glossary", os.path.abspath(path), target.root))
    return out


def _check_prompt(args: argparse.Namespace, root_arg: str | None) -> list[Diagnostic]:
    from mdgrill.checks.prompt import validate_prompt_bytes

    ledger: list[str] | None = None
    if args.spec:
        from mdgrill.checks.spec import ledger_ids
        from mdgrill.formats.progress import read_progress

        spec = store.resolve_spec(args.spec, root_arg)
        prog = read_progress(store.read_file(spec.progress, display(spec.progress), spec.root),
                             display(spec.progress))
        ledger = ledger_ids(prog)
    shown = display(os.path.abspath(args.prompt))
    data = _read_any(os.path.abspath(args.prompt), shown)
    if isinstance(data, Diagnostic):
        return [data]
    return validate_prompt_bytes(data, shown, ledger)


def _read_any(path: str, shown: str) -> bytes | Diagnostic:
    """A prompt draft may live anywhere (a temp file of the agent): no repository check."""
    try:
        return store.read_file(path, shown)
    except InputError as exc:
        from mdgrill.checks.spec import from_input_error

        return from_input_error(exc, shown)


VERBS = (
    Verb("validate", "Check specs, glossaries and prompts; print diagnostics (exit 1 on errors).",
         _arguments, run),
)
