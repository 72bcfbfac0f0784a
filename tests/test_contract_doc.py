"""docs/contract.md names every error and diagnostic code the code can produce, so the
project's contract is the code's (issue 15: the README no longer sends readers to a
DESIGN.md that is not in the repository)."""

from __future__ import annotations

import re
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
# the first argument of every constructor of a coded outcome, and watch's `"code":` reports
_CODE = re.compile(r'\b(?:InputError|GateRefusal|GateProblem|MdgrillError|error|warning)\(\s*'
                   r'(?:[^,()]+,\s*[^,()]+,\s*)?"([A-Z][A-Z0-9_]{2,})"'
                   r'|"code": "([A-Z][A-Z0-9_]{2,})"')


def codes_in_source() -> set[str]:
    found: set[str] = set()
    for path in (CHECKOUT / "src" / "mdgrill").rglob("*.py"):
        for m in _CODE.finditer(path.read_text(encoding="utf-8")):
            found.add(m.group(1) or m.group(2))
    return found | {"FILE_CHANGED"}  # store.FileChanged passes its code to InputError


def test_every_code_is_in_the_contract() -> None:
    text = (CHECKOUT / "docs" / "contract.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]{2,})`", text))
    missing = sorted(codes_in_source() - documented)
    assert missing == [], f"add these codes to docs/contract.md: {missing}"
    assert len(codes_in_source()) > 100  # the pattern still finds them


def test_the_readme_points_at_the_contract() -> None:
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    assert "docs/contract.md" in readme
    assert "DESIGN.md" not in readme
