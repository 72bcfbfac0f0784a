"""`mdgrill import-ralph SPEC`: turn a smart-ralph spec folder into mdgrill's format."""

from __future__ import annotations

import argparse
import os

from mdgrill.cli.verbs import Outcome, Verb, add_dry_run, refuse_invalid, unified_diff
from mdgrill.errors import InputError
from mdgrill.formats.progress import Progress, single_line, with_record
from mdgrill.formats.textfile import TextFile
from mdgrill.git.discovery import in_repository
from mdgrill.integrations import ralph
from mdgrill.model.digest import context_digest, file_sha256
from mdgrill.shell import store
from mdgrill.shell.session import display

BACKUP = ".progress.ralph.md"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="smart-ralph spec folder: smart-ralph 5's "
                   "progress.md, or the older .progress.md and .ralph-state.json, or both")
    add_dry_run(p, "the imported file")
    p.add_argument("--goal", metavar="TEXT", help="the goal, when neither the state nor a "
                   "`## Original Goal` / `## Goal` section gives one")


def run(args: argparse.Namespace) -> Outcome:
    spec = store.resolve_spec(args.spec, args.root, must_exist=False)
    canonical = os.path.join(spec.folder, ralph.CANONICAL)
    if not os.path.isfile(spec.progress) and not os.path.isfile(canonical):
        raise InputError("NOT_FOUND", f"{display(spec.folder)} holds neither progress.md "
                         "(smart-ralph 5) nor .progress.md: give a smart-ralph spec folder")
    if args.dry_run:
        return _import(spec, args)
    with store.Lock(spec.folder):
        return _import(spec, args)


class _Source:
    """What a spec folder holds: smart-ralph 5's `progress.md`, the older `.progress.md`, or
    both (a folder between the two versions); each parsed, with its bytes."""

    def __init__(self, spec: store.Spec) -> None:
        self.legacy: Progress | None = None
        self.legacy_raw = b""
        self.v5: Progress | None = None
        self.v5_shown = display(os.path.join(spec.folder, ralph.CANONICAL))
        if os.path.isfile(spec.progress):
            shown = display(spec.progress)
            self.legacy_raw = store.read_file(spec.progress, shown, spec.root)
            self.legacy = _parse(self.legacy_raw, shown)
        canonical = os.path.join(spec.folder, ralph.CANONICAL)
        if os.path.isfile(canonical):
            self.v5 = _parse(store.read_file(canonical, self.v5_shown, spec.root), self.v5_shown)
        self.record = ralph.v5_record(self.v5) if self.v5 is not None else {}

    @property
    def main(self) -> Progress:
        """The file the import reads its sections from: the older one, else progress.md
        (run() refuses a folder with neither)."""
        found = self.legacy if self.legacy is not None else self.v5
        assert found is not None
        return found

    @property
    def layout(self) -> str:
        if self.v5 is None:
            return "legacy"
        return "5" if self.legacy is None else "5+legacy"


