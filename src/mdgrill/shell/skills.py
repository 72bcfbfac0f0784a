"""The skill-load manifest (docs/contract.md): read, normalize and check it against the files."""

from __future__ import annotations

import json
import os
import re
import sys

from mdgrill.errors import InputError
from mdgrill.formats.schema import PHASES
from mdgrill.model.digest import file_sha256
from mdgrill.shell import store

_SHA = re.compile(r"[0-9a-f]{64}\Z")
_NEGATIVE = re.compile(r"-[0-9]+\Z")


Manifest = tuple[dict[str, object], list[dict[str, object]]]


def read_manifest(source: str, spec: store.Spec) -> Manifest:
    """(header, skills) from a manifest file or `-`; every loaded file's hash is checked now."""
    if source == "-":
        raw = sys.stdin.buffer.read(8 * 1024 * 1024)
    else:
        raw = store.read_file(source, source)
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError("INVALID_JSON", f"the manifest {source} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InputError("INVALID_JSON", "the manifest must be a JSON object")
    if "selected" in value and "interviewId" in value:
        value = from_ralph(value, spec)
    return normalize(value, spec)


def normalize(value: dict[str, object], spec: store.Spec) -> Manifest:  # noqa: C901
    """Check every field of a manifest in turn (one refusal per field, in the order read)."""
    phase = value.get("phase")
    if phase not in PHASES:
        raise InputError("INVALID_PHASE", f"manifest phase `{phase}` is not one of "
                         f"{', '.join(PHASES)}")
    iid = value.get("interview_id")
    if not isinstance(iid, str) or not iid.strip():
        raise InputError("INVALID_MANIFEST", "manifest interview_id must be a non-empty string")
    revision = value.get("discovery_revision")
    if isinstance(revision, bool) or not isinstance(revision, (int, str)):
        raise InputError("INVALID_MANIFEST", "manifest discovery_revision must be a string or a "
                         "whole number")
    if (isinstance(revision, int) and revision < 0) or \
            (isinstance(revision, str) and _NEGATIVE.match(revision.strip())):
        raise InputError("INVALID_REVISION", f"manifest discovery_revision {revision} is "
                         "negative: a discovery revision counts passes from 0")
    entries = value.get("skills")
    if not isinstance(entries, list):
        raise InputError("INVALID_MANIFEST", "manifest skills must be a list")
    skills: list[dict[str, object]] = []
    names: set[str] = set()
    for index, entry in enumerate(entries):
        label = f"skills[{index}]"
        if not isinstance(entry, dict):
            raise InputError("INVALID_MANIFEST", f"{label} must be an object")
        name, path = entry.get("name"), entry.get("path")
        if not isinstance(name, str) or not name.strip() or "\n" in name:
            raise InputError("INVALID_MANIFEST", f"{label}.name must be a one-line string")
        if name in names:
            raise InputError("INVALID_MANIFEST", f"skill {name} is listed twice")
        names.add(name)
        if not isinstance(path, str) or not path or os.path.isabs(path) or \
                ".." in path.replace("\\", "/").split("/") or \
                any(ord(char) < 32 or ord(char) == 127 for char in path):
            raise InputError("INVALID_MANIFEST", f"{label}.path must be repo-relative (no `..`, "
                             "not absolute, no control characters)")
        status = entry.get("status")
        if status not in ("loaded", "failed"):
            raise InputError("INVALID_MANIFEST", f"{label}.status must be loaded or failed")
        core = entry.get("core", False)
        if not isinstance(core, bool):
            raise InputError("INVALID_MANIFEST", f"{label}.core must be true or false")
        errors = entry.get("errors", [])
        if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
            raise InputError("INVALID_MANIFEST", f"{label}.errors must be a list of strings")
        sha = entry.get("sha256")
        if status == "loaded":
            if not isinstance(sha, str) or not _SHA.match(sha):
                raise InputError("INVALID_MANIFEST", f"{label}.sha256 must be 64 lowercase hex")
            full = os.path.join(spec.root, path)
            actual = file_sha256(store.read_file(full, path, spec.root))
            if actual != sha:
                raise InputError("HASH_MISMATCH", f"{path} does not match the sha256 recorded "
                                 f"for skill {name}: load the skill again")
        elif sha is not None:
            # a failed load read no bytes: a hash beside it contradicts the status
            raise InputError("INCONSISTENT_LOAD", f"{label} ({name}) failed to load but carries "
                             "a sha256: a failed entry records its errors and no hash; record "
                             "what the load really did")
        elif not errors:
            raise InputError("INVALID_MANIFEST", f"{label} failed but records no errors")
        skills.append({"name": name, "path": path.replace("\\", "/"),
                       "sha256": sha if status == "loaded" else None, "core": core,
                       "status": status, "errors": [str(e) for e in errors]})
    header: dict[str, object] = {"phase": phase, "interview_id": iid,
                                 "discovery_revision": revision}
    return header, skills


def from_ralph(value: dict[str, object], spec: store.Spec) -> dict[str, object]:
    """smart-ralph's phaseSkillLoad manifest, as mdgrill's."""
    skills = []
    selected = value.get("selected")
    if not isinstance(selected, list):
        raise InputError("INVALID_MANIFEST", "phaseSkillLoad.selected must be a list")
    for item in selected:
        if not isinstance(item, dict):
            raise InputError("INVALID_MANIFEST", "phaseSkillLoad.selected entries are objects")
        body = item.get("body")
        if not isinstance(body, dict):
            body = {}
        source = str(item.get("source", ""))
        rel = store.relpath_posix(source, spec.root) if os.path.isabs(source) else source
        skills.append({"name": item.get("name"), "path": rel, "sha256": body.get("sha256"),
                       "core": item.get("core", False),
                       "status": body.get("loadStatus", "loaded"),
                       "errors": body.get("errors", [])})
    return {"phase": value.get("phase"), "interview_id": value.get("interviewId"),
            "discovery_revision": value.get("discoveryRevision"), "skills": skills}
