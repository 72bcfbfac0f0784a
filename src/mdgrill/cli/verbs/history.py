"""History verbs (docs/contract.md): `log`, `review A..B`, `verify [SPEC]`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Iterator

from mdgrill.cli.verbs import Outcome, Verb, add_spec
from mdgrill.core.history import (
    PhaseWatch,
    added_blocks,
    glossary_terms,
    log_version,
    removal_notes,
    verify_glossary_history,
    verify_log_history,
)
from mdgrill.diagnostics import Diagnostic, format_diagnostic
from mdgrill.errors import InputError, MdgrillError
from mdgrill.git.discovery import in_repository
from mdgrill.shell import store
from mdgrill.shell.session import display

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.review import BoundView, SpecReview, TermView
    from mdgrill.formats.progress import Progress
    from mdgrill.git.vcs import TransitionCommit

GLOSSARY_NAMES = ("CONTEXT.md",)


def _log_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", nargs="?", help="default: every spec")


def _review_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("range", metavar="REV..REV", nargs="?",
                   help="A..B; REV alone is REV..HEAD; default: from the merge base with "
                   "the default branch to HEAD")
    _page_options(p)


def _report_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    _page_options(p)


def _verify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", nargs="?", help="default: every spec")
    p.add_argument("--signed", action="store_true", help="also require every approval "
                   "commit to carry a signature git trusts (`git verify-commit`)")


def _page_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--html", metavar="FILE", help="also write the review as one "
                   "self-contained HTML page (the tree drawn, every round, the approvals, the "
                   "counts; nothing fetched when it opens)")
    p.add_argument("--format", choices=["text", "github"], default="text",
                   help="text (default), or github: Markdown for a pull-request comment or a "
                   "job summary (folded rounds, a Mermaid tree)")


def _in_repository(handler: Callable[[argparse.Namespace, str], Outcome],
                   ) -> Callable[[argparse.Namespace], Outcome]:
    """Every history verb reads git: the repository is found (or refused) before it runs."""

    def run(args: argparse.Namespace) -> Outcome:
        return handler(args, _repo_root(args))

    return run


def _repo_root(args: argparse.Namespace) -> str:
    start = (os.path.dirname(os.path.abspath(args.spec)) if getattr(args, "spec", None)
             else args.root or os.getcwd())
    root = store.repository(start, args.root)
    if not in_repository(root):
        raise InputError("NOT_A_REPOSITORY", f"{display(start)} is not inside a git repository: "
                         f"`mdgrill {args.verb}` reads history")
    return root


def _spec_rel(args: argparse.Namespace, root: str) -> str | None:
    if not getattr(args, "spec", None):
        return None
    return store.resolve_spec(args.spec, root).rel_folder


def _log(args: argparse.Namespace, root: str) -> Outcome:
    from mdgrill.git import vcs

    spec = _spec_rel(args, root)
    commits = vcs.approval_commits(root, spec) if spec else vcs.all_transitions(root)
    entries = []
    lines = []
    for c in reversed(list(commits)):
        t = c.trailers
        entry = {"commit": c.sha, "date": c.date, "spec": t.get("Mdgrill-Spec"),
                 "phase": t.get("Mdgrill-Phase"), "interview": t.get("Mdgrill-Interview"),
                 "transition": t.get("Mdgrill-Transition"),
                 "context_digest": t.get("Mdgrill-Context-Digest"), "subject": c.subject,
                 "artifact": t.get("Mdgrill-Artifact"),
                 "artifact_sha256": t.get("Mdgrill-Artifact-Sha256"),
                 "reason": t.get("Mdgrill-Reason"), "by": t.get("Mdgrill-By")}
        entries.append(entry)
        if entry["transition"] == "reopen":
            what = f"reason: {entry['reason'] or '-'}"
        elif entry["artifact"]:
            what = f"{entry['artifact']} {str(entry['artifact_sha256'] or '-')[:12]}"
        else:
            what = str(entry["context_digest"] or "-")[:12]
        by = f"  by {entry['by']}" if entry["by"] else ""
        lines.append(f"{c.date[:19]}  {c.sha[:10]}  {entry['spec']}  {entry['phase']}  "
                     f"{entry['interview'] or '-'}  {entry['transition']}  {what}{by}")
    shallow = bool(getattr(commits, "shallow", False))
    if shallow:
        lines.append("note: this is a shallow clone, so the history is incomplete: transitions "
                     "before its cut are not shown (`git fetch --unshallow` to see them)")
    return Outcome({"transitions": entries, "shallow": shallow},
                   "\n".join(lines) or "no transitions recorded")


def _range(args: argparse.Namespace, root: str) -> tuple[str, str]:
    from mdgrill.git import vcs

    if args.range:
        if "..." in args.range:
            raise InputError("USAGE", f"review takes a range A..B (two dots), not "
                             f"`{args.range}`; omit it to review from the merge base with the "
                             "default branch to HEAD")
        a, _, b = args.range.partition("..")  # `REV` alone: REV..HEAD
        a, b = a or "HEAD", b or "HEAD"
    else:
        base = vcs.merge_base_with_default(root)
        if base is None:
            raise InputError("NOT_FOUND", "no default branch (origin/HEAD, main or master) shares "
                             "history with HEAD: give a range, e.g. `mdgrill review A..B`")
        a, b = base, "HEAD"
    sha_a, sha_b = vcs.rev_parse(root, a), vcs.rev_parse(root, b)
    for name, sha in ((a, sha_a), (b, sha_b)):
        if sha is None:
            raise InputError("NOT_FOUND", f"`{name}` names no commit in this repository: give "
                             "a branch, tag or commit id")
    assert sha_a is not None and sha_b is not None
    return sha_a, sha_b


def _review(args: argparse.Namespace, root: str) -> Outcome:
    from mdgrill.git import vcs

    a, b = _range(args, root)
    changed = vcs.changed_files(root, a, b)
    progress = sorted(p for p in changed if os.path.basename(p) == store.PROGRESS)
    glossaries = sorted(p for p in changed if os.path.basename(p) in GLOSSARY_NAMES)
    # One `git cat-file` process for every version the review reads.
    wanted = [(rev, rel) for rel in progress + glossaries for rev in (a, b)]
    blobs = dict(zip(wanted, vcs.blobs_at(root, wanted), strict=True))
    specs: list[dict[str, object]] = []
    out = [f"## Grill review {a[:10]}..{b[:10]}", ""]
    for rel in progress:
        old = log_version(blobs[(a, rel)] or b"", rel)
        new = log_version(blobs[(b, rel)] or b"", rel)
        blocks = added_blocks(old, new)
        if not blocks:
            continue
        spec = os.path.dirname(rel) or "."
        specs.append({"spec": spec, "path": rel,
                      "blocks": [{"title": t, "text": x} for t, x in blocks]})
        out += [f"### {spec}", ""]
        from mdgrill.core.review import with_questions

        titles = _titles(blobs[(b, rel)], rel)
        for _, text in blocks:
            text = with_questions(text, titles)
            out.append("#" + text if text.startswith("### ") else text)
            out.append("")
    terms: list[dict[str, object]] = []
    for rel in glossaries:
        old_terms = glossary_terms(blobs[(a, rel)], rel) or {}
        new_terms = glossary_terms(blobs[(b, rel)], rel) or {}
        added = [t for t in new_terms if t not in old_terms]
        updated = [t for t in new_terms if t in old_terms and new_terms[t][0] != old_terms[t][0]]
        if not added and not updated:
            continue
        terms.append({"path": rel, "added": added, "updated": updated,
                      "definitions": {t: new_terms[t][0] for t in added + updated}})
        out += [f"### Glossary {rel}", ""]
        out.extend(f"- **{name}**: {_one_line(new_terms[name][0])}" for name in added)
        out.extend(f"- **{name}** (updated): {_one_line(new_terms[name][0])}" for name in updated)
        out.append("")
    if not specs and not terms:
        out.append("No rounds or glossary entries were added in this range.")
        if a == b:  # the range is empty: on the default branch, the merge base is HEAD
            out += ["", f"The range {a[:10]}..{b[:10]} holds no commit: on the default branch "
                    "there is nothing to compare with. Name where to start: `mdgrill review "
                    "HEAD~5` (the last five commits), or `mdgrill report <spec folder> --html "
                    "FILE` for one spec's whole interview."]
    result: dict[str, object] = {"range": f"{a}..{b}", "base": a, "head": b, "specs": specs,
                                 "terms": terms}
    text = "\n".join(out).rstrip() + "\n"
    if args.html or args.format == "github":
        from mdgrill.core.review import term_changes, terms_of

        reviews = [_spec_review(root, rel, blobs[(b, rel)], blobs[(a, rel)], b, a[:10])
                   for rel in progress]
        changed_terms = [(rel, changes) for rel in glossaries
                         if (changes := term_changes(terms_of(blobs[(a, rel)], rel),
                                                     terms_of(blobs[(b, rel)], rel)))]
        title = f"Grill review {a[:10]}..{b[:10]}"
        text = _pages(args, title, "What the interview recorded in this range.",
                      [r for r in reviews if r is not None], changed_terms, result,
                      _drifted(root, None)) or text
    return Outcome(result, text)


def _titles(data: bytes | None, rel: str) -> dict[str, str]:
    """Node ID -> its question, in one version of a `.progress.md` ({} if it does not read)."""
    from mdgrill.formats.progress import read_progress

    try:
        return {n.id: n.title for n in read_progress(data or b"", rel).nodes}
    except MdgrillError:
        return {}


def _report(args: argparse.Namespace, root: str) -> Outcome:
    """One spec's whole interview, as a page or a comment (its file as it is on disk)."""
    spec = store.resolve_spec(args.spec, root)
    data = store.read_file(spec.progress, spec.rel_progress, root)
    review = _spec_review(root, spec.rel_progress, data, None, "HEAD", None)
    if review is None:
        raise InputError("MALFORMED_FILE", f"{spec.rel_progress} does not read: run `mdgrill "
                         "validate` to see why")
    result: dict[str, object] = {"spec": spec.rel_folder, "counts": review.counts,
                                 "decisions": len(review.nodes), "rounds": len(review.blocks),
                                 "approvals": len(review.approvals)}
    counts = ", ".join(f"{n} {s}" for s, n in review.counts.items() if n) or "no decisions"
    drifted = _drifted(root, [spec.rel_folder]) if args.html or args.format == "github" \
        else None
    text = _pages(args, f"Grill report: {review.title}", f"The whole interview of "
                  f"{spec.rel_folder}.", [review], [], result, drifted) or \
        f"{spec.rel_folder}: {len(review.nodes)} decisions ({counts}), {len(review.blocks)} " \
        f"blocks, {len(review.approvals)} approvals\n"
    return Outcome(result, text)