def _import(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    shown = display(spec.progress)
    source = _Source(spec)
    prog = source.legacy
    if prog is not None and ralph.already_imported(prog):
        raise InputError("ALREADY_IMPORTED", f"{shown} already has mdgrill front matter "
                         f"(`mdgrill: {prog.data.get('mdgrill')}`): it was imported before; "
                         "nothing to do", path=shown)
    state_path = os.path.join(spec.folder, ralph.STATE_FILE)
    warnings: list[str] = []
    state: dict[str, object] = {}
    if os.path.isfile(state_path):
        state_shown = display(state_path)
        state = ralph.read_state(store.read_file(state_path, state_shown, spec.root), state_shown)
    elif source.v5 is None:
        warnings.append(f"no {ralph.STATE_FILE}: imported the progress file alone (no phase, "
                        "interview or skills)")
    from mdgrill.services.approvals import ignored_warning

    plan = _Plan(spec, state, warnings, source)
    plan.build(args.goal)
    text, block = _text(spec, source, plan)
    _check_result(prog, text, shown)
    ignored = ignored_warning(spec)
    if ignored is not None:
        warnings.append(ignored)
    result: dict[str, object] = {
        "spec": spec.rel_folder, "path": spec.rel_progress, "layout": source.layout,
        "goal_source": plan.goal_source,
        "phase": plan.updates.get("phase"), "ralph_phase": state.get("phase"),
        "mode": plan.updates["mode"], "interview": plan.interview_status,
        "skills": len(plan.skills), "ralph_digest": plan.ralph_digest,
        "context_digest": plan.mdgrill_digest,
        "found": ralph.summarize(prog) if prog is not None else None,
        "progress_md": ({"path": store.relpath_posix(os.path.join(spec.folder,
                                                                   ralph.CANONICAL), spec.root),
                         **{k: _plain(v) for k, v in source.record.items()},
                         "recorded_as": block} if source.v5 is not None else None),
        "overridden": plan.overridden, "warnings": warnings, "dry_run": bool(args.dry_run),
    }
    if args.dry_run:
        before = prog.tf.text if prog is not None else ""
        shown_text = unified_diff(before, text, shown) if args.diff else text
        result.update({"written": False, "text": shown_text})
        return Outcome(result, shown_text)
    if prog is None:
        if os.path.lexists(spec.progress):
            raise InputError("ALREADY_EXISTS", f"{shown} appeared meanwhile: import again")
        store.atomic_write(spec.progress, text.encode("utf-8"))
        backup = None
    else:
        backup = _backup(spec, source.legacy_raw)
        store.atomic_write(spec.progress, prog.tf.with_text(text).encode(),
                           expect=source.legacy_raw)
    result.update({"written": True,
                   "backup": store.relpath_posix(backup, spec.root) if backup else None})
    return Outcome(result, _summary(result, shown, display(backup) if backup else None,
                                    source))


def _plain(value: object) -> object:
    """A front-matter value as JSON can hold it (YAML reads a bare date as a date)."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def _text(spec: store.Spec, source: _Source, plan: _Plan) -> tuple[str, str | None]:
    """The imported file, and the heading of the block that records smart-ralph 5's
    approvals (None when there is nothing to record, or an imported interview of the same
    phase is still open: a block there would end it; the front matter keeps the record)."""
    from mdgrill.formats.schema import HEADING_WORD

    prog = source.legacy
    block: list[str] = []
    phase = plan.updates.get("phase")
    iv = plan.updates.get("interview")
    if source.v5 is not None and isinstance(phase, str) and not (
            isinstance(iv, dict) and iv.get("phase") == phase):
        block = ralph.imported_block(HEADING_WORD[phase], source.v5_shown, source.record)
    if prog is None:
        name = str(plan.updates["spec"])
        goal = plan.updates.get("goal")
        body = [f"# {name}", "", "## Goal", "", str(goal) if goal else "", "",
                "## Interview Responses", ""]
        base = Progress(TextFile("\n".join([*body, *block]) + "\n"), spec.rel_progress)
    elif block:
        base = Progress(prog.tf.with_text(ralph.append_to_log(prog, block)), spec.rel_progress)
    else:
        base = prog
    return with_record(base, plan.updates), block[0][4:] if block else None


class _Plan:
    """The front matter an import adds, worked out from the state and the files around it."""

    def __init__(self, spec: store.Spec, state: dict[str, object], warnings: list[str],
                 source: _Source) -> None:
        self.spec = spec
        self.prog = source.main
        self.source = source
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
        goal = self._goal(goal_arg)
        folder_name = os.path.basename(os.path.normpath(self.spec.folder))
        named = self.source.record.get("spec")
        name = single_line(named, "spec") if isinstance(named, str) and named.strip() \
            else ralph.spec_name(state, self.prog, folder_name)
        updates: dict[str, object] = {"mdgrill": 1, "spec": name}
        if goal is not None:
            updates["goal"] = goal
        else:
            self.warnings.append("no goal found (state goal, `## Original Goal` or `## Goal`): "
                                 "add `goal:` to the front matter before an interview")
        phase = self._phase()
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
        merged = self.source.legacy is not None  # into the file's own front matter
        for key, value in list(updates.items()):
            if merged and key in self.prog.data and self.prog.data[key] != value:
                self.overridden[key] = self.prog.data[key]
        ralph_record: dict[str, object] = dict(self.overridden)
        if self.source.v5 is not None:
            ralph_record["progress_md"] = {k: _plain(v) for k, v in self.source.record.items()
                                           if v is not None}
        if ralph_record:
            updates["ralph"] = ralph_record
        self.updates = updates

    def _goal(self, goal_arg: str | None) -> str | None:
        """--goal, else the state's or a section's (the older file's, then progress.md's)."""
        if goal_arg is not None:
            self.goal_source = "--goal"
            return single_line(goal_arg, "--goal")
        goal, self.goal_source = ralph.goal_of(self.state, self.prog)
        v5 = self.source.v5
        if goal is None and v5 is not None and v5 is not self.prog:
            goal, where = ralph.goal_of({}, v5)
            self.goal_source = f"{ralph.CANONICAL} {where}"
        return goal

    def _phase(self) -> str | None:
        """The state's phase; where smart-ralph 5's progress.md exists, its phase (that file
        is smart-ralph's durable truth, the state only a local cache)."""
        state, record = self.state, self.source.record
        phase = ralph.map_phase(state.get("phase"))
        if self.source.v5 is None:
            return phase
        durable = ralph.v5_phase(record)
        if durable is None:
            self.warnings.append(f"{self.source.v5_shown} names no phase mdgrill knows (phase "
                                 f"`{record.get('phase')}`, approved_through "
                                 f"`{record.get('approved_through')}`)")
        elif phase is not None and phase != durable:
            self.warnings.append(f"{ralph.STATE_FILE} says phase `{state.get('phase')}` and "
                                 f"{self.source.v5_shown} `{record.get('phase')}`: took "
                                 f"{durable}, from progress.md (smart-ralph 5's canonical file)")
        return durable

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
        context = load.get("context")
        if not isinstance(context, dict):
            context = {}
        snapshot = context.get("goal")
        ralph_goal = snapshot if isinstance(snapshot, str) and snapshot.strip() else goal
        rows, missing = self._sources(phase)
        recomputed = None
        if ralph_goal is not None and not missing:
            recomputed = ralph.ralph_context_digest(phase, ralph_goal,
                                                    [(path, data) for path, _, data in rows])
        artifacts = context.get("artifacts")
        if not isinstance(artifacts, list):
            artifacts = []
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


def _check_result(prog: Progress | None, text: str, shown: str) -> None:
    """Refuse to write a result that lost a line of the file it converts, or that
    `validate` would reject."""
    if prog is not None:
        original = ralph.body_text(prog.tf, shown)
        missing = ralph.first_missing_line(original, text)
        if missing is not None:
            raise InputError("INTERNAL_WRITE_CHECK", f"the import would lose line {missing + 1} "
                             f"of {shown}'s body; nothing was written. Please report this.")
    tf = prog.tf.with_text(text) if prog is not None else TextFile(text)
    refuse_invalid(tf.encode(), shown)


def _tracked_clean(spec: store.Spec) -> bool:
    """True when git holds the file exactly as it is (so git history is the backup)."""
    if not in_repository(spec.root):
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


def _summary(result: dict[str, object], shown: str, backup: str | None,
             source: _Source) -> str:
    lines = [f"imported {shown}: phase {result['phase'] or 'none'}, mode {result['mode']}, "
             f"interview {result['interview'] or 'none'}, {result['skills']} skill(s)"]
    record = result.get("progress_md")
    if isinstance(record, dict):
        phase = result["phase"]
        lines.append(f"{source.v5_shown} is smart-ralph's and was not changed: smart-ralph 5 "
                     "keeps working on it, mdgrill on its own .progress.md")
        recorded = record.get("recorded_as")
        where = f"as `### {recorded}`" if recorded else "in the front matter (`ralph:`)"
        lines.append(f"approved_through `{record.get('approved_through') or 'none'}` is recorded "
                     f"{where} as history: mdgrill vouches for no approval it did not see; the "
                     f"{phase or 'next'} interview runs through mdgrill's gate"
                     + (f" (mdgrill begin-interview {result['spec']} --phase {phase})"
                        if phase else ""))
    if source.legacy is None:
        lines.append(f"created {shown} beside it (there was no older file to convert)")
    elif backup:
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


VERBS = (
    Verb("import-ralph", "Turn a smart-ralph spec folder (either layout) into mdgrill's format.",
         _arguments, run),
)
