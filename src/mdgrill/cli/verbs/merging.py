"""Merging a spec two branches changed: `merge-file` (git's merge driver), `merge` (after a
merge, rebase or cherry-pick that ran without the driver), `install-merge-driver`."""

from __future__ import annotations

import argparse
import os
import sys

from mdgrill.cli.verbs import Outcome, Verb
from mdgrill.core.merge import Merged, merge_progress, resolution
from mdgrill.errors import InputError
from mdgrill.formats.textfile import TextFile, decode
from mdgrill.shell import store

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

GITATTRIBUTES = ".gitattributes"


def _merge_file_arguments(p: argparse.ArgumentParser) -> None:
    for name, what in (("base", "the common ancestor's version (git's %%O)"),
                       ("ours", "our version, where the result is written (git's %%A)"),
                       ("theirs", "their version (git's %%B)"),
                       ("path", "the file's path in the repository (git's %%P)")):
        p.add_argument(name, metavar=name.upper(), help=what)


def _install_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--command", metavar="CMD", help="how git starts mdgrill for a merge, "
                   "e.g. `uvx mdgrill` (default: `mdgrill` from PATH, else this Python, "
                   "else git's own line merge)")


def _merge_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", metavar="PATH", nargs="*", help="conflicted .progress.md, "
                   "CONTEXT.md or CONTEXT-MAP.md files (default: every one git has in "
                   "conflict)")


def _repository(args: argparse.Namespace) -> str:
    from mdgrill.git.discovery import in_repository
    from mdgrill.shell.session import display

    root = store.repository(args.root or os.getcwd(), args.root)
    if not in_repository(root):
        raise InputError("NOT_A_REPOSITORY", f"{display(root)} is not inside a git repository")
    return root


def _install_verb(args: argparse.Namespace) -> Outcome:
    return _install(_repository(args), args.command)


def _merge_verb(args: argparse.Namespace) -> Outcome:
    return _merge(args, _repository(args))


MERGED_FILES = (store.PROGRESS, "CONTEXT.md", "CONTEXT-MAP.md")  # what the driver merges


def _read(path: str) -> TextFile:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError("UNREADABLE", f"{path} cannot be read ({exc.strerror}): check the "
                         "path", path=path) from None
    return decode(data, path)


def _merger(path: str) -> Callable[[str, str, str, str], Merged]:
    name = os.path.basename(path)
    if name not in ("CONTEXT.md", "CONTEXT-MAP.md"):
        return merge_progress  # the glossary's reader is not loaded for a spec's merge
    from mdgrill.core.merge_terms import merge_by_line, merge_glossary

    return merge_glossary if name == "CONTEXT.md" else merge_by_line


def _write(path: str, text: str, bom: bool) -> None:
    """The merged text, with the BOM the file had (ours)."""
    store.atomic_write(path, TextFile(text, bom).encode())


def _merge_file(args: argparse.Namespace) -> Outcome:
    """As git's merge driver: the merge into OURS; exit 0 when clean, 1 with conflicts."""
    for given in (args.base, args.ours, args.theirs):
        if not os.path.isfile(given):
            raise InputError("NOT_A_FILE", f"{given} is not a file: git passes the three "
                             "versions as files (%O %A %B)", path=given)
    bom = False
    try:
        base, ours, theirs = (_read(p) for p in (args.base, args.ours, args.theirs))
        bom = ours.bom
        merged = _merger(args.path)(base.text, ours.text, theirs.text, args.path)
    except InputError as exc:  # a version that does not decode: git's line merge keeps it
        merged = Merged.cannot(exc.message)
    if merged.text is not None:
        _write(args.ours, merged.text, bom)
        return _outcome(args.path, merged)
    # what mdgrill cannot merge is left to a person as git would have left it
    from mdgrill.git.discovery import find_root
    from mdgrill.git.vcs.merging import git_merge_file

    root = find_root(os.path.dirname(os.path.abspath(args.ours)))
    text, conflicts = git_merge_file(root, args.ours, args.base, args.theirs)
    store.atomic_write(args.ours, text)
    print(f"mdgrill: {args.path}: not merged by mdgrill ({merged.reason}); git's conflict "
          "markers are left for you", file=sys.stderr)
    return Outcome({"path": args.path, "merged": False, "reason": merged.reason,
                    "conflicts": conflicts}, f"{args.path}: left to git ({merged.reason})",
                   1)