def _spec_review(root: str, rel: str, new: bytes | None, old: bytes | None, head: str,
                 since: str | None) -> SpecReview | None:
    """The review of one `.progress.md` (None when its new version does not read)."""
    from mdgrill.core.review import attach_commits, spec_review
    from mdgrill.formats.progress import read_progress
    from mdgrill.git import vcs

    try:
        new_prog = read_progress(new or b"", rel)
    except MdgrillError:
        return None
    try:
        old_prog = read_progress(old, rel) if old else None
    except MdgrillError:
        old_prog = None
    folder = os.path.dirname(rel) or "."
    review = spec_review(folder, new_prog, old_prog if since is not None else None)
    review.since = since
    if since is not None and old_prog is None:
        review.since = None  # a spec new in the range: everything in it is new
        for block in review.blocks:
            block.new = True
    try:
        commits = [(c.sha, c.date, c.trailers) for c in vcs.approval_commits(root, folder, head)]
    except MdgrillError:
        commits = []
    attach_commits(review, commits)
    return review


def _drifted(root: str, folders: list[str] | None) -> list[BoundView] | None:
    """The bound decisions that drifted, as `drift` finds them now (None: nothing bound)."""
    from mdgrill.core.review import BoundView
    from mdgrill.services.bound_targets import MOVED, drifted_now, question_text

    found = drifted_now(root, folders)
    if found is None:
        return None
    return [BoundView(f.spec, f.binding.decision, f.binding.answer,
                      f.binding.target + (f" → {f.now}" if f.status == MOVED else ""),
                      f"{f.status}: {question_text(f)}") for f in found]


