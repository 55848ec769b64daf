"""Print, per dimension, how many SAUs of the project's paper specs (benchmark_data/*.yaml) have structured checks,
how many are marked not code-checkable, how many D1 SAUs are incomplete (checks that cannot settle alone), and how
many elements of checkable claims are listed as outside code (``outside_code``: hardware, parameter counts, ...).

Usage: python benchmarks/spec_coverage.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sau.vocabulary import DIMENSIONS  # noqa: E402
from verifier.specs.project import load_project_spec  # noqa: E402


def main() -> None:
    folder = Path(__file__).resolve().parent.parent / "benchmark_data"
    counts: Counter = Counter()
    papers = 0
    for path in sorted(folder.glob("*.yaml")):
        if path.name == "registry.yaml" or path.stem.startswith("demo"):
            continue
        papers += 1
        for sau in load_project_spec(path).saus:
            counts[sau.dimension, "total"] += 1
            counts[sau.dimension, "checks" if sau.checkable else "not checkable"] += 1
            if sau.checkable and not sau.complete:
                counts[sau.dimension, "incomplete"] += 1
            counts["outside code"] += len(sau.outside_code)
            counts["with outside code"] += bool(sau.outside_code)
    print(f"papers with a spec: {papers}")
    print(f"{'dim':<4} {'SAUs':>6} {'checks':>7} {'not checkable':>14} {'incomplete':>11}")
    for dimension in DIMENSIONS:
        print(f"{dimension:<4} {counts[dimension, 'total']:>6} {counts[dimension, 'checks']:>7} "
              f"{counts[dimension, 'not checkable']:>14} {counts[dimension, 'incomplete']:>11}")
    print(f"elements outside code: {counts['outside code']} in {counts['with outside code']} SAUs")


if __name__ == "__main__":
    main()
