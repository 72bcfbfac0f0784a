#!/usr/bin/env python3
"""import-speckit and export-speckit over a folder of real spec.md files (issue 20).

    .venv/bin/python bench/speckit_real.py DIR [--json]

Every file under DIR whose name ends in `spec.md` is copied to its own feature folder in a
throw-away git repository, then put through the installed CLI: `import-speckit`, `validate`
of what it wrote, `export-speckit` (nothing new to add), and a byte comparison of spec.md
with the original. Then one more question is answered through mdgrill and exported: the
bytes before `## Clarifications` and from the next `##` on must be the original's, and the
section must read back with the new answer last in its session. Prints one line a file and
the totals; exits 1 when a file fails.

The real files are not in this repository (their authors' licences and the rule that
fetched code stays out of commits keep them out); point DIR at a checkout of any project
that uses spec-kit. The test suite runs this script over the fixtures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

MDGRILL = os.path.join(os.path.dirname(sys.executable), "mdgrill")


def cli(repo: str, *argv: str) -> tuple[int, dict[str, object]]:
    proc = subprocess.run([MDGRILL, "--json", *argv], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    if "Traceback" in proc.stderr:
        raise SystemExit(f"traceback from mdgrill {' '.join(argv)}:\n{proc.stderr}")
    payload = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, payload


def check(repo: str, index: int, source: str) -> dict[str, object]:
    spec = f"specs/f{index:03d}"
    os.makedirs(os.path.join(repo, spec))
    target = os.path.join(repo, spec, "spec.md")
    shutil.copyfile(source, target)
    with open(source, "rb") as handle:
        before = handle.read()
    start = time.perf_counter()
    code, out = cli(repo, "import-speckit", target)
    took = time.perf_counter() - start
    row: dict[str, object] = {"file": source, "imported": code == 0, "import_ms": took * 1000}
    if code != 0:
        row["error"] = out.get("error")
        return row
    valid, _ = cli(repo, "validate", spec)
    exported, out2 = cli(repo, "export-speckit", spec, "--date", "2000-01-01")
    with open(target, "rb") as handle:
        after = handle.read()
    sessions = out.get("sessions")
    row["added_ok"] = add_one(repo, spec, target, after)
    row.update({"valid": valid == 0, "exported": exported == 0,
                "identical": after == before and out2.get("written") is False,
                "sessions": len(sessions) if isinstance(sessions, list) else 0,
                "clarifications": out.get("decisions"),
                "not_imported": len(out.get("not_imported") or [])})
    return row


def add_one(repo: str, spec: str, target: str, before: bytes) -> bool:
    """Answer one new question through mdgrill, export it, and check what changed."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    from mdgrill.formats.textfile import decode
    from mdgrill.integrations import speckit

    steps = [("begin-interview", spec, "--phase", "requirements", "--interview-id", "bench"),
             ("node", "add", spec, "DB1", "--title", "Is this the question the bench added?",
              "--option", "It is", "--option", "It is not", "--recommend", "1", "--rationale",
              "the bench adds one", "--tradeoffs", "none: a bench question"),
             ("open-frontier", spec, "--round", "1", "--decision-id", "DB1"),
             ("record-answer", spec, "--decision-id", "DB1", "--answer", "It is, from the bench"),
             ("export-speckit", spec, "--date", "2000-01-02")]
    if any(cli(repo, *step)[0] != 0 for step in steps):
        return False
    with open(target, "rb") as handle:
        after = handle.read()
    text_old, text_new = decode(before), decode(after)
    old, new = speckit.read(text_old), speckit.read(text_new)
    added = [s for s in (new.clarifications.sessions if new.clarifications else [])
             if s.label == "2000-01-02"]
    if not added or (added[0].items[-1].question, added[0].items[-1].answer) != (
            "Is this the question the bench added?", "It is, from the bench"):
        return False
    if old.clarifications is None:  # the section was made: without it, the same text
        made = new.clarifications
        assert made is not None
        lines = text_new.lines
        return "".join(lines[:made.heading_line] + lines[made.end:]) == text_old.text
    head = "".join(text_old.lines[:old.clarifications.heading_line])
    tail = "".join(text_old.lines[old.clarifications.end:])
    return text_new.text.startswith(head) and text_new.text.endswith(tail)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    files = sorted(os.path.join(top, name) for top, _, names in os.walk(args.folder)
                   for name in names if name.endswith("spec.md"))
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as repo:
        subprocess.run(["git", "init", "-q", repo], check=True)
        for index, path in enumerate(files):
            rows.append(check(repo, index, path))
    good = [r for r in rows if r.get("identical") and r.get("valid") and r.get("added_ok")]
    totals = {"files": len(rows), "imported": sum(1 for r in rows if r["imported"]),
              "valid": sum(1 for r in rows if r.get("valid")),
              "identical": sum(1 for r in rows if r.get("identical")),
              "added_ok": sum(1 for r in rows if r.get("added_ok")),
              "sessions": sum(int(r.get("sessions") or 0) for r in rows),
              "clarifications": sum(int(r.get("clarifications") or 0) for r in rows),
              "lines_not_imported": sum(int(r.get("not_imported") or 0) for r in rows),
              "rows": rows}
    if args.json:
        print(json.dumps(totals))
    else:
        for r in rows:
            mark = "ok  " if r in good else "FAIL"
            print(f"{mark} {r.get('sessions', 0):>2} sessions {r.get('clarifications', 0):>3} "
                  f"Q/A {r.get('not_imported', 0):>3} lines left  "
                  f"{float(r['import_ms']):6.1f} ms  {r['file']}")
        print(f"{totals['files']} files: {totals['imported']} imported, {totals['valid']} valid, "
              f"{totals['identical']} byte-identical after export, {totals['added_ok']} took a "
              f"new answer in that section alone; {totals['sessions']} "
              f"sessions, {totals['clarifications']} clarifications, "
              f"{totals['lines_not_imported']} section lines left in spec.md")
    return 0 if len(good) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
