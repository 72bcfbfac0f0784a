"""The baseline mdgrill is measured against: the same job on a JSON state file, stdlib only.

    python bench/json_baseline.py record-answer STATE.json ID ANSWER
    python bench/json_baseline.py open-frontier STATE.json ROUND ID [ID...]

Load, check, update, atomic write (temp file in the same folder, fsync, rename, fsync the
folder), under an flock on the folder - what a JSON-state helper script does per call.
When the state holds the design tree, advancing to the next round records the frontier of
the round it closes, as `mdgrill open-frontier` writes `Frontier after round:`.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys


def atomic_write(path: str, data: bytes) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    temp = os.path.join(folder, f".tmp-{os.getpid()}-{os.path.basename(path)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def main(argv: list[str]) -> int:
    verb, path = argv[0], argv[1]
    folder = os.path.dirname(os.path.abspath(path))
    lock = os.open(folder, os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with open(path, "rb") as handle:
            state = json.loads(handle.read())
        iv = state["interview"]
        if iv["status"] != "collecting":
            print(json.dumps({"ok": False, "error": "ILLEGAL_TRANSITION"}))
            return 3
        if verb == "record-answer":
            decision, answer = argv[2], argv[3]
            if decision not in iv["pending"]:
                print(json.dumps({"ok": False, "error": "DECISION_NOT_PENDING"}))
                return 3
            iv["pending"].remove(decision)
            state["answers"][decision] = " ".join(answer.split())
        elif verb == "open-frontier":
            rnd, ids = int(argv[2]), argv[3:]
            if rnd not in (iv["round"], iv["round"] + 1):
                print(json.dumps({"ok": False, "error": "INVALID_ROUND_TRANSITION"}))
                return 3
            if rnd == iv["round"] + 1 and iv["pending"]:
                print(json.dumps({"ok": False, "error": "DECISIONS_PENDING"}))
                return 3
            answered = set(iv["asked"]) - set(iv["pending"])
            if any(i in answered for i in ids):
                print(json.dumps({"ok": False, "error": "DECISION_ALREADY_RECORDED"}))
                return 3
            if rnd == iv["round"] + 1 and "tree" in state and state["rounds"]:
                settled = set(state["answers"])
                state["rounds"][-1]["frontier"] = [
                    node_id for node_id, node in state["tree"].items()
                    if node_id not in settled and all(d in settled for d in node["depends_on"])]
            asked, pending = set(iv["asked"]), set(iv["pending"])
            iv["asked"].extend(i for i in ids if i not in asked)
            iv["pending"].extend(i for i in ids if i not in pending)
            iv["round"] = rnd
            state["rounds"].append({"round": rnd, "asked": ids})
        else:
            print(json.dumps({"ok": False, "error": "USAGE"}))
            return 2
        atomic_write(path, json.dumps(state, indent=1).encode("utf-8"))
        print(json.dumps({"ok": True, "pending": iv["pending"]}))
        return 0
    finally:
        os.close(lock)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
