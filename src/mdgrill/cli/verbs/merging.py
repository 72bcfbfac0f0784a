"""Merging a spec two branches changed: `merge-file` (git's merge driver), `merge` (after a
merge, rebase or cherry-pick that ran without the driver), `install-merge-driver`."""

from __future__ import annotations

import argparse
import os
import sys

from mdgrill.cli.verbs import Outcome
from mdgrill.core.merge import Merged, merge_progress
from mdgrill.core.merge_terms import merge_glossary
from mdgrill.errors import InputError
from mdgrill.shell import store
from mdgrill.shell.session import display

GITATTRIBUTES = ".gitattributes"


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    if verb == "merge-file":
        for name, what in (("base", "the common ancestor's version (git's %%O)"),
                           ("ours", "our version, where the result is written (git's %%A)"),
                           ("theirs", "their version (git's %%B)"),
                           ("path", "the file's path in the repository (git's %%P)")):
            p.add_argument(name, metavar=name.upper(), help=what)
    elif verb == "merge":
        p.add_argument("paths", metavar="PATH", nargs="*", help="conflicted .progress.md files "
                       "(default: every one git has in conflict)")


def run(args: argparse.Namespace) -> Outcome:
    if args.verb == "merge-file":
        return _merge_file(args)
    root = store.repository(args.root or os.getcwd(), args.root)
    if not store.in_repository(root):
        raise InputError("NOT_A_REPOSITORY", f"{display(root)} is not inside a git repository")
    if args.verb == "install-merge-driver":
        return _install(root)
    return _merge(args, root)


def _read(path: str) -> str:
    from mdgrill.formats.textfile import decode

    with open(path, "rb") as handle:
        return decode(handle.read(), path).text


def _merge_file(args: argparse.Namespace) -> Outcome:
    """As git's merge driver: the merge into OURS; exit 0 when clean, 1 with conflicts."""
    from mdgrill.git.vcs.merging import git_merge_file

    merge = merge_glossary if os.path.basename(args.path) == "CONTEXT.md" else merge_progress
    try:
        merged = merge(_read(args.base), _read(args.ours), _read(args.theirs), args.path)
    except InputError as exc:
        merged = Merged.cannot(exc.message)
    if merged.text is not None:
        store.atomic_write(args.ours, merged.text.encode("utf-8"))
        return _outcome(args.path, merged)
    # what mdgrill cannot merge is left to a person as git would have left it
    root = store.find_root(os.path.dirname(os.path.abspath(args.ours)))
    text, conflicts = git_merge_file(root, args.ours, args.base, args.theirs)
    store.atomic_write(args.ours, text)
    print(f"mdgrill: {args.path}: not merged by mdgrill ({merged.reason}); git's conflict "
          "markers are left for you", file=sys.stderr)
    return Outcome({"path": args.path, "merged": False, "reason": merged.reason,
                    "conflicts": conflicts}, f"{args.path}: left to git ({merged.reason})",
                   1)


def _outcome(path: str, merged: Merged) -> Outcome:
    result: dict[str, object] = {
        "path": path, "merged": not merged.conflicts, "notes": merged.notes,
        "conflicts": [{"decision": d, "ours": o, "theirs": t} for d, o, t in merged.conflicts]}
    if merged.conflicts:
        named = "; ".join(f"{d}: ours `{o}`, theirs `{t}`" for d, o, t in merged.conflicts)
        what = "terms defined" if os.path.basename(path) == "CONTEXT.md" else "decisions answered"
        print(f"mdgrill: {path}: {what} differently on the two sides ({named}): keep one "
              "between the markers, then run `mdgrill merge`", file=sys.stderr)
        return Outcome(result, f"{path}: conflict on {named}", 1)
    return Outcome(result, f"{path}: merged" + "".join(f"; {n}" for n in merged.notes))


def _merge(args: argparse.Namespace, root: str) -> Outcome:
    """Redo the merge of each conflicted `.progress.md` from git's index stages."""
    from mdgrill.git.vcs.merging import index_stages, mark_resolved, unmerged_paths

    wanted = [store.relpath_posix(os.path.abspath(p), root) for p in args.paths] or \
        [p for p in unmerged_paths(root) if os.path.basename(p) == store.PROGRESS]
    if not wanted:
        return Outcome({"files": []}, "no conflicted .progress.md")
    files: list[dict[str, object]] = []
    lines: list[str] = []
    worst = 0
    for rel in wanted:
        base, ours, theirs = index_stages(root, rel)
        if ours is None or theirs is None:
            files.append({"path": rel, "merged": False, "reason": "not in conflict"})
            lines.append(f"{rel}: not in conflict (nothing to redo)")
            continue
        merged = merge_progress((base or b"").decode("utf-8", "replace"),
                                ours.decode("utf-8", "replace"),
                                theirs.decode("utf-8", "replace"), rel)
        chosen = _chosen(root, rel, merged)
        if chosen is not None:  # the person kept one answer of each conflict
            store.atomic_write(os.path.join(root, rel), chosen.encode("utf-8"))
            mark_resolved(root, rel)
            files.append({"path": rel, "merged": True, "resolved": [c[0] for c in
                                                                    merged.conflicts]})
            lines.append(f"{rel}: resolved ({', '.join(c[0] for c in merged.conflicts)}), "
                         "log resealed")
            continue
        if merged.text is None:
            files.append({"path": rel, "merged": False, "reason": merged.reason})
            lines.append(f"{rel}: left as it is ({merged.reason})")
            worst = 1
            continue
        store.atomic_write(os.path.join(root, rel), merged.text.encode("utf-8"))
        outcome = _outcome(rel, merged)
        files.append(outcome.result)
        lines.append(outcome.text)
        if merged.conflicts:
            worst = 1
        else:
            mark_resolved(root, rel)
    return Outcome({"files": files}, "\n".join(lines), worst)


def _chosen(root: str, rel: str, merged: Merged) -> str | None:
    """The work tree's file resealed, when it resolves the merge's conflicts by keeping one
    answer of each (and nothing else changed)."""
    from mdgrill.core.merge import resolution

    path = os.path.join(root, rel)
    if not merged.marks or not os.path.exists(path):
        return None
    return resolution(merged, _read(path), rel)


def _install(root: str) -> Outcome:
    """The driver runs this very mdgrill (its Python, `-m mdgrill`), so a merge finds it
    whether or not a virtual environment is on PATH; the config is this clone's own."""
    import shlex

    from mdgrill.git.vcs.merging import ARGS, ATTRIBUTES, install_driver

    command = f"{shlex.quote(sys.executable)} -m mdgrill"
    install_driver(root, command)
    driver = f"{command} {ARGS}"
    path = os.path.join(root, GITATTRIBUTES)
    old = _read(path) if os.path.exists(path) else ""
    missing = [line for line in ATTRIBUTES if line not in old.splitlines()]
    if missing:
        text = old + ("" if not old or old.endswith("\n") else "\n") + "\n".join(missing) + "\n"
        store.atomic_write(path, text.encode("utf-8"))
    return Outcome({"driver": driver, "gitattributes": missing},
                   f"git config merge.mdgrill.driver '{driver}' (this clone)\n"
                   + (f"{GITATTRIBUTES}: added {', '.join(missing)} (commit it so that "
                      "everyone merges specs this way)" if missing
                      else f"{GITATTRIBUTES} already routes .progress.md to it"))
