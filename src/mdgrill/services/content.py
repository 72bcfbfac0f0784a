"""Writing a spec's content: `init` (a new `.progress.md`), `node add` (a decision in the
design tree) and `frontier` (what may be asked now)."""

from __future__ import annotations

import os
import time

from mdgrill.core.machine import require_id
from mdgrill.errors import InputError
from mdgrill.formats.progress import Change, Progress, Transition, single_line
from mdgrill.formats.schema import BLOCK_LISTS
from mdgrill.model.record import require_spec_name
from mdgrill.services.result import Frontier, Initialized, NodeAdded
from mdgrill.shell import store
from mdgrill.shell.session import display, load, transaction

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import NodeReport
    from mdgrill.model.tree import FrontierView

MAX_OPTIONS = 4


def init(path: str, *, goal: str, title: str | None = None,
         required_sections: list[str] | None = None, phase: str = "start",
         root: str | None = None) -> tuple[store.Spec, Initialized]:
    """Create the spec's `.progress.md` from the template (never over an existing one)."""
    from mdgrill.formats.frontmatter import render_entry
    from mdgrill.formats.schema import PHASES

    spec = store.resolve_spec(path, root, must_exist=False)
    goal = single_line(goal, "--goal")
    if phase not in PHASES:
        raise InputError("INVALID_PHASE", f"`{phase}` is no phase: one of {', '.join(PHASES)}")
    if os.path.lexists(spec.progress):
        raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists: mdgrill "
                         "never overwrites an interview")
    name = os.path.basename(os.path.normpath(spec.folder))
    require_spec_name(name)
    heading = single_line(title, "--title") if title else \
        name.replace("-", " ").replace("_", " ").capitalize()
    sections = [single_line(s, "--required-section") for s in required_sections or []]
    front: list[str] = []
    for key, value in (("mdgrill", 1), ("spec", name), ("goal", goal), ("phase", phase),
                       ("mode", "interactive"), ("required_sections", sections),
                       ("interview", None), ("skills", [])):
        front.extend(render_entry(key, value, 0, BLOCK_LISTS))
    from importlib.resources import files

    template = files("mdgrill.templates").joinpath("progress.md").read_text(encoding="utf-8")
    text = template.replace("{{front_matter}}", "\n".join(front)).replace(
        "{{title}}", heading).replace("{{goal}}", goal)
    # Checked before creating anything: realpath resolves a symlinked parent of a folder
    # that does not exist yet, and makedirs would follow it out of the repository.
    if not store.is_inside(spec.folder, spec.root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{path} is outside the repository")
    try:
        os.makedirs(spec.folder, exist_ok=True)
    except OSError as exc:  # a name too long, a file in the way, no permission
        raise InputError("WRITE_FAILED", f"cannot create {display(spec.folder)}: "
                         f"{exc.strerror}; nothing was written") from None
    with store.Lock(spec.folder):
        if os.path.lexists(spec.progress):
            raise InputError("ALREADY_EXISTS", f"{display(spec.progress)} already exists")
        store.atomic_write(spec.progress, text.encode("utf-8"))
    from mdgrill.services.approvals import ignored_warning

    ignored = ignored_warning(spec)
    return spec, Initialized("init", {"spec": spec.rel_folder, "path": spec.rel_progress,
                                 "written": True, "warnings": [ignored] if ignored else []})


def add_node(spec: store.Spec, *, title: str, node_id: str | None = None,
             section: str | None = None, depends_on: list[str] | None = None,
             spawned_by: str | None = None, options: list[str] | None = None,
             recommend: int | None = None, evidence: str | None = None,
             investigating: str | None = None, recommendation: str | None = None,
             rationale: str | None = None, tradeoffs: str | None = None,
             consequences: str | None = None) -> NodeAdded:
    """Add a decision to the design tree (2 to 4 options, the recommended one by number);
    without `node_id`, one that two branches will not both draw."""
    given = require_id(node_id, "node ID") if node_id is not None else None
    title = single_line(title, "--title")
    deps = [require_id(d, "dependency ID") for d in depends_on or []]
    parent = require_id(spawned_by, "parent ID") if spawned_by else None
    choices = [single_line(o, "--option") for o in options or []]
    if choices and not 2 <= len(choices) <= MAX_OPTIONS:
        raise InputError("INVALID_OPTIONS", f"a node has 2 to {MAX_OPTIONS} options, not "
                         f"{len(choices)}")
    if recommend is not None and not 1 <= recommend <= len(choices):
        raise InputError("INVALID_OPTIONS", f"--recommend {recommend} names no option "
                         f"(there are {len(choices)})")
    if any("(recommended)" in o.lower() for o in choices):
        raise InputError("INVALID_OPTIONS", "mark the recommended option with --recommend N, "
                         "not in its text")
    extra = [(key, single_line(value, f"--{key.lower()}")) for key, value in
             (("Evidence", evidence), ("Investigating", investigating),
              ("Recommendation", recommendation), ("Rationale", rationale),
              ("Tradeoffs", tradeoffs), ("Consequences", consequences)) if value]

    # who adds it, and when: two branches do not both draw the same ID (asked only when needed)
    from mdgrill.git.identity import git_identity
    from mdgrill.model.tree import new_node_id, render_node

    salt = f"{git_identity(spec.root) or ''}\0{time.time_ns()}" if given is None else ""

    def step(prog: Progress) -> Transition[NodeReport]:
        known = set(prog.node_ids())
        chosen = given if given is not None else new_node_id(title, salt, known)
        if chosen in known:
            raise InputError("DUPLICATE_ID", f"the design tree already has {chosen}: IDs are "
                             "stable forever, pick a new one")
        missing = [d for d in deps + ([parent] if parent else []) if d not in known]
        if missing:
            raise InputError("NOT_FOUND", f"{', '.join(missing)} "
                             f"{'is' if len(missing) == 1 else 'are'} not in the design tree: "
                             "add the node first or fix the reference")
        change = Change()
        change.insert_nodes.append(render_node(chosen, title, section, deps, parent,
                                               choices, recommend, extra))
        return Transition(change, {"node": chosen})

    return NodeAdded("node add", transaction(spec, step))


def frontier(spec: store.Spec, *, group: str | None = None) -> Frontier:
    """The open, unblocked decisions in batches of at most four (`group="section"`: one
    section a batch), what blocks the rest, and whether the tree is ready."""
    return Frontier("frontier", dict(frontier_view(spec, group=group)))


def frontier_view(spec: store.Spec, *, group: str | None = None) -> FrontierView:
    """`frontier`'s fields, typed (what the CLI renders as text)."""
    from mdgrill.model.tree import spec_frontier

    if group not in (None, "section"):
        raise InputError("USAGE", f"unknown group `{group}`: the one known is section")
    return spec_frontier(load(spec), group == "section").to_json()
