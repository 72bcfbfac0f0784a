"""The interview record held in `.progress.md` front matter, and its invariants."""

from __future__ import annotations

from mdgrill.errors import InputError
from mdgrill.formats.schema import (
    CANONICAL_CONFIRMATION,
    INTERVIEW_KEYS,
    PHASES,
    QUICK_REASON,
    SHA256_RE,
    STATUSES,
    Problem,
    is_id,
)
from mdgrill.model.artifact import check_artifact

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TypeGuard


def new_interview(phase: str, interview_id: str, round_number: int, status: str,
                  digest: str, context: list[dict[str, str]]) -> dict[str, object]:
    return {
        "id": interview_id, "phase": phase, "round": round_number, "status": status,
        "context_digest": digest, "context": context, "asked": [], "pending": [],
        "approach": None, "confirmation": None,
        "bypass_reason": QUICK_REASON if status == "bypassed_quick" else None,
        "assumptions": [],
    }


def _str_list(value: object) -> TypeGuard[list[str]]:
    """A list of non-blank strings (C-speed checks: these lists hold up to 10,000s of IDs)."""
    if not isinstance(value, list):
        return False
    try:
        "".join(value)  # TypeError unless every item is a str
    except TypeError:
        return False
    return "" not in value and not any(map(str.isspace, value))


def _dict_list(value: object) -> TypeGuard[list[dict[str, object]]]:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


# -- typed reads ------------------------------------------------------------------------------
# A value of the record as the type the contract gives it, or INVALID_STATE (what a load says
# of a malformed record). A load checks the whole record first, so these refuse only a record
# a step has not been given through it; they are checks, not asserts, so `python -O` keeps them.


def _malformed(where: str, key: str, what: str, value: object) -> InputError:
    return InputError("INVALID_STATE", f"{where} {key} must be {what}, not "
                      f"{'null' if value is None else type(value).__name__}")


def int_field(record: Mapping[str, object], key: str, where: str) -> int:
    """`record[key]`, a whole number (not a bool)."""
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _malformed(where, key, "a whole number", value)
    return value


def str_list_field(record: Mapping[str, object], key: str, where: str) -> list[str]:
    """`record[key]`, a list of non-blank strings: the list itself, so a step that appends to
    it changes the record it was read from."""
    value = record.get(key)
    if not _str_list(value):
        raise _malformed(where, key, "a list of non-empty strings", value)
    return value


def dict_list_field(record: Mapping[str, object], key: str, where: str,
                    ) -> list[dict[str, object]]:
    """`record[key]`, a list of mappings; an empty list when the key is absent or null."""
    value = record.get(key)
    if value is None:
        return []
    if not _dict_list(value):
        raise _malformed(where, key, "a list of mappings", value)
    return value


def mapping_field(record: Mapping[str, object], key: str, where: str) -> dict[str, object]:
    """`record[key]`, a mapping."""
    value = record.get(key)
    if not isinstance(value, dict):
        raise _malformed(where, key, "a mapping", value)
    return value


def check_record(data: dict[str, object]) -> list[Problem]:
    """Every way the front matter breaks the contract; an empty list when it holds."""
    problems: list[Problem] = []

    def bad(code: str, message: str, key: str) -> None:
        problems.append(Problem(code, message, key))

    version = data.get("mdgrill")
    if version != 1:
        bad("INVALID_STATE", f"`mdgrill: {version}` is not a version this mdgrill reads "
            "(expected `mdgrill: 1`)", "mdgrill")
    phase = data.get("phase")
    if phase is not None and phase not in PHASES:
        bad("INVALID_PHASE", f"phase `{phase}` is not one of {', '.join(PHASES)}", "phase")
    mode = data.get("mode", "interactive")
    if mode not in ("interactive", "quick"):
        bad("INVALID_STATE", f"mode `{mode}` is neither `interactive` nor `quick`", "mode")
    goal = data.get("goal")
    if goal is not None and not isinstance(goal, str):
        bad("INVALID_STATE", "goal must be text", "goal")
    required = data.get("required_sections", [])
    if not _str_list(required):
        bad("INVALID_STATE", "required_sections must be a list of section names",
            "required_sections")
    skills = data.get("skills", [])
    if not isinstance(skills, list) or not all(isinstance(s, dict) for s in skills):
        bad("INVALID_STATE", "skills must be a list of manifest entries", "skills")
    log = data.get("log")
    if log is not None and not (isinstance(log, dict) and isinstance(log.get("sha256"), str)
                                and SHA256_RE.match(str(log.get("sha256")))):
        bad("INVALID_STATE", "log must be `{blocks: N, sha256: <64 hex>}`", "log")
    if data.get("artifact") is not None:
        problems.extend(check_artifact(data))
    interview = data.get("interview")
    if interview is not None:
        if not isinstance(interview, dict):
            bad("INVALID_STATE", "interview must be a mapping (or null)", "interview")
        else:
            problems.extend(check_interview(interview, mode))
    return problems


