"""mdgrill: an agent's requirements interview kept in Markdown files people can read and diff.

The public API (docs/api.md): `Spec` drives one spec's interview; its methods return `Result`
(`Asked`, `Answered`) or `Diagnostic`s and raise `MdgrillError` (`InputError`, `GateRefusal`).
Everything else is private to its module.
"""

from __future__ import annotations

from mdgrill.errors import GateRefusal, InputError, MdgrillError

# `typing` costs 3 ms to import and a part of mdgrill (the glossary reader) may be all a
# user imports; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.api import Spec
    from mdgrill.diagnostics import Diagnostic
    from mdgrill.services.result import Result
    from mdgrill.services.rounds import Answered, Asked

__version__ = "0.1.0"
__all__ = ["Answered", "Asked", "Diagnostic", "GateRefusal", "InputError", "MdgrillError",
           "Result", "Spec", "__version__"]

# Loaded on first use: `import mdgrill.cli.main` runs this file, and a verb should not pay
# for the services it does not call.
_LAZY = {"Spec": "mdgrill.api", "Result": "mdgrill.services.result",
         "Asked": "mdgrill.services.rounds", "Answered": "mdgrill.services.rounds",
         "Diagnostic": "mdgrill.diagnostics"}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mdgrill' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
