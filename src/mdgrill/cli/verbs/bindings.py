"""Decisions bound to code: `bind`, `drift`, `reaffirm`, `why` (docs/bindings.md).

Thin: each verb calls `services.bindings` (`services.bound_targets` for `drift`) and
prints. `drift` prints text, JSON, GitHub workflow annotations or SARIF (code scanning).
"""

from __future__ import annotations

import argparse
import os

from mdgrill.cli.verbs import Outcome, Verb, add_spec, spec_of
from mdgrill.errors import InputError
from mdgrill.services.bound_targets import question_text
from mdgrill.shell import store

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.services.bound_targets import Finding
    from mdgrill.services.result import Committed

FORMATS = ("text", "github", "sarif")


def _why_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="TARGET", help="a file, `file.py::symbol` or "
                   "`file.md#Heading`, repository-relative")


def _drift_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="spec folders to check (default: every spec in the repository)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text (default), github (workflow annotations on the targets) or "
                   "sarif (code scanning); --json prints mdgrill's own JSON")


def _decision_arguments(p: argparse.ArgumentParser, *, bind: bool) -> None:
    """What `bind` and `reaffirm` share: the spec, the decision, who, and --no-commit."""
    add_spec(p)
    p.add_argument("--decision-id", required=not bind, metavar="ID",
                   help="the settled decision (e.g. D1)" + (
                       "; without it, every decision's hand-written `- Binds:` targets not "
                       "bound yet" if bind else ""))
    p.add_argument("--by", metavar="NAME", help="who gave it (`Name <email>` or a name); "
                   "default: git's identity")
    p.add_argument("--no-commit", action="store_true", help="record it without committing")


def _bind_arguments(p: argparse.ArgumentParser) -> None:
    _decision_arguments(p, bind=True)
    p.intermixed = True  # type: ignore[attr-defined]  # TARGET... after the options
    p.add_argument("targets", nargs="*", metavar="TARGET",
                   help="what carries the decision out: a file, a glob (`src/pricing/**`), "
                   "`file.py::name` or `file.py::Class.method` (a test too), "
                   "`file.md#Heading`; none: the node's hand-written `- Binds:` targets")


def _reaffirm_arguments(p: argparse.ArgumentParser) -> None:
    _decision_arguments(p, bind=False)
    p.add_argument("--reply", required=True, metavar="TEXT",
                   help="the owner's selection, verbatim: `Still holds`, `Revise the "
                   "decision` or `The change was wrong` (or 1-3)")


def _commit_text(result: Committed) -> str:
    if result.commit:
        return f"\ncommitted {result.commit[:12]}"
    return f"\nnot committed: {result.commit_skipped}"


def _bind(args: argparse.Namespace) -> Outcome:
    from mdgrill.services.bindings import bind_decision

    done = bind_decision(spec_of(args), decision_id=args.decision_id, targets=args.targets,
                         by=args.by, no_commit=args.no_commit)
    if args.decision_id is None:
        lines = [f"bound {b['decision']} ({b['answer']}): "
                 + ", ".join(t["target"] for t in b["targets"])
                 for b in done.bound]
        return Outcome(done.data, "\n".join(lines) + _commit_text(done))
    lines = [f"bound {args.decision_id} ({done.answer}) at {done.at[:12]}:"]
    lines.extend(f"  {t['target']}  {str(t['fingerprint'])[:24]}…" for t in done.targets)
    lines.extend(f"warning: {w}" for w in done.warnings)
    return Outcome(done.data, "\n".join(lines) + _commit_text(done))


def _reaffirm(args: argparse.Namespace) -> Outcome:
    from mdgrill.services.bindings import reaffirm_decision

    result = reaffirm_decision(spec_of(args), decision_id=args.decision_id, reply=args.reply,
                               by=args.by, no_commit=args.no_commit)
    text = f"{args.decision_id} ({result.answer}): {result.selection}"
    if result.reopened:
        text += f"\nreopened: {', '.join(result.reopened)}"
        if result.reopened_phase:
            text += f" (the {result.reopened_phase} phase goes back: begin its interview " \
                    "under a new ID)"
    elif result.selection == "The change was wrong":
        text += "\nthe binding stands: `drift` stays red until the target is put back"
    return Outcome(result.data, text + _commit_text(result))


def _root(args: argparse.Namespace) -> str:
    from mdgrill.git.vcs import find_repo_root

    if args.root is not None:
        return os.path.abspath(str(args.root))
    root = find_repo_root(os.getcwd())
    if root is None:
        raise InputError("NOT_A_REPOSITORY", "not inside a git repository: run it in one, or "
                         "pass --root DIR")
    return root


