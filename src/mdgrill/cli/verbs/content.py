"""Content verbs: `init`, `node add`, `frontier`, `term add`."""

from __future__ import annotations

import argparse
import os
import time

from mdgrill.cli.verbs import Outcome, require_spec_name, spec_of
from mdgrill.core.machine import require_id
from mdgrill.errors import InputError
from mdgrill.formats.frontmatter import render_entry
from mdgrill.formats.progress import Change, Progress, single_line
from mdgrill.model.record import BLOCK_LISTS, PHASES
from mdgrill.model.tree import new_node_id, render_node, spec_frontier
from mdgrill.shell import store
from mdgrill.shell.session import display, load, transaction

MAX_OPTIONS = 4


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    if verb == "init":
        p.add_argument("spec", metavar="SPEC", help="spec folder to create (e.g. specs/login)")
        p.add_argument("--goal", required=True, metavar="TEXT", help="the spec's goal, one line")
        p.add_argument("--title", metavar="TEXT", help="H1 title (default: from the folder name)")
        p.add_argument("--required-section", action="append", default=[], metavar="S",
                       help="a section that needs a resolved decision before approval")
        p.add_argument("--phase", choices=PHASES, default="start", help="the phase the spec "
                       "starts in (default: start)")
    elif verb == "node":
        sub = p.add_subparsers(dest="action", metavar="add", required=True)
        add = sub.add_parser("add", help="add a node to the design tree", allow_abbrev=False)
        add.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
        add.add_argument("id", metavar="ID", nargs="?", help="the node's ID (D1, auth.users); "
                         "leave it out for one two branches will not both take (D3f9a)")
        add.add_argument("--title", required=True, metavar="T", help="the question")
        add.add_argument("--section", metavar="S", help="the part of the spec it belongs to "
                         "(e.g. pricing); init --required-section names the ones that must "
                         "be settled")
        add.add_argument("--depends-on", action="append", default=[], metavar="ID",
                         help="the ID of a node that must be settled (answered or out of "
                         "scope) before this one is asked; repeat it for several")
        add.add_argument("--spawned-by", metavar="ID", help="the ID of the answered node "
                         "whose answer raised this sub-question (it is asked first)")
        add.add_argument("--option", action="append", default=[], metavar="T",
                         help="one option, as `label` or `label: why`; repeat it: 2 to 4 "
                         "options")
        add.add_argument("--recommend", type=int, metavar="N", help="which option (1-based) "
                         "is recommended; it is listed first")
        add.add_argument("--evidence", metavar="T", help="what the repository already shows")
        add.add_argument("--investigating", metavar="T", help="a fact lookup still running")
        add.add_argument("--recommendation", metavar="T",
                         help="the recommended answer in words (default: the --recommend option)")
        add.add_argument("--rationale", metavar="T", help="why that is recommended")
        add.add_argument("--tradeoff", "--tradeoffs", dest="tradeoffs", metavar="T",
                         help="the material tradeoff of the choice")
        add.add_argument("--consequence", "--consequences", dest="consequences", metavar="T",
                         help="what changes in the artifact with each answer")
        add.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON object on stdout")
    elif verb == "frontier":
        p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
        p.add_argument("--group", choices=["section"], help="keep each batch to one section")


def run(args: argparse.Namespace) -> Outcome:
    if args.verb == "init":
        return _init(args)
    if args.verb == "node":
        return _node_add(args)
    return _frontier(args)


