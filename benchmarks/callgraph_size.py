"""Size and build time of the call graphs over a folder laid out like SA-Bench's experiments/runs.

Usage: python benchmarks/callgraph_size.py RUNS_DIR [--configs NAME ...]

Per repository: index the files (as ``verify`` does), then time the call graph
(``extractors.callgraph.build_call_graph``).
Prints nodes, edges and seconds (median and max) and how many repositories have no entry point. The repositories
are read, never run. By default the nine development configs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402
from verifier.batch import BatchError, find_runs  # noqa: E402
from extractors.callgraph import build_call_graph  # noqa: E402
from extractors.repository import build_index  # noqa: E402
from rules import names  # noqa: E402


def measure(repo: Path) -> tuple[int, int, float, int]:
    """(nodes, edges, seconds to build, entry points) of one repository's call graph."""
    index = build_index(repo, names.normalise, exclude=("result/*",))
    started = time.perf_counter()
    graph = index.analysis(build_call_graph)
    seconds = time.perf_counter() - started
    nodes, edges = graph.size()
    return nodes, edges, seconds, len(graph.entry_points)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("--configs", nargs="+", default=list(DEVELOPMENT_CONFIGS))
    args = parser.parse_args(argv)
    try:
        repos = [job.repo for job in find_runs(args.runs, args.configs) if "/" in job.name]
    except BatchError:
        repos = []
    if not repos:
        print(f"no <config>/<paper>/repo folders under {args.runs}", file=sys.stderr)
        return 2
    rows = [measure(repo) for repo in repos]

    def spread(column: int, digits: int = 0) -> str:
        values = [row[column] for row in rows]
        return f"median {statistics.median(values):.{digits}f}, max {max(values):.{digits}f}"

    print(f"{len(rows)} repositories: nodes {spread(0)}; edges {spread(1)}; build seconds {spread(2, 2)}; "
          f"without an entry point {sum(1 for row in rows if not row[3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
