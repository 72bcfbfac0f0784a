"""mdgrill: an agent's requirements interview kept in Markdown files people can read and diff.

The public API (docs/api.md): `Spec` drives one spec's interview; each method returns a
`Result` subclass named for what it did (`Began`, `AnswerRecorded`, `Confirmed`, `Asked`, ...,
its fields as typed properties) or `Diagnostic`s, and raises `MdgrillError` (`InputError`,
`GateRefusal`).
Everything else is private to its module.
"""

from __future__ import annotations

from mdgrill.errors import GateRefusal, InputError, MdgrillError
from mdgrill.lazy import lazy_names

# `typing` costs 3 ms to import and a part of mdgrill (the glossary reader) may be all a
# user imports; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.api import Spec
    from mdgrill.diagnostics import Diagnostic
    from mdgrill.services.result import (
        Allowed,
        Amended,
        AnswerRecorded,
        ArtifactApproved,
        Began,
        Bound,
        Cancelled,
        Classified,
        Committed,
        Confirmed,
        Digest,
        FactRecorded,
        Frontier,
        Initialized,
        Ledger,
        Mode,
        NodeAdded,
        Opened,
        OutOfScope,
        Presented,
        Questionnaire,
        Reaffirmed,
        Reopened,
        Resolved,
        Result,
        Revised,
        RevisionRequested,
        Selected,
        Signed,
        SkillsRecorded,
        Skipped,
        Status,
        StopRecorded,
        Submitted,
        Tree,
    )
    from mdgrill.services.rounds import Answered, Asked

__version__ = "0.1.0"
__all__ = [
    "Allowed", "Amended", "AnswerRecorded", "Answered", "ArtifactApproved", "Asked", "Began",
    "Bound", "Cancelled", "Classified", "Committed", "Confirmed", "Diagnostic", "Digest",
    "FactRecorded", "Frontier", "GateRefusal", "Initialized", "InputError", "Ledger",
    "MdgrillError", "Mode", "NodeAdded", "Opened", "OutOfScope", "Presented", "Questionnaire",
    "Reaffirmed", "Reopened", "Resolved", "Result", "Revised", "RevisionRequested", "Selected",
    "Signed", "SkillsRecorded", "Skipped", "Spec", "Status", "StopRecorded", "Submitted", "Tree",
    "__version__",
]

# what `Spec`'s methods return, each named for what the operation did
RESULTS = ("Allowed", "Amended", "AnswerRecorded", "ArtifactApproved", "Began", "Bound",
           "Cancelled", "Classified", "Committed", "Confirmed", "Digest", "FactRecorded",
           "Frontier", "Initialized", "Ledger", "Mode", "NodeAdded", "Opened",
           "OutOfScope", "Presented", "Questionnaire", "Reaffirmed", "Reopened", "Resolved",
           "Revised", "RevisionRequested", "Selected", "Signed", "SkillsRecorded",
           "Skipped", "Status", "StopRecorded", "Submitted", "Tree")

# Loaded on first use: `import mdgrill.cli.main` runs this file, and a verb should not pay
# for the services it does not call.
_LAZY = {"Spec": "mdgrill.api", "Result": "mdgrill.services.result",
         "Asked": "mdgrill.services.rounds", "Answered": "mdgrill.services.rounds",
         "Diagnostic": "mdgrill.diagnostics",
         **dict.fromkeys(RESULTS, "mdgrill.services.result")}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
