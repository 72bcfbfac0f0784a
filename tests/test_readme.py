"""The README is a quick start (issue 35, part 3): at most 2,000 words, the two set-up commands
exactly as CI runs them, a command-line quick start that works as pasted, and links that lead
somewhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo

CHECKOUT = Path(__file__).resolve().parents[1]
README = (CHECKOUT / "README.md").read_text(encoding="utf-8")
DEMO = "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/mdgrill demo"
TESTS = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && "
         ".venv/bin/python -m pytest -q")


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S)


def test_the_readme_is_a_quick_start() -> None:
    assert len(README.split()) <= 2000
    # the two set-up commands come first, one block each, exactly as .ci/lone-clone runs them
    assert sh_blocks(README)[:2] == [DEMO + "\n", TESTS + "\n"]


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file() -> None:
    broken = []
    for page in [CHECKOUT / "README.md", *(CHECKOUT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if not target.startswith(("http://", "https://")) and \
                    not (page.parent / target).exists():
                broken.append(f"{page.name}: {target}")
    assert broken == []


def test_the_docs_map_lists_every_page() -> None:
    pages = {p.name for p in (CHECKOUT / "docs").glob("*.md")}
    assert pages == set(re.findall(r"\(docs/([a-z-]+\.md)\)", README))


@pytest.mark.skipif(sys.platform == "win32", reason="the quick start is a POSIX shell session")
def test_the_command_line_quick_start_works_as_pasted(tmp_path: Path) -> None:
    """The README's "From the command line" block, run by `sh` in a fresh repository with the
    installed mdgrill on PATH: every command succeeds and the gate lets the work through."""
    section = README.split("## From the command line", 1)[1]
    script = sh_blocks(section)[0]
    repo, env = make_repo(tmp_path)
    env["PATH"] = f"{Path(MDGRILL[0]).parent}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["sh", "-e", "-c", script], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "recorded D1 -> Every customer" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("allow")
