"""`mdgrill import-ralph SPEC`: turn a smart-ralph spec folder into mdgrill's format."""

from __future__ import annotations

import argparse
import os

from mdgrill.cli.verbs import Outcome, add_dry_run, unified_diff
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.progress import Progress
from mdgrill.integrations import ralph
from mdgrill.model.digest import context_digest, file_sha256
from mdgrill.shell import store
from mdgrill.shell.session import check_loaded, display

BACKUP = ".progress.ralph.md"


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="smart-ralph spec folder (its .progress.md and "
                   ".ralph-state.json)")
    add_dry_run(p, "the imported file")
    p.add_argument("--goal", metavar="TEXT", help="the goal, when neither the state nor a "
                   "`## Original Goal` / `## Goal` section gives one")


def run(args: argparse.Namespace) -> Outcome:
    spec = store.resolve_spec(args.spec, args.root, must_exist=False)
    if not os.path.isfile(spec.progress):
        raise InputError("NOT_FOUND", f"{display(spec.progress)} does not exist: give a "
                         "smart-ralph spec folder (one holding .progress.md)")
    if args.dry_run:
        return _import(spec, args)
    with store.Lock(spec.folder):
        return _import(spec, args)


def _import(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    shown = display(spec.progress)
    raw = store.read_file(spec.progress, shown, spec.root)
    prog = _parse(raw, shown)
    if ralph.already_imported(prog):
        raise InputError("ALREADY_IMPORTED", f"{shown} already has mdgrill front matter "
                         f"(`mdgrill: {prog.data.get('mdgrill')}`): it was imported before; "
                         "nothing to do", path=shown)
    state_path = os.path.join(spec.folder, ralph.STATE_FILE)
    warnings: list[str] = []
    state: dict[str, object] = {}
    if os.path.isfile(state_path):
        state_shown = display(state_path)
        state = ralph.read_state(store.read_file(state_path, state_shown, spec.root), state_shown)
    else:
        warnings.append(f"no {ralph.STATE_FILE}: imported the progress file alone (no phase, "
                        "interview or skills)")
    from mdgrill.services.approvals import ignored_warning

    ignored = ignored_warning(spec)
    if ignored is not None:
        warnings.append(ignored)
    plan = _Plan(spec, prog, state, warnings)
    plan.build(args.goal)
    text = ralph.render(prog, plan.updates)
    _check_result(prog, text, shown)
    result: dict[str, object] = {
        "spec": spec.rel_folder, "path": spec.rel_progress, "goal_source": plan.goal_source,
        "phase": plan.updates.get("phase"), "ralph_phase": state.get("phase"),
        "mode": plan.updates["mode"], "interview": plan.interview_status,
        "skills": len(plan.skills), "ralph_digest": plan.ralph_digest,
        "context_digest": plan.mdgrill_digest, "found": ralph.summarize(prog),
        "overridden": plan.overridden, "warnings": warnings, "dry_run": bool(args.dry_run),
    }
    if args.dry_run:
        shown_text = unified_diff(prog.tf.text, text, shown) if args.diff else text
        result.update({"written": False, "text": shown_text})
        return Outcome(result, shown_text)
    backup = _backup(spec, raw)
    store.atomic_write(spec.progress, prog.tf.with_text(text).encode(), expect=raw)
    result.update({"written": True,
                   "backup": store.relpath_posix(backup, spec.root) if backup else None})
    return Outcome(result, _summary(result, shown, display(backup) if backup else None))


class _Plan:
    """The front matter an import adds, worked out from the state and the files around it."""

    def __init__(self, spec: store.Spec, prog: Progress, state: dict[str, object],
                 warnings: list[str]) -> None:
        self.spec = spec
        self.prog = prog
        self.state = state
        self.warnings = warnings
        self.updates: dict[str, object] = {}
        self.overridden: dict[str, object] = {}
        self.goal_source = "none"
        self.interview_status: str | None = None
        self.skills: list[dict[str, object]] = []
        self.ralph_digest: dict[str, object] | None = None
        self.mdgrill_digest: str | None = None

    def build(self, goal_arg: str | None) -> None:
        state = self.state
        if goal_arg is not None:
            from mdgrill.formats.progress import single_line

            goal: str | None = single_line(goal_arg, "--goal")
            self.goal_source = "--goal"
        else:
            goal, self.goal_source = ralph.goal_of(state, self.prog)
        folder_name = os.path.basename(os.path.normpath(self.spec.folder))
        name = ralph.spec_name(state, self.prog, folder_name)
        updates: dict[str, object] = {"mdgrill": 1, "spec": name}
        if goal is not None:
            updates["goal"] = goal
        else:
            self.warnings.append("no goal found (state goal, `## Original Goal` or `## Goal`): "
                                 "add `goal:` to the front matter before an interview")
        phase = ralph.map_phase(state.get("phase"))
        if phase is not None:
            updates["phase"] = phase
        elif state.get("phase") is not None:
            self.warnings.append(f"state phase `{state.get('phase')}` is not an mdgrill phase: "
                                 "the front matter has no phase")
        # "Stale booleans, and legacy malformed quick state do not bypass the gate": a quick
        # flag mdgrill did not record is history; only `mdgrill mode --quick` authorizes.
        mode = "interactive"
        if state.get("quickMode") is True:
            self.warnings.append("`quickMode: true` is imported as interactive: only "
                                 "`mdgrill mode SPEC --quick` authorizes a bypass, so the next "
                                 "interview runs through mdgrill's gate")
        updates["mode"] = mode
        if "required_sections" not in self.prog.data:
            updates["required_sections"] = []
        load = state.get("phaseSkillLoad")
        piv = state.get("phaseInterview")
        if isinstance(load, dict):
            self._skills(load, updates)
            self._ralph_digest(load, goal)
        iv: dict[str, object] | None = None
        if isinstance(piv, dict):
            ralph_mode = "quick" if state.get("quickMode") is True else mode  # as ralph had it
            iv = self._interview(piv, load if isinstance(load, dict) else None, goal,
                                 ralph_mode)
            self.interview_status = str(iv["status"])
            if phase is None:
                updates["phase"] = iv["phase"]
            if iv["status"] == "bypassed_quick":
                self.warnings.append(f"interview {iv['id']} was bypassed in quick mode by "
                                     "smart-ralph: not imported as a bypass mdgrill can vouch "
                                     "for; begin the phase's interview with mdgrill")
                iv = None
                self.interview_status = "none"
        updates["interview"] = iv
        updates["skills"] = self.skills
        for key, value in list(updates.items()):
            if key in self.prog.data and self.prog.data[key] != value:
                self.overridden[key] = self.prog.data[key]
        if self.overridden:
            updates["ralph"] = self.overridden
        self.updates = updates

    def _sources(self, phase: str) -> tuple[list[tuple[str, str, bytes]], list[str]]:
        """(real path, repo-relative path, bytes) of a phase's artifacts present, and the
        required ones missing."""
        from mdgrill.shell.context import read_sources

        return read_sources(self.spec, phase)

    def _ralph_digest(self, load: dict[str, object], goal: str | None) -> None:
        recorded = load.get("contextDigest")
        phase = load.get("phase")
        if not ralph.valid_sha(recorded) or not isinstance(phase, str) \
                or ralph.map_phase(phase) != phase:
            return
        context = load.get("context") if isinstance(load.get("context"), dict) else {}
        assert isinstance(context, dict)
        snapshot = context.get("goal")
        ralph_goal = snapshot if isinstance(snapshot, str) and snapshot.strip() else goal
        rows, missing = self._sources(phase)
        recomputed = None
        if ralph_goal is not None and not missing:
            recomputed = ralph.ralph_context_digest(phase, ralph_goal,
                                                    [(path, data) for path, _, data in rows])
        artifacts = context.get("artifacts") if isinstance(context.get("artifacts"), list) else []
        assert isinstance(artifacts, list)
        recorded_sources = sorted(str(a.get("source")) for a in artifacts if isinstance(a, dict))
        self.ralph_digest = {"recorded": recorded, "recomputed": recomputed,
                             "match": recomputed == recorded, "phase": phase,
                             "sources_moved": recorded_sources != sorted(p for p, _, _ in rows)}
        if missing:
            self.ralph_digest["missing"] = missing
        if recomputed != recorded:
            self.warnings.append("smart-ralph's context digest no longer matches the artifacts "
                                 f"(recorded {str(recorded)[:12]}…, now "
                                 f"{(recomputed or 'unavailable')[:12]}…): the approval it "
                                 "records is stale")

    def _interview(self, piv: dict[str, object], load: dict[str, object] | None,
                   goal: str | None, mode: str) -> dict[str, object]:
        phase = piv.get("phase")
        if not isinstance(phase, str) or ralph.map_phase(phase) != phase:
            raise InputError("INVALID_PHASE", f"phaseInterview phase `{phase}` is not an mdgrill "
                             "phase")
        if goal is None:
            raise InputError("GOAL_REQUIRED", "the state holds an interview but no goal was "
                             "found: pass --goal TEXT (the interview's context digest needs it)")
        rows, missing = self._sources(phase)
        digest = context_digest(phase, goal, [(rel, data) for _, rel, data in rows])
        context = [{"path": rel, "sha256": file_sha256(data)} for _, rel, data in rows]
        if missing:
            self.warnings.append(f"the {phase} phase reads {', '.join(missing)}, which is "
                                 "missing: check-delegation will refuse until it exists")
        same = load is not None and load.get("phase") == phase and \
            load.get("interviewId") == piv.get("interviewId")
        if same and self.ralph_digest is not None and not self.ralph_digest["match"]:
            # Keep the approval stale: the recorded ralph digest never equals mdgrill's.
            digest = str(self.ralph_digest["recorded"])
            context = self._recorded_context(load)
        elif not same:
            self.warnings.append("phaseSkillLoad records no context digest for this interview: "
                                 "its approval is taken for the artifacts as they are now")
        self.mdgrill_digest = digest
        return ralph.interview_from_ralph(piv, mode, digest, context)

    def _recorded_context(self, load: dict[str, object] | None) -> list[dict[str, str]]:
        context = load.get("context") if load is not None else None
        artifacts = context.get("artifacts") if isinstance(context, dict) else None
        rows: list[dict[str, str]] = []
        for item in artifacts if isinstance(artifacts, list) else []:
            if isinstance(item, dict) and isinstance(item.get("source"), str) \
                    and ralph.valid_sha(item.get("sha256")):
                name = os.path.basename(str(item["source"]))
                rel = store.relpath_posix(os.path.join(self.spec.folder, name), self.spec.root)
                rows.append({"path": rel, "sha256": str(item["sha256"])})
        return rows

    def _skills(self, load: dict[str, object], updates: dict[str, object]) -> None:
        from mdgrill.shell.skills import from_ralph, normalize

        try:
            manifest = from_ralph(load, self.spec)
            header, _ = normalize({**manifest, "skills": []}, self.spec)
        except InputError as exc:
            self.warnings.append(f"phaseSkillLoad not imported: {exc.message}")
            return
        entries = manifest.get("skills")
        for entry in entries if isinstance(entries, list) else []:
            try:
                _, one = normalize({**manifest, "skills": [entry]}, self.spec)
            except InputError as exc:
                name = entry.get("name") if isinstance(entry, dict) else entry
                self.warnings.append(f"skill {name} not imported: {exc.message}")
                continue
            self.skills.extend(one)
        updates["skill_manifest"] = header
        revision = header.get("discovery_revision")
        if revision is not None:
            updates["discovery_revision"] = revision


def _parse(raw: bytes, shown: str) -> Progress:
    from mdgrill.formats.textfile import decode

    return Progress(decode(raw, shown), shown)


def _check_result(prog: Progress, text: str, shown: str) -> None:
    """Refuse to write a result that lost a line or does not read back as valid."""
    original = ralph.body_text(prog.tf, shown)
    missing = ralph.first_missing_line(original, text)
    if missing is not None:
        raise InputError("INTERNAL_WRITE_CHECK", f"the import would lose line {missing + 1} of "
                         f"{shown}'s body; nothing was written. Please report this.")
    try:
        check_loaded(Progress(prog.tf.with_text(text), shown))
    except MdgrillError as exc:
        raise InputError("INTERNAL_WRITE_CHECK", f"the imported {shown} would not read back "
                         f"({exc.code}: {exc.message}); nothing was written") from None


def _tracked_clean(spec: store.Spec) -> bool:
    """True when git holds the file exactly as it is (so git history is the backup)."""
    if not store.in_repository(spec.root):
        return False
    from mdgrill.git.vcs import committed_as_is

    return committed_as_is(spec.root, spec.progress)


def _backup(spec: store.Spec, raw: bytes) -> str | None:
    if _tracked_clean(spec):
        return None
    path = os.path.join(spec.folder, BACKUP)
    if os.path.lexists(path):
        with open(path, "rb") as handle:
            if handle.read() == raw:
                return path
        raise InputError("ALREADY_EXISTS", f"{display(path)} already exists and differs from "
                         f"{display(spec.progress)}: move it away, then import again")
    store.atomic_write(path, raw)
    return path


def _summary(result: dict[str, object], shown: str, backup: str | None) -> str:
    lines = [f"imported {shown}: phase {result['phase'] or 'none'}, mode {result['mode']}, "
             f"interview {result['interview'] or 'none'}, {result['skills']} skill(s)"]
    if backup:
        lines.append(f"the original is kept as {backup} (it was not a committed "
                     "file in git)")
    else:
        lines.append("the original is in git history (no backup written)")
    rd = result.get("ralph_digest")
    if isinstance(rd, dict):
        lines.append(f"smart-ralph digest: {'matches' if rd['match'] else 'STALE'} "
                     f"(recorded {str(rd['recorded'])[:12]}…)")
    warnings = result.get("warnings")
    for warning in warnings if isinstance(warnings, list) else []:
        lines.append(f"warning: {warning}")
    return "\n".join(lines)
