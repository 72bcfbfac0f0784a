"""Content verbs: `init`, `node add`, `frontier` (the work is `services.content`')."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb, add_spec, spec_of
from mdgrill.formats.progress import single_line
from mdgrill.formats.schema import PHASES
from mdgrill.services import content
from mdgrill.shell.session import display

MAX_OPTIONS = 4


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="spec folder to create (e.g. specs/login)")
    p.add_argument("--goal", required=True, metavar="TEXT", help="the spec's goal, one line")
    p.add_argument("--title", metavar="TEXT", help="H1 title (default: from the folder name)")
    p.add_argument("--required-section", action="append", default=[], metavar="S",
                   help="a section that needs a resolved decision before approval")
    p.add_argument("--phase", choices=PHASES, default="start", help="the phase the spec "
                   "starts in (default: start)")


def _node_arguments(p: argparse.ArgumentParser) -> None:
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


def _frontier_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--group", choices=["section"], help="keep each batch to one section")


def _init(args: argparse.Namespace) -> Outcome:
    spec, done = content.init(args.spec, goal=args.goal, title=args.title,
                              required_sections=args.required_section, phase=args.phase,
                              root=args.root)
    return Outcome(done.data, f"created {display(spec.progress)}"
                   + "".join(f"\nwarning: {w}" for w in done.warnings))


def _node_add(args: argparse.Namespace) -> Outcome:
    done = content.add_node(
        spec_of(args), node_id=args.id, title=args.title, section=args.section,
        depends_on=args.depends_on, spawned_by=args.spawned_by, options=args.option,
        recommend=args.recommend, evidence=args.evidence, investigating=args.investigating,
        recommendation=args.recommendation, rationale=args.rationale,
        tradeoffs=args.tradeoffs, consequences=args.consequences)
    return Outcome(done.data, f"added {done.node}: {single_line(args.title, '--title')}")


def _frontier(args: argparse.Namespace) -> Outcome:
    view = content.frontier_view(spec_of(args), group=args.group)
    lines = []
    for i, batch in enumerate(view["batches"], 1):
        lines.append(f"batch {i}: {', '.join(batch)}")
    if not view["batches"]:
        lines.append("frontier: empty")
    for node_id, blockers in view["blocked"].items():
        lines.append(f"blocked: {node_id} (waits for {', '.join(blockers)})")
    lines.append(f"ready: {'yes' if view['ready'] else 'no'}")
    return Outcome(dict(view), "\n".join(lines))


VERBS = (
    Verb("init", "Create a spec's .progress.md from the template.", _init_arguments, _init),
    Verb("node", "Edit the design tree: `node add SPEC ID --title T ...`.",
         _node_arguments, _node_add),
    Verb("frontier", "Show the open, unblocked decisions in batches of at most four.",
         _frontier_arguments, _frontier),
)