def check_interview(iv: dict[str, object], mode: object) -> list[Problem]:  # noqa: C901
    """the contract's invariants, one line each (kept together: they read as the table they are)."""
    problems: list[Problem] = []

    def bad(code: str, message: str) -> None:
        problems.append(Problem(code, message, "interview"))

    missing = [k for k in INTERVIEW_KEYS if k not in iv]
    if missing:
        bad("INVALID_STATE", f"interview lacks {', '.join(missing)}")
        return problems
    if not is_id(iv["id"]):
        bad("INVALID_STATE", f"interview id `{iv['id']}` is not a valid ID")
    if iv["phase"] not in PHASES:
        bad("INVALID_PHASE", f"interview phase `{iv['phase']}` is not one of {', '.join(PHASES)}")
    rnd = iv["round"]
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
        bad("INVALID_STATE", "interview round must be a positive whole number")
    status = iv["status"]
    if status not in STATUSES:
        bad("INVALID_STATE", f"interview status `{status}` is not one of {', '.join(STATUSES)}")
    digest = iv["context_digest"]
    if not (isinstance(digest, str) and SHA256_RE.match(digest)):
        bad("INVALID_STATE", "interview context_digest must be 64 lowercase hex characters")
    context = iv["context"]
    if not isinstance(context, list) or not all(
            isinstance(c, dict) and isinstance(c.get("path"), str)
            and isinstance(c.get("sha256"), str) for c in context):
        bad("INVALID_STATE", "interview context must be a list of {path, sha256}")
    lists: dict[str, list[str]] = {}
    for key in ("asked", "pending", "assumptions"):
        value = iv[key]
        if not _str_list(value):
            bad("INVALID_STATE", f"interview {key} must be a list of non-empty strings")
            return problems
        lists[key] = value
    asked, pending = lists["asked"], lists["pending"]
    asked_set, pending_set = set(asked), set(pending)
    if len(asked_set) != len(asked) or len(pending_set) != len(pending):
        bad("INVALID_STATE", "interview asked/pending must not repeat an ID")
    if not pending_set <= asked_set:
        extra = sorted(pending_set - asked_set)
        bad("INVALID_STATE", f"pending IDs {', '.join(extra)} were never asked (pending ⊆ asked)")
    for key in ("approach", "confirmation", "bypass_reason"):
        value = iv[key]
        if value is not None and not (isinstance(value, str) and value.strip()):
            bad("INVALID_STATE", f"interview {key} must be text or null")
    approach, confirmation, bypass = iv["approach"], iv["confirmation"], iv["bypass_reason"]
    if confirmation is not None and confirmation != CANONICAL_CONFIRMATION:
        bad("INVALID_CONFIRMATION_SOURCE",
            f"confirmation must be `{CANONICAL_CONFIRMATION}`, not `{confirmation}`")
    if status == "collecting" and (approach is not None or confirmation is not None
                                   or bypass is not None):
        bad("INVALID_STATE",
            "a collecting interview has no approach, confirmation or bypass reason")
    elif status == "awaiting_confirmation" and (len(pending) != 1 or approach is None
                                                or confirmation is not None):
        bad("INVALID_STATE", "awaiting_confirmation needs exactly one pending ID (the "
            "confirmation ID), an approach, and no confirmation yet")
    elif status == "complete" and (pending or approach is None
                                   or confirmation != CANONICAL_CONFIRMATION or bypass is not None):
        bad("INVALID_STATE", "complete needs nothing pending, an approach, confirmation "
            f"`{CANONICAL_CONFIRMATION}` and no bypass reason")
    elif status == "skipped" and (pending or approach is None
                                  or confirmation != CANONICAL_CONFIRMATION or bypass is None
                                  or not iv["assumptions"]):
        bad("INVALID_STATE", "skipped needs nothing pending, an approach, confirmation "
            f"`{CANONICAL_CONFIRMATION}`, a bypass reason and at least one assumption")
    elif status == "bypassed_quick":
        if pending or approach is not None or confirmation is not None or bypass != QUICK_REASON:
            bad("INVALID_STATE", "bypassed_quick has nothing pending, no approach or confirmation, "
                f"and bypass reason `{QUICK_REASON}`")
        if mode != "quick":
            problems.append(Problem("QUICK_NOT_AUTHORIZED", "bypassed_quick needs `mode: quick`, "
                                    "which only `mdgrill mode --quick` sets", "interview"))
    return problems


def require_spec_name(name: str) -> str:
    """A folder name usable as a spec's name (an ID, or one that starts with digits as
    spec-kit's `001-feature` folders do)."""
    if not (is_id(name) or (name[:1].isdigit() and is_id("x" + name))):
        raise InputError("INVALID_ID", f"`{name}` is not a usable spec name: use letters, "
                         "digits, `.`, `_` or `-`")
    return name