def _pages(args: argparse.Namespace, title: str, subtitle: str, reviews: list[SpecReview],
           glossaries: list[tuple[str, list[TermView]]], result: dict[str, object],
           drifted: list[BoundView] | None = None) -> str | None:
    """Write the HTML page (--html) and give the GitHub comment (--format github), with the
    bound decisions that drifted and those reaffirmed."""
    from mdgrill.core.review import reaffirmed_of

    if drifted is not None:
        result["drifted"] = [d.to_json() for d in drifted]
    reaffirmed = [r.to_json() for review in reviews for r in reaffirmed_of(review)]
    if reaffirmed:
        result["reaffirmed"] = reaffirmed
    if args.html:
        from mdgrill.core.review_page import page

        html = page(title, reviews, subtitle, glossaries, drifted)
        store.atomic_write(os.path.abspath(args.html), html.encode("utf-8"))
        result["html"] = os.path.abspath(args.html)
    if args.format == "github":
        from mdgrill.core.review_markdown import comment

        markdown = comment(title, reviews, subtitle, glossaries, drifted)
        result["markdown"] = markdown
        return markdown
    return f"wrote {display(os.path.abspath(args.html))}\n" if args.html else None


def _shown(root: str, rel: str) -> str:
    return display(os.path.join(root, *rel.split("/")))


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Last:
    """Passes a file's versions through, keeping the last one's bytes."""

    __slots__ = ("versions", "data")

    def __init__(self, versions: Iterable[tuple[str, bytes]]) -> None:
        self.versions = versions
        self.data = b""

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for sha, data in self.versions:
            self.data = data
            yield sha, data