def _drift(args: argparse.Namespace) -> Outcome:
    from mdgrill.services.bound_targets import PENDING, all_specs, drift

    if args.specs:
        specs = [store.resolve_spec(s, args.root) for s in args.specs]
        root = specs[0].root
    else:
        root = _root(args)
        specs = all_specs(root)
    findings = drift(specs, root)
    red = [f for f in findings if f.red]
    pending = [f for f in findings if f.status == PENDING]
    result: dict[str, object] = {
        "findings": [f.to_json() for f in findings], "drifted": len(red),
        "pending": len(pending), "bindings": len(findings) - len(pending)}
    if args.format == "github" and not getattr(args, "json", False):
        text = _github(findings)
    elif args.format == "sarif" and not getattr(args, "json", False):
        import json

        text = json.dumps(_sarif(findings), indent=2)
    else:
        text = _text(findings)
    return Outcome(result, text, 1 if red else 0)


def _text(findings: list[Finding]) -> str:
    if not findings:
        return "no bindings: bind a settled decision with `mdgrill bind SPEC --decision-id ID " \
               "TARGET`"
    lines: list[str] = []
    for f in findings:
        b = f.binding
        if f.status == "pending":
            lines.append(f"pending  {f.spec} {b.decision} -> {b.target}: written as `- Binds:`, "
                         f"not fingerprinted: run `mdgrill bind {f.spec} --decision-id "
                         f"{b.decision}`")
        elif f.red:
            lines.append(f"{f.status:<8} {f.spec} {question_text(f)}")
            for c in f.commits[:5]:
                lines.append(f"         {c.sha[:12]} {c.subject} ({c.author})")
            if f.uncommitted:
                lines.append("         (and changes not committed yet)")
            lines.append(f"         answer with `mdgrill reaffirm {f.spec} --decision-id "
                         f"{b.decision} --reply 'Still holds|Revise the decision|The change "
                         "was wrong'`")
    red = sum(f.red for f in findings)
    held = sum(f.status == "ok" for f in findings)
    lines.append(f"{red} drifted, {held} holding")
    return "\n".join(lines)


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github(findings: list[Finding]) -> str:
    """GitHub workflow commands: one `::error` annotation at each drifted target."""
    lines = []
    for f in findings:
        if f.red:
            title = f"{f.binding.decision} drifted ({f.status})"
            lines.append(f"::error file={_escape(f.path, True)},line={f.line},"
                         f"title={_escape(title, True)}::{_escape(question_text(f))}")
        elif f.status == "pending":
            lines.append(f"::warning file={_escape(f.spec, True)}/.progress.md,line="
                         f"{f.binding.line}::{_escape(f'{f.binding.target} is not bound yet')}")
    lines.append(f"{sum(f.red for f in findings)} drifted")
    return "\n".join(lines)


def _sarif(findings: list[Finding]) -> dict[str, object]:
    """SARIF 2.1.0, one result per drifted binding (rule: the kind of drift)."""
    from mdgrill import __version__

    rules = [{"id": f"mdgrill/drift-{kind}", "name": f"Binding{kind.title().replace('-', '')}",
              "shortDescription": {"text": f"A decision's bound target: {kind}"}}
             for kind in ("changed", "moved", "missing")]
    results = [{"ruleId": f"mdgrill/drift-{f.status}", "level": "error",
                "message": {"text": question_text(f)},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": f.path},
                    "region": {"startLine": f.line}}}],
                "properties": {"decision": f.binding.decision, "spec": f.spec,
                               "commits": [c.sha for c in f.commits]}}
               for f in findings if f.red]
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "mdgrill", "version": __version__,
                                          "informationUri": "https://github.com/",
                                          "rules": rules}},
                      "results": results}]}


def _why(args: argparse.Namespace) -> Outcome:
    from mdgrill.services.bindings import why

    root = _root(args)
    target = args.target
    if os.path.isabs(target):
        target = store.relpath_posix(target, root)
    found = why(root, target)
    result: dict[str, object] = {"target": target, "decisions": [r.to_json() for r in found]}
    if not found:
        return Outcome(result, f"no decision is bound to {target}")
    lines = []
    for r in found:
        b = r.binding
        lines.append(f"{r.spec} {b.decision}: {b.answer}")
        lines.append(f"  bound: {b.target} (at {b.at[:12]}, by {b.by or 'unnamed'})")
        lines.append(f"  approved by: {r.approved_by or 'not approved yet'}")
    return Outcome(result, "\n".join(lines))


VERBS = (
    Verb("bind", "Bind a settled decision to the code and docs that carry it out.",
         _bind_arguments, _bind),
    Verb("drift", "Check bound code and docs: exit 1 when one changed in substance since its "
         "binding.",
         _drift_arguments, _drift),
    Verb("reaffirm", "Record the owner's word on a drifted decision: still holds, revise, change "
         "was wrong.",
         _reaffirm_arguments, _reaffirm),
    Verb("why", "Show the decisions bound to a file, symbol or section, and who approved them.",
         _why_arguments, _why),
)
