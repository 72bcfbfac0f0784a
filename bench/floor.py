"""The least a CPython program can do to open the next round of an mdgrill spec: a floor under
`open-frontier`'s time, timed by `bench_peer.py --floor` (issue 37, goal 3).

    python bench/floor.py SPEC_FOLDER --round N --decision-id ID [--decision-id ID ...]
        [--imports MODULE,MODULE,...]

It is not mdgrill and checks nothing. It does only what any program doing this job on this
file must do, in the plainest way: parse its arguments; read the file and decode it; take the
design tree's node IDs and the log's decided IDs with one pattern each (only the one form
mdgrill writes); find the open nodes whose prerequisites are settled; close the last round
with its frontier and open the next; hash the new log into the front matter's seal (the rest
of the interview record is left as it was); write the file beside
itself, fsync it, rename it over the old one and fsync the folder; print one JSON line.

`--imports` first imports the named modules, in order. `bench_peer.py --floor` passes the
mdgrill modules the real verb imports, so the bench also shows what the floor costs once
mdgrill's own code is loaded, before it does any work.
"""

from __future__ import annotations

import gc

gc.disable()  # as mdgrill's verbs do: a short process never waits on the cycle collector

import argparse  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402

NODE = re.compile(r"\n### ([A-Za-z][A-Za-z0-9]*):")
DECIDED = re.compile(r"\n- Decisions: ([A-Za-z][A-Za-z0-9]*) -> ")
DEPENDS = re.compile(r"\n- Depends on: ([^\n]*)")
TREE, LOG = "\n## Design Tree\n", "\n## Interview Responses\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--round", type=int, required=True)
    ap.add_argument("--decision-id", action="append", required=True)
    ap.add_argument("--imports", default="")
    opts = ap.parse_args()
    for name in filter(None, opts.imports.split(",")):
        importlib.import_module(name)
    path = os.path.join(opts.spec, ".progress.md")
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8")
    tree, log = text.index(TREE), text.index(LOG)
    nodes = NODE.findall(text, tree, log)
    settled = set(DECIDED.findall(text, log))
    frontier = []
    for node_id in nodes:
        if node_id in settled:
            continue
        at = text.index(f"\n### {node_id}:", tree, log)
        depends = DEPENDS.search(text, at, text.find("\n### ", at + 1, log) % (log + 1))
        needs = [] if depends is None or depends.group(1) == "none" else \
            [d.strip() for d in depends.group(1).split(",")]
        if all(d in settled for d in needs):
            frontier.append(node_id)
    asked = ", ".join(opts.decision_id)
    new_log = (f"{text[log:].rstrip()}\n- Frontier after round: {', '.join(frontier) or 'none'}"
               f"\n\n### Requirements Grill - Round {opts.round}\n- Asked: {asked}\n")
    seal = hashlib.sha256(new_log.encode()).hexdigest()
    head = re.sub(r"(?m)^  sha256: [0-9a-f]{64}$", f"  sha256: {seal}", text[:tree], count=1)
    temporary = path + ".floor"
    with open(temporary, "wb") as handle:
        handle.write(f"{head}{text[tree:log]}{new_log}".encode())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    folder = os.open(opts.spec, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    print(json.dumps({"ok": True, "round": opts.round, "pending": opts.decision_id,
                      "frontier": frontier}))
    gc.freeze()  # as mdgrill's verbs do: the interpreter's passes at exit skip what lives


if __name__ == "__main__":
    main()