def _approved_bytes(root: str, rel: str, committed: bytes | None = None,
                    parsed: Progress | None = None) -> list[Diagnostic]:
    """Commits that changed an approved artifact, read from the committed record at HEAD
    (`committed`: its bytes, already read; `parsed`: their parse, under the name shown)."""
    from mdgrill.formats.progress import read_progress
    from mdgrill.shell.drift import history_diagnostics
    from mdgrill.shell.snapshots import head_version

    if committed is None:
        committed = head_version(root, os.path.join(root, rel))
    if committed is None:
        return []
    try:
        prog = read_progress(committed, rel) if parsed is None else parsed
    except MdgrillError:
        return []
    folder = os.path.dirname(rel) or "."
    from mdgrill.core.artifact_gate import log_blocks
    from mdgrill.diagnostics import error
    from mdgrill.shell.journal import unmatched_approvals

    unvouched = [error(rel, block.line + 1, "APPROVAL_NOT_EVIDENCED",
                       f"the approval of interview {block.first('Interview')} names the reply "
                       f"{sha[:12]}…, which the reply journal does not hold: the approval was "
                       "not captured by the hooks (or the journal was cut)")
                 for block, sha in unmatched_approvals(root, log_blocks(
                     prog, frozenset({"confirmed"})))]
    return history_diagnostics(root, folder, prog) + unvouched


def _unsigned(root: str, spec: str | None, transitions: list[TransitionCommit],
              ) -> list[Diagnostic]:
    """`--signed`: the approval commits git cannot verify a signature of."""
    from mdgrill.diagnostics import error
    from mdgrill.git.vcs import verify_commit

    out = []
    for commit in transitions:
        if spec is not None and commit.trailers.get("Mdgrill-Spec") != spec:
            continue
        signed, why = verify_commit(root, commit.sha)
        if not signed:
            out.append(error(commit.trailers.get("Mdgrill-Spec", "?") + "/" + store.PROGRESS, 1,
                             "APPROVAL_NOT_SIGNED",
                             f"approval commit {commit.sha[:12]} ({commit.subject}) carries no "
                             f"signature git trusts ({why}): sign approvals (`git config "
                             "commit.gpgsign true`) or drop --signed"))
    return out


def _unlogged(root: str, spec: str | None, transitions: list[TransitionCommit],
              ) -> list[Diagnostic]:
    """Approval commits whose own `.progress.md` does not log the approval they claim."""
    from mdgrill.core.history import LOGGED_BY_TRANSITION, unlogged_approval
    from mdgrill.git import vcs

    claimed = [c for c in transitions
               if c.trailers.get("Mdgrill-Transition") in LOGGED_BY_TRANSITION
               and (spec is None or c.trailers.get("Mdgrill-Spec") == spec)]
    rels = [_progress_of(c.trailers.get("Mdgrill-Spec", ".")) for c in claimed]
    blobs = vcs.blobs_at(root, [(c.sha, rel) for c, rel in zip(claimed, rels, strict=True)])
    found = (unlogged_approval(c.sha, c.trailers, blob, _shown(root, rel))
             for c, rel, blob in zip(claimed, rels, blobs, strict=True))
    return [d for d in found if d is not None]


def _progress_of(folder: str) -> str:
    folder = folder.strip("/")
    return f"{folder}/{store.PROGRESS}" if folder not in ("", ".") else store.PROGRESS


