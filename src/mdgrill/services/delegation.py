"""May the agent delegate? `check-delegation`, and every rule a Task/Agent call of the agent
hook must pass (`check_call`): one place for the CLI verb, the MCP tool, the library and the
hook alike."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from mdgrill.core import machine
from mdgrill.errors import GateRefusal, InputError, MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.services.approvals import approval_binding
from mdgrill.shell import store
from mdgrill.shell.context import context_sources, skills_stale
from mdgrill.shell.session import load

if TYPE_CHECKING:
    from mdgrill.core.machine.reports import DelegationReport

GATE_DOC = "docs/agent-hook.md"
# what separates the words of a prompt that may be paths: anything a folder name of a spec
# does not hold (blanks, quotes, brackets, `=`, `:`, `#`, `'s`...)
_WORDS = re.compile(r"[^\w./~+@%-]+")
_LONGEST = 4096  # characters of a word followed: a longer one is cut, never skipped
_DEPTH = 16  # folders deep a named path is followed


class Claim(NamedTuple):
    """One gate block of a delegation prompt: the approval the call says it rests on."""

    spec: str
    phase: str
    interview: str
    digest: str | None = None
    revision: str | None = None


def check_delegation(spec: store.Spec, phase: str, interview_id: str,
                     context_digest: str | None = None,
                     discovery_revision: str | None = None,
                     prompt: tuple[str, str] | None = None) -> tuple[DelegationReport, str]:
    """The result and its one-line text; a refusal raises (GateRefusal, exit 3).

    `prompt` is the delegated prompt as (where it came from, its text): given, it must pass
    the prompt checks (Phase-3 check 5); with `delegation: {prompt_checks: true}` it must be
    given."""
    prog, result, text = _approved(spec, phase, interview_id, context_digest,
                                   discovery_revision)
    _check_prompt(spec, prog, prompt)
    if prompt is not None:
        result["prompt_checked"] = True
    return result, text


def _approved(spec: store.Spec, phase: str, interview_id: str, context_digest: str | None,
              discovery_revision: str | None) -> tuple[Progress, DelegationReport, str]:
    from mdgrill.core.skill_load import require_manifest
    from mdgrill.shell.project import declared_skills

    prog = load(spec)
    machine.check_skills(prog.data, phase, interview_id, discovery_revision,
                         skills_stale(prog.data, spec))
    require_manifest(prog.data, declared_skills(spec.root))
    digest, _ = context_sources(prog, spec, phase)
    try:
        result = machine.check_delegation(prog, phase, interview_id, context_digest, digest,
                                          discovery_revision)
    except GateRefusal as exc:
        # a changed scope is often the trace of a forgery the history names more precisely
        # (an edited round, a record changed after its commit): that cause first
        if exc.code == "APPROVAL_SCOPE_CHANGED":
            approval_binding(spec, prog, phase, interview_id)
        raise
    held = approval_binding(spec, prog, phase, interview_id)
    result["checked"] = held["checked"]
    if "why" in held:
        result["why"] = held["why"]
    if "approval_commit" in held:
        result["approval_commit"] = held["approval_commit"]
    from mdgrill.services.channels import require_accepted_approval

    # the channel the selection came over, held to `.mdgrill.yaml` `approval:` (this also
    # keeps `approval: evidence`: a hook's approval must name its captured reply)
    carried = require_accepted_approval(spec, prog, interview_id, phase,
                                        held.get("approval_commit"))
    if "channel" in carried:
        result["channel"] = carried["channel"]
    if "signed_by" in carried:
        result["signed_by"] = carried["signed_by"]
    text = f"allow: {phase} interview {interview_id} is {result['status']}"
    if result["checked"] == "digest-only":
        text += " (not in a git repository: checked the digest alone)"
    return prog, result, text


def _check_prompt(spec: store.Spec, prog: Progress, prompt: tuple[str, str] | None) -> None:
    """Phase-3 check 5, "structural and 15-row compliance checks", on the delegated prompt."""
    from mdgrill.shell.project import delegation

    if prompt is None:
        if delegation(spec.root).prompt_checks:
            raise GateRefusal("PROMPT_REQUIRED",
                              "this project checks every delegated prompt (`delegation: "
                              "{prompt_checks: true}` in .mdgrill.yaml): give the prompt you "
                              "will delegate with `--prompt FILE`")
        return
    from mdgrill.checks.prompt import check_prompt
    from mdgrill.checks.spec import ledger_ids

    where, text = prompt
    errors = [d for d in check_prompt(text, where, ledger_ids(prog)) if d.severity == "error"]
    if not errors:
        return
    shown = "; ".join(f"line {d.line}: {d.code}: {d.message}" for d in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    raise GateRefusal("PROMPT_CHECK_FAILED",
                      f"the delegated prompt fails {len(errors)} prompt check(s): {shown}{more}. "
                      f"Fix the prompt (`mdgrill validate --prompt FILE --spec "
                      f"{spec.rel_folder}` lists them all) and delegate again",
                      details={"errors": [d.code for d in errors]})


# -- a Task/Agent call (the agent hook) -----------------------------------------------------

def check_call(cwd: object, prompt: str, agent: str | None, claims: list[Claim],
               root: str | None = None) -> list[str]:
    """Every rule a sub-agent call must pass; the allow text of each gate block (none when
    the call delegates no spec's work). A refusal raises.

    - a gate block needs the event's `cwd`, and its spec must lie in that repository;
    - an agent type `.mdgrill.yaml` names under `delegation.agents.<phase>` needs a gate
      block of that phase;
    - a prompt that names a spec's folder (or a file in it) needs that spec's current phase
      approved, gate block or not."""
    if not isinstance(cwd, str) or not cwd or not os.path.isdir(cwd):
        if not claims:
            return []  # no repository to hold the call to (Claude Code always sends cwd)
        shown = "missing" if cwd is None else f"`{str(cwd)[:200]}`"
        raise InputError("MALFORMED_EVENT", f"the event's cwd is {shown}, so the gate block "
                         "cannot be checked against a repository: a gated delegation needs "
                         "the folder Claude Code runs in (`cwd`)")
    from mdgrill.shell.project import delegation

    top = store.repository(cwd, root)
    settings = delegation(top)
    _require_phase_gate(settings.phases_of(agent), agent, claims)
    texts: list[str] = []
    claimed: set[str] = set()
    for claim in claims:
        spec = _claimed_spec(claim, cwd, top, root)
        # a block vouches for the spec's work only in the phase it approved: a requirements
        # block carried on once the spec has moved to design names no approved design work
        if load(spec).data.get("phase") == claim.phase:
            claimed.add(os.path.realpath(spec.folder))
        checked = (spec.rel_folder, prompt) if settings.prompt_checks else None
        _, text = check_delegation(spec, claim.phase, claim.interview, claim.digest,
                                   claim.revision, checked)
        texts.append(f"mdgrill: {text}")
    for folder in named_specs(prompt, top, cwd):
        if os.path.realpath(folder) not in claimed:
            # resolved as the CLI resolves it: outside git its root is its own folder
            _require_current(store.resolve_spec(folder, root),
                             store.relpath_posix(folder, top))
    return texts


def _require_phase_gate(phases: list[str], agent: str | None, claims: list[Claim]) -> None:
    if not phases or any(claim.phase in phases for claim in claims):
        return
    given = sorted({claim.phase for claim in claims})
    through = f"its gate block is for {', '.join(given)}" if given else "it carries no gate block"
    raise GateRefusal("DELEGATION_UNGATED",
                      f"sub-agent `{str(agent)[:100]}` writes the {' / '.join(phases)} artifact "
                      f"(`delegation.agents` in .mdgrill.yaml), but {through}: run `mdgrill "
                      f"check-delegation SPEC --phase {phases[0]} --interview-id ID` and, once "
                      f"it allows, put that interview's [MDGRILL_PHASE_GATE] block ({GATE_DOC}) "
                      "into the prompt", details={"phases": phases})


def _claimed_spec(claim: Claim, cwd: str, top: str, root: str | None) -> store.Spec:
    """The spec a gate block names, held to the event's repository."""
    machine.require_phase(claim.phase)
    machine.require_id(claim.interview, "interview ID")
    path = claim.spec if os.path.isabs(claim.spec) else os.path.join(cwd, claim.spec)
    if not store.is_inside(path, top):
        raise GateRefusal("PATH_OUTSIDE_REPOSITORY",
                          f"the gate block names {claim.spec[:200]}, which lies outside the "
                          f"repository the call runs in ({top[:200]}): an approval elsewhere "
                          "approves nothing here; name this repository's spec")
    spec = store.resolve_spec(path, root)
    if not store.is_inside(spec.root, top):
        raise GateRefusal("PATH_OUTSIDE_REPOSITORY",
                          f"the gate block names {claim.spec[:200]}, which belongs to another "
                          f"repository ({spec.root[:200]}): name this repository's spec")
    return spec


def named_specs(prompt: str, top: str, cwd: str) -> list[str]:
    """The spec folders of the repository a prompt names by path: a word holding a `/` (or
    `\\`) whose path, from the repository root, from `cwd` or absolute, is a spec's folder or
    lies in one (`specs/login`, `./specs/login/design.md`).

    No walk of the tree and no stat per word: a path is followed through the listings of the
    folders it passes (each listed once), so a prompt of a million made-up paths costs a set
    lookup each and still finds the one real spec among them."""
    base = os.path.normpath(top)
    inside = base.rstrip(os.sep) + os.sep
    here = os.path.normpath(cwd)
    listings: dict[str, frozenset[str] | None] = {}

    def listing(folder: str) -> frozenset[str] | None:
        if folder not in listings:
            try:
                listings[folder] = frozenset(os.listdir(folder))
            except OSError:  # gone, unreadable, or a file
                listings[folder] = None
        return listings[folder]

    # a relative word is read from the root and, when it differs, from cwd
    anchors = [()] if here == base or not here.startswith(inside) else \
        [(), tuple(here[len(inside):].split(os.sep))]
    starts = {name for folder in (base, here) for name in listing(folder) or ()}
    found: dict[str, None] = {}
    for word in dict.fromkeys(_WORDS.split(prompt.replace("\\", "/"))):
        word = word[:_LONGEST].rstrip(".")
        while word.startswith("./"):
            word = word[2:]
        if "/" not in word:
            continue
        parts = word.split("/")
        if word.startswith(("/", "../")) or word.endswith(("/.", "/..")) or "//" in word \
                or "/./" in word or "/../" in word:  # `..`, `.` or `//`: normalized first
            full = os.path.normpath(word if word.startswith("/") else os.path.join(base, word))
            rels = [full[len(inside):].split(os.sep)] if full.startswith(inside) else []
            if not word.startswith("/") and len(anchors) > 1:
                other = os.path.normpath(os.path.join(here, word))
                rels += [other[len(inside):].split(os.sep)] if other.startswith(inside) else []
        elif parts[0] not in starts:
            continue  # the common case of a made-up path: its first folder is not there
        else:
            rels = [[*anchor, *parts] for anchor in anchors]
        for rel in rels:
            folder = base
            for part in rel[:_DEPTH]:
                if part not in (listing(folder) or ()):
                    break
                folder = folder + os.sep + part
                if store.PROGRESS in (listing(folder) or ()):
                    found[folder] = None
    return list(found)


def _require_current(spec: store.Spec, where: str) -> None:
    """A spec named by a delegation without its gate block (`where`, as the prompt names
    it): its current phase approved."""
    try:
        prog = load(spec)
        phase = prog.data.get("phase")
        iv = prog.data.get("interview")
        if not isinstance(iv, dict) or iv.get("phase") != phase or not isinstance(phase, str):
            raise GateRefusal("INTERVIEW_MISSING",
                              f"its {phase} phase has no interview: begin it (`mdgrill "
                              f"begin-interview {where} --phase {phase} --interview-id ID`)")
        _approved(spec, phase, str(iv.get("id")), None, None)
    except MdgrillError as exc:
        raise GateRefusal("SPEC_NOT_APPROVED",
                          f"the prompt names {where}, whose current phase is not approved "
                          f"({exc.code}: {exc.message}). A spec's work is delegated only after "
                          f"the user approved its interview: finish it, then delegate with its "
                          f"gate block ({GATE_DOC}); an exploring helper names no spec's "
                          "folder", details={"spec": where, "cause": exc.code}) from None
