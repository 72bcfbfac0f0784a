"""The entry contract's skill load, where the project declares the skills its agents load.

"Record the load manifest with `phase_gate.py record-skill-load`" (mdgrill's verb of that
name) and "Block when this skill or the core algorithm reference cannot be loaded" (the
framework's entry contract): with `skills:` in
`.mdgrill.yaml`, beginning an interview, the quick bypass and delegation each need a recorded
manifest that names every declared skill and marks exactly one of them as the core skill.
Pure: the record and the declared names in, a refusal out.
"""

from __future__ import annotations

from mdgrill.errors import GateRefusal

RECORD_HINT = ("load them, then record the load manifest with `mdgrill record-skill-load SPEC "
               "--input MANIFEST.json` (docs/contract.md: phase, interview_id, "
               "discovery_revision, skills)")


def require_manifest(data: dict[str, object], declared: list[str]) -> None:
    """Refuse unless the recorded manifest names each declared skill and one core skill."""
    if not declared:
        return
    header = data.get("skill_manifest")
    skills = data.get("skills")
    entries = [s for s in skills if isinstance(s, dict)] if isinstance(skills, list) else []
    listed = ", ".join(declared)
    if not isinstance(header, dict) or not entries:
        raise GateRefusal("SKILL_LOAD_MISSING",
                          f"this project declares the skills its agents load (`skills: "
                          f"[{listed}]` in .mdgrill.yaml) and no load manifest is recorded: "
                          + RECORD_HINT, details={"declared": declared})
    names = [str(s.get("name")) for s in entries]
    missing = [name for name in declared if name not in names]
    if missing:
        raise GateRefusal("SKILL_LOAD_MISSING",
                          f"the recorded load manifest lacks {', '.join(missing)} (declared in "
                          f".mdgrill.yaml `skills:`; the manifest names {', '.join(names)}): "
                          + RECORD_HINT, details={"declared": declared, "missing": missing})
    core = [name for name, s in zip(names, entries, strict=True) if s.get("core") is True]
    if len(core) != 1:
        shown = ", ".join(core) if core else "none"
        raise GateRefusal("CORE_SKILL_COUNT",
                          f"the load manifest marks {len(core)} core skills ({shown}): exactly "
                          "one skill is the core algorithm (`\"core\": true`), and an interview "
                          "is blocked when it cannot be loaded; record the manifest again",
                          details={"core": core})