def _verify(args: argparse.Namespace, root: str) -> Outcome:
    from mdgrill.checks.spec.entry import check_approval_scope, check_asked
    from mdgrill.formats.progress import read_progress
    from mdgrill.git import vcs

    spec = _spec_rel(args, root)
    tracked = vcs.tracked_files(root)
    if spec is not None:
        progress_files = [f"{spec}/{store.PROGRESS}" if spec != "." else store.PROGRESS]
        glossaries: list[str] = []
    else:
        progress_files = [p for p in tracked if os.path.basename(p) == store.PROGRESS]
        glossaries = [p for p in tracked if os.path.basename(p) == "CONTEXT.md"]
    diagnostics: list[Diagnostic] = []
    stats: dict[str, int] = {}
    removed: set[str] = set()
    transitions = vcs.all_transitions(root)
    approvals = {c.sha for c in transitions
                 if c.trailers.get("Mdgrill-Transition") == "approve-artifact"}
    reopens = {c.sha for c in transitions if c.trailers.get("Mdgrill-Transition") == "reopen"}
    for rel in progress_files:
        parents: dict[str, list[str]] = {}  # filled before the first version comes
        history = vcs.iter_file_history(root, rel, parents=parents)
        last = _Last(history)
        watch = PhaseWatch(last, _shown(root, rel), approvals, reopens, parents)
        try:
            diagnostics.extend(verify_log_history(watch, _shown(root, rel), stats, parents))
        finally:
            history.close()
        diagnostics.extend(watch.diagnostics)
        now = None
        try:  # rounds are append-only: the file now holds every removal note ever recorded
            data = store.read_file(os.path.join(root, rel), rel, root)
            now = read_progress(data, _shown(root, rel))
            removed |= removal_notes(now)
            # an asked decision that vanished by hand (issue 31.5) is no edit of a recorded
            # block, so the history walk cannot see it: the file now is held to its rounds
            diagnostics.extend(check_asked(now))
            # nor is a tree, answer or brief rewritten after approval and committed (the
            # approval's scope, issue 30): recomputed on the file as it is
            diagnostics.extend(check_approval_scope(now))
        except MdgrillError:
            pass
        # HEAD's version is the newest the walk read (the history of the file as HEAD
        # explains it: no later commit changed it); when the file on disk holds the same
        # bytes, its parse is the committed record's
        committed = last.data or None
        same = now if now is not None and committed is not None and \
            now.tf.raw == committed else None
        diagnostics.extend(_approved_bytes(root, rel, committed, same))
    for rel in glossaries:
        glossary_parents: dict[str, list[str]] = {}
        history = vcs.iter_file_history(root, rel, parents=glossary_parents)
        try:
            versions = list(history)
        finally:
            history.close()
        stats["glossary"] = stats.get("glossary", 0) + len(versions)
        diagnostics.extend(verify_glossary_history(versions, _shown(root, rel), removed,
                                                   glossary_parents))
    diagnostics.extend(_unlogged(root, spec, transitions))
    from mdgrill.services.channels import signature_diagnostics

    diagnostics.extend(signature_diagnostics(root, spec, transitions))
    if getattr(args, "signed", False):
        diagnostics.extend(_unsigned(root, spec, transitions))
    shallow = vcs.is_shallow(root)
    versions_read = sum(stats.values())
    errors = [d for d in diagnostics if d.severity == "error"]
    text = "\n".join(format_diagnostic(d) for d in diagnostics)
    summary = (f"verified {len(progress_files)} spec(s), {len(glossaries)} glossar"
               f"{'y' if len(glossaries) == 1 else 'ies'}, {versions_read} version(s): "
               f"{len(errors)} problem(s)")
    if shallow:
        summary += "\nnote: this is a shallow clone: history before its cut was not checked " \
                   "(`git fetch --unshallow` to check all of it)"
    return Outcome({"diagnostics": [d.to_json() for d in diagnostics],
                    "specs": len(progress_files), "glossaries": len(glossaries),
                    "versions": versions_read, "shallow": shallow},
                   (text + "\n" if text else "") + summary, 1 if errors else 0)


VERBS = (
    Verb("log", "List the approved transitions of a spec from git commit trailers.",
         _log_arguments, _in_repository(_log)),
    Verb("review", "Print the rounds and terms added between two revisions, for a PR.",
         _review_arguments, _in_repository(_review)),
    Verb("report", "One spec's whole interview as a self-contained HTML page or a PR comment.",
         _report_arguments, _in_repository(_report)),
    Verb("verify", "Walk git history: fail where a recorded block or term was changed.",
         _verify_arguments, _in_repository(_verify)),
)
