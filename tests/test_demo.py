"""`mdgrill demo` shows the loop the plugin's skill runs (issue 35, point 7): `ask`, the
user's reply through `answer`, `questionnaire` and `collect` for a person in an editor;
never the lower-level verbs an agent does not need."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_reliability import MDGRILL, make_repo

SKILL = Path(__file__).resolve().parents[1] / "skills" / "grill" / "SKILL.md"
LOWER = {"open-frontier", "record-answer", "classify-reply"}


def test_the_demo_runs_the_skills_loop(tmp_path: Path) -> None:
    _, env = make_repo(tmp_path)
    proc = subprocess.run([*MDGRILL, "--json", "demo", str(tmp_path / "demo")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    steps = json.loads(proc.stdout)["steps"]
    verbs = [step["command"][0] for step in steps]
    assert {"ask", "answer", "questionnaire", "collect"} <= set(verbs)
    assert LOWER.isdisjoint(verbs)
    assert all(step["exit"] == step["expected"] for step in steps)
    # the skill's loop is the same one
    skill = SKILL.read_text(encoding="utf-8")
    assert "mdgrill ask SPEC" in skill and "mdgrill answer SPEC" in skill
    assert not any(f"mdgrill {verb}" in skill for verb in LOWER)
    # the user's reply to the Markdown round is read as the skill says: a letter is the
    # option shown there, the recommendation by the user's words
    progress = (tmp_path / "demo" / "specs" / "checkout-discounts" / ".progress.md").read_text()
    assert "- Decisions: D1 -> Every customer\n" in progress
    assert '- Decisions: D3 -> Before tax (accepted recommendation: "go with your ' \
        'recommendation")' in progress