def _outcome(path: str, merged: Merged) -> Outcome:
    result: dict[str, object] = {
        "path": path, "merged": not merged.in_conflict, "notes": merged.notes,
        "conflicts": [{"decision": d, "ours": o, "theirs": t} for d, o, t in merged.conflicts],
        "clashes": [{"where": where, "ours": c.ours, "theirs": c.theirs}
                    for where, c in merged.clashes]}
    if merged.in_conflict:
        what = "terms defined" if os.path.basename(path) == "CONTEXT.md" else "decisions answered"
        named = "; ".join([f"{d}: ours `{o}`, theirs `{t}`" for d, o, t in merged.conflicts]
                          + [f"{where} changed two ways" for where, _ in merged.clashes])
        said = f"{what} differently on the two sides" if merged.conflicts else "conflicts"
        print(f"mdgrill: {path}: {said} ({named}): in each pair of markers keep one side (for "
              "an answer exactly one; other text as you see fit), then run `mdgrill merge`",
              file=sys.stderr)
        return Outcome(result, f"{path}: conflict on {named}", 1)
    return Outcome(result, f"{path}: merged" + "".join(f"; {n}" for n in merged.notes))


_MARKERS = ("<<<<<<< ", ">>>>>>> ")  # not `=======` alone: a setext heading's underline


def _has_markers(text: str) -> bool:
    return any(line.startswith(_MARKERS) for line in text.splitlines())


def _merge(args: argparse.Namespace, root: str) -> Outcome:
    """Redo the merge of each conflicted spec file from git's index stages (or, when they
    are gone, from the commits of the merge in progress), or seal a person's resolution."""
    from mdgrill.git.vcs.merging import unmerged_paths

    wanted = [store.relpath_posix(os.path.abspath(p), root) for p in args.paths] or \
        [p for p in unmerged_paths(root) if os.path.basename(p) in MERGED_FILES]
    if not wanted:
        return Outcome({"files": []}, "no conflicted .progress.md, CONTEXT.md or "
                       "CONTEXT-MAP.md")
    files: list[dict[str, object]] = []
    lines: list[str] = []
    worst = 0
    for rel in wanted:
        entry = _merge_one(root, rel)
        files.append(entry.result)
        lines.append(entry.text)
        worst = max(worst, entry.exit_code)
    return Outcome({"files": files}, "\n".join(lines), worst)


def _versions(root: str, rel: str) -> tuple[bytes | None, bytes | None, bytes | None, str]:
    from mdgrill.git.vcs.merging import index_stages, operation_versions

    base, ours, theirs = index_stages(root, rel)
    if ours is not None and theirs is not None:
        return base, ours, theirs, "the index"
    found = operation_versions(root, rel)
    if found is None:
        return None, None, None, ""
    return (*found, "the commits being merged")


