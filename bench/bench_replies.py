"""How well the reply classifier tells an answer from a non-answer (issue 31), on the table of
tests/fixtures/replies.tsv (500+ replies, 20+ languages, near misses both ways), and how fast.

    .venv/bin/python bench/bench_replies.py

Prints, for "answer" (substantive) and "not an answer" (control-only, stop, skip, accept):
precision and recall against the table's labels, the count per language of the rows that
disagree, and the median time to classify a reply. The table is also a test
(tests/test_reply_table.py), so a release holds 100% on it; the figures here say how much of
that is near misses, and what the classifier costs per call.
"""

from __future__ import annotations

import csv
import os
import statistics
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "tests", "fixtures", "replies.tsv")


def main() -> int:
    from mdgrill.model.replies import SUBSTANTIVE, classify_reply

    with open(TABLE, encoding="utf-8") as handle:
        rows = list(csv.reader((line for line in handle if not line.startswith("#")),
                               delimiter="\t"))
    counts: Counter[tuple[bool, bool]] = Counter()
    wrong: Counter[str] = Counter()
    for reply, label, language in rows:
        said = classify_reply(reply) == SUBSTANTIVE
        truth = label == SUBSTANTIVE
        counts[(truth, said)] += 1
        if said != truth:
            wrong[language] += 1

    def ratio(hit: int, total: int) -> str:
        return f"{100 * hit / total:.1f}%" if total else "n/a"

    tp, fp = counts[(True, True)], counts[(False, True)]
    tn, fn = counts[(False, False)], counts[(True, False)]
    languages = len({lang for _, _, lang in rows})
    print(f"{len(rows)} replies in {languages} languages ({tp + fn} answers, "
          f"{tn + fp} non-answers)")
    print(f"answer:        precision {ratio(tp, tp + fp)}  recall {ratio(tp, tp + fn)}")
    print(f"not an answer: precision {ratio(tn, tn + fn)}  recall {ratio(tn, tn + fp)}")
    print("disagreeing rows by language:", dict(wrong) or "none")
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for reply, _, _ in rows:
            classify_reply(reply)
        times.append((time.perf_counter() - start) / len(rows))
    print(f"classify: {statistics.median(times) * 1e6:.1f} µs a reply (median of 5 passes)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