def _init(args: argparse.Namespace) -> Outcome:
    spec = store.resolve_spec(args.spec, args.root, must_exist=False)
    goal = single_line(args.goal, "--goal")
    if os.path.lexists(spec.progress):
        raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists: mdgrill "
                         "never overwrites an interview")
    name = os.path.basename(os.path.normpath(spec.folder))
    require_spec_name(name)
    title = single_line(args.title, "--title") if args.title else \
        name.replace("-", " ").replace("_", " ").capitalize()
    sections = [single_line(s, "--required-section") for s in args.required_section]
    front: list[str] = []
    for key, value in (("mdgrill", 1), ("spec", name), ("goal", goal), ("phase", args.phase),
                       ("mode", "interactive"), ("required_sections", sections),
                       ("interview", None), ("skills", [])):
        front.extend(render_entry(key, value, 0, BLOCK_LISTS))
    from importlib.resources import files

    template = files("mdgrill.templates").joinpath("progress.md").read_text(encoding="utf-8")
    text = template.replace("{{front_matter}}", "\n".join(front)).replace(
        "{{title}}", title).replace("{{goal}}", goal)
    # Checked before creating anything: realpath resolves a symlinked parent of a folder
    # that does not exist yet, and makedirs would follow it out of the repository.
    if not store.is_inside(spec.folder, spec.root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{args.spec} is outside the repository")
    os.makedirs(spec.folder, exist_ok=True)
    with store.Lock(spec.folder):
        if os.path.lexists(spec.progress):
            raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists")
        store.atomic_write(spec.progress, text.encode("utf-8"))
    from mdgrill.services.approvals import ignored_warning

    ignored = ignored_warning(spec)
    return Outcome({"spec": spec.rel_folder, "path": spec.rel_progress, "written": True,
                    "warnings": [ignored] if ignored else []},
                   f"created {display(spec.progress)}" + (f"\nwarning: {ignored}" if ignored
                                                          else ""))


def _node_add(args: argparse.Namespace) -> Outcome:
    spec = spec_of(args)
    given = require_id(args.id, "node ID") if args.id is not None else None
    title = single_line(args.title, "--title")
    deps = [require_id(d, "dependency ID") for d in args.depends_on]
    parent = require_id(args.spawned_by, "parent ID") if args.spawned_by else None
    options = [single_line(o, "--option") for o in args.option]
    if options and not 2 <= len(options) <= MAX_OPTIONS:
        raise InputError("INVALID_OPTIONS", f"a node has 2 to {MAX_OPTIONS} options, not "
                         f"{len(options)}")
    if args.recommend is not None and not 1 <= args.recommend <= len(options):
        raise InputError("INVALID_OPTIONS", f"--recommend {args.recommend} names no option "
                         f"(there are {len(options)})")
    if any("(recommended)" in o.lower() for o in options):
        raise InputError("INVALID_OPTIONS", "mark the recommended option with --recommend N, "
                         "not in its text")
    extra = [(key, single_line(value, f"--{key.lower()}")) for key, value in
             (("Evidence", args.evidence), ("Investigating", args.investigating),
              ("Recommendation", args.recommendation), ("Rationale", args.rationale),
              ("Tradeoffs", args.tradeoffs), ("Consequences", args.consequences)) if value]

    # who adds it, and when: two branches do not both draw the same ID (asked only when needed)
    from mdgrill.git.identity import git_identity

    salt = f"{git_identity(spec.root) or ''}\0{time.time_ns()}" if given is None else ""

    def step(prog: Progress) -> tuple[Change, dict[str, object]]:
        known = set(prog.node_ids())
        node_id = given if given is not None else new_node_id(title, salt, known)
        if node_id in known:
            raise InputError("DUPLICATE_ID", f"the design tree already has {node_id}: IDs are "
                             "stable forever, pick a new one")
        missing = [d for d in deps + ([parent] if parent else []) if d not in known]
        if missing:
            raise InputError("NOT_FOUND", f"{', '.join(missing)} "
                             f"{'is' if len(missing) == 1 else 'are'} not in the design tree: "
                             "add the node first or fix the reference")
        change = Change()
        change.insert_nodes.append(render_node(node_id, title, args.section, deps, parent,
                                               options, args.recommend, extra))
        return change, {"node": node_id}

    result = transaction(spec, step)
    return Outcome(result, f"added {result['node']}: {title}")


def _frontier(args: argparse.Namespace) -> Outcome:
    spec = spec_of(args)
    prog = load(spec)
    result = spec_frontier(prog, args.group == "section").to_json()
    lines = []
    batches = result["batches"]
    assert isinstance(batches, list)
    for i, batch in enumerate(batches, 1):
        lines.append(f"batch {i}: {', '.join(batch)}")
    if not batches:
        lines.append("frontier: empty")
    blocked = result["blocked"]
    assert isinstance(blocked, dict)
    for node_id, blockers in blocked.items():
        lines.append(f"blocked: {node_id} (waits for {', '.join(blockers)})")
    lines.append(f"ready: {'yes' if result['ready'] else 'no'}")
    return Outcome(result, "\n".join(lines))