def _merge_one(root: str, rel: str) -> Outcome:
    from mdgrill.git.vcs.merging import mark_resolved

    path = os.path.join(root, rel)
    if os.path.basename(rel) not in MERGED_FILES:
        raise InputError("INVALID_INPUT", f"{rel} is not a .progress.md, CONTEXT.md or "
                         "CONTEXT-MAP.md: resolve it with git")
    base, ours, theirs, source = _versions(root, rel)
    if ours is None or theirs is None:
        why = "no merge, cherry-pick or rebase is in progress" if not source else \
            "a side of the merge does not have it"
        return Outcome({"path": rel, "merged": False, "reason": f"not in conflict ({why})"},
                       f"{rel}: not in conflict ({why}): nothing to redo")
    try:
        texts = [decode(b or b"", rel) for b in (base, ours, theirs)]
        work = _read(path) if os.path.exists(path) else None
    except InputError as exc:
        return Outcome({"path": rel, "merged": False, "reason": exc.message},
                       f"{rel}: left as it is ({exc.message})", 1)
    bom = texts[1].bom or (work is not None and work.bom)
    merged = _merger(rel)(texts[0].text, texts[1].text, texts[2].text, rel)
    if merged.in_conflict and work is not None and not _has_markers(work.text):
        # the person resolved the conflicts: a spec is checked and resealed, a glossary is theirs
        chosen = resolution(merged, work.text, rel) if merged.pattern else work.text
        if chosen is not None:
            _write(path, chosen, bom)
            mark_resolved(root, rel)
            resolved = [c[0] for c in merged.conflicts] + [w for w, _ in merged.clashes]
            return Outcome({"path": rel, "merged": True, "resolved": resolved,
                            "source": source},
                           f"{rel}: resolved ({', '.join(resolved)})"
                           + (", log resealed" if merged.pattern else ""))
    if merged.text is None:
        return Outcome({"path": rel, "merged": False, "reason": merged.reason},
                       f"{rel}: left as it is ({merged.reason})", 1)
    _write(path, merged.text, bom)
    outcome = _outcome(rel, merged)
    outcome.result["source"] = source
    if not merged.in_conflict:
        mark_resolved(root, rel)
    return outcome


def _driver(command: str | None) -> str:
    """The command git runs (through the shell) for a merge. Given one, that; else the first
    that exists where the merge runs: `mdgrill` on PATH (a teammate's clone, a CI runner),
    the Python that installed the driver, and, when neither does, git's own line merge, so a
    missing mdgrill leaves both sides in markers instead of failing with ours alone."""
    import shlex

    from mdgrill.git.vcs.merging import ARGS

    if command:
        return f"{command} {ARGS}"
    python = shlex.quote(sys.executable)
    return (f"if command -v mdgrill >/dev/null 2>&1; then mdgrill {ARGS}; "
            f"elif [ -x {python} ]; then {python} -m mdgrill {ARGS}; "
            "else git merge-file -L ours -L base -L theirs %A %O %B; fi")


def _install(root: str, command: str | None) -> Outcome:
    """The driver in this clone's config, and `.gitattributes` routing the spec files to it
    (commit that file: every clone that installs the driver then merges specs this way)."""
    from mdgrill.git.vcs.merging import ATTRIBUTES, install_driver

    driver = _driver(command)
    install_driver(root, driver)
    path = os.path.join(root, GITATTRIBUTES)
    old = _read(path).text if os.path.exists(path) else ""
    missing = [line for line in ATTRIBUTES if line not in old.splitlines()]
    if missing:
        text = old + ("" if not old or old.endswith("\n") else "\n") + "\n".join(missing) + "\n"
        store.atomic_write(path, text.encode("utf-8"))
    return Outcome({"driver": driver, "gitattributes": missing},
                   f"git config merge.mdgrill.driver (this clone): {driver}\n"
                   "It runs `mdgrill` from PATH where there is one, else this Python; without "
                   "either, git's own line merge. Each clone runs `mdgrill install-merge-driver` "
                   "once (git keeps drivers out of the repository).\n"
                   + (f"{GITATTRIBUTES}: added {', '.join(missing)} (commit it so that "
                      "everyone merges specs this way)" if missing
                      else f"{GITATTRIBUTES} already routes the spec files to it"))


VERBS = (
    Verb("merge-file", "git's merge driver for the spec files: BASE OURS THEIRS PATH (see install-"
         "merge-driver).",
         _merge_file_arguments, _merge_file),
    Verb("merge", "Merge conflicted spec files again, or seal the conflicts you resolved.",
         _merge_arguments, _merge_verb),
    Verb("install-merge-driver", "Route spec files' merges to mdgrill: git config and "
         ".gitattributes.",
         _install_arguments, _install_verb),
)
