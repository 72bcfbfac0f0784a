"""The review page and the pull-request comment list the bound decisions that drifted and
those reaffirmed (issue 36 part 4: "the review page and the PR comment list drifted and
reaffirmed decisions"), through the installed CLI on a repository bound with `mdgrill bind`;
the page opened in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re
import subprocess
from html import unescape
from pathlib import Path

import pytest
from conftest import Run
from test_review_page import CHROMIUM, _artifacts, _chromium
from test_watch_bound import PRICING, SPEC, bind_repo


def chromium_or_skip() -> None:
    """No Chromium: skip with the reason, except in CI, where the page must be checked."""
    if CHROMIUM is not None:
        return
    reason = ("no headless Chromium: .ci/run installs Debian's chromium-headless-shell "
              "(apt-get install chromium-headless-shell)")
    if os.environ.get("CI") == "true":
        pytest.fail(reason + "; CI=true needs it")
    pytest.skip(reason)


def commit(repo: Path, message: str, rel: str, text: str) -> str:
    (repo / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def json_of(mdgrill: Run, repo: Path, *args: str) -> dict[str, object]:
    code, out, err = mdgrill("--json", *args, cwd=repo)
    assert code == 0, out + err
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def rows(dom: str, section: str) -> list[str]:
    """The text of each row of a bound-decisions table (`drifted` or `reaffirmed`)."""
    part = dom.split(f'<h3 id="{section}">', 1)[1].split("</table>", 1)[0]
    return [unescape(" ".join(re.sub(r"<[^>]+>", " ", r).split()))
            for r in re.findall(r'<tr class="bound">(.*?)</tr>', part)]


def test_the_pr_comment_lists_drifted_then_reaffirmed_decisions(repo: Path,
                                                                mdgrill: Run) -> None:
    bind_repo(repo, mdgrill)
    sha = commit(repo, "Twenty percent off", "src/pricing.py", PRICING.replace("0.9", "0.8"))
    # a pull request that changed only the code: no spec changed, yet the decision drifted
    code, out, err = mdgrill("review", "HEAD~1", "--format", "github", cwd=repo)
    assert code == 0, err
    assert "**Drifted (1):**" in out
    assert (f"| `D1` (specs/pricing) | Ten percent off | `src/pricing.py::discount` | changed: "
            f"`src/pricing.py::discount` changed in {sha[:7]} (Twenty percent off): does D1 "
            "'Ten percent off' still hold? |") in out
    assert "Reaffirmed" not in out
    assert json_of(mdgrill, repo, "review", "HEAD~1", "--format", "github")["drifted"] == [
        {"spec": SPEC, "decision": "D1", "answer": "Ten percent off",
         "target": "src/pricing.py::discount",
         "detail": f"changed: `src/pricing.py::discount` changed in {sha[:7]} (Twenty percent "
                   "off): does D1 'Ten percent off' still hold?"}]
    json_of(mdgrill, repo, "reaffirm", SPEC, "--decision-id", "D1", "--reply", "Still holds")
    code, out, err = mdgrill("review", "HEAD~1", "--format", "github", cwd=repo)
    assert code == 0, err
    assert "**Drifted:** none: every bound target is as it was bound." in out
    assert "**Reaffirmed (1):**" in out
    assert ("| `D1` (specs/pricing) | Ten percent off | `src/pricing.py::discount` | Still "
            "holds (reply: “Still holds”), by Test User &lt;test@example.com&gt; |") in out
    # a range before the reaffirmation does not list it; the drift is read from now
    code, out, _ = mdgrill("review", "HEAD~3..HEAD~1", "--format", "github", cwd=repo)
    assert "Reaffirmed" not in out and "**Drifted:** none" in out


def test_a_repository_without_bindings_shows_no_bindings_section(repo: Path,
                                                                  mdgrill: Run) -> None:
    (repo / "a.txt").write_text("a")
    commit(repo, "one", "a.txt", "a")
    commit(repo, "two", "a.txt", "b")
    code, out, _ = mdgrill("review", "HEAD~1", "--format", "github", cwd=repo)
    assert code == 0 and "bound to code" not in out


def test_the_page_lists_drifted_and_reaffirmed_decisions_in_chromium(
        repo: Path, mdgrill: Run, tmp_path: Path) -> None:
    chromium_or_skip()
    bind_repo(repo, mdgrill)
    out = _artifacts(tmp_path)
    sha = commit(repo, "Twenty percent off", "src/pricing.py", PRICING.replace("0.9", "0.8"))
    gone = commit(repo, "rename the policy section", "docs/policy.md",
           "# Policy\n\n## Refunds and returns\n\nWithin 30 days.\n")
    drifted = out / "report-drifted.html"
    json_of(mdgrill, repo, "report", SPEC, "--html", str(drifted))
    dom, log, urls = _chromium(drifted, out)
    assert "CONSOLE" not in log, log
    assert not [u for u in urls if not u.startswith(("file:", "data:"))], urls
    assert '<h3 id="drifted">Drifted (2)</h3>' in dom
    assert rows(dom, "drifted") == [
        f"D1 specs/pricing Ten percent off src/pricing.py::discount changed: "
        f"`src/pricing.py::discount` changed in {sha[:7]} (Twenty percent off): does D1 'Ten "
        "percent off' still hold?",
        "D1 specs/pricing Ten percent off docs/policy.md#Refunds missing: "
        f"`docs/policy.md#Refunds` is gone since {gone[:7]} (rename the policy section): does "
        "D1 'Ten percent off' still hold?"]
    assert 'id="reaffirmed"' not in dom
    commit(repo, "put the section back", "docs/policy.md",
           (repo / "docs" / "policy.md").read_text().replace("Refunds and returns", "Refunds"))
    json_of(mdgrill, repo, "reaffirm", SPEC, "--decision-id", "D1", "--reply", "1")
    reaffirmed = out / "report-reaffirmed.html"
    json_of(mdgrill, repo, "report", SPEC, "--html", str(reaffirmed))
    dom, log, _ = _chromium(reaffirmed, out)
    assert "CONSOLE" not in log, log
    assert '<h3 id="drifted">Drifted (0)</h3>' in dom
    assert "No bound decision has drifted" in dom
    assert rows(dom, "reaffirmed") == [
        "D1 specs/pricing Ten percent off src/pricing.py::discount Still holds (reply: “1”), "
        "by Test User <test@example.com> block"]
    anchor = re.search(r'<tr class="bound">.*?<a href="#([^"]+)">block</a>', dom.split(
        '<h3 id="reaffirmed">', 1)[1])
    assert anchor is not None and f'id="{anchor.group(1)}"' in dom  # the Reaffirmed block
    assert (out / "report-reaffirmed.png").stat().st_size > 10_000
