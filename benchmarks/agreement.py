"""Measure one dimension's rule on SA-Bench's generated repositories: settle rate, seconds per repository, and
agreement with SA-Bench's recorded judge decisions (exact and within ±0.25), on settled verdicts and on all scored
ones; for D3 and D4 also the size of the call graphs built (nodes, edges, seconds).

Usage: python benchmarks/agreement.py RUNS_DIR SABENCH_DIR [--dimension D1|D3|D4] [--specs compiled|curated]
                                     [--config NAME ...] [--paper SLUG ...] [--json FILE]
  RUNS_DIR     a folder laid out like SA-Bench's experiments/runs (<config>/<paper>/repo)
  SABENCH_DIR  a folder with papers/<slug>/sau.json and decisions/<config>.jsonl

Prints one line per repository and totals. The repositories are read, never run.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402



def _one(job: tuple[str, str, str, str, str, str]) -> dict:
    from extractors.repository import build_index
    from rules import names
    from verifier.run import decide
    from verifier.specs import load_paper, load_sabench, resolve, spec_path

    runs, sabench, config, slug, specs, dimension = job
    repo = Path(runs) / config / slug / "repo"
    if specs == "curated" and spec_path(resolve(slug)).is_file():
        spec = load_paper(slug)
    else:
        spec = load_sabench(Path(sabench) / "papers" / slug / "sau.json")
    started = time.perf_counter()
    index = build_index(repo, names.normalise, exclude=("result/*",))  # as verifier.run.verify does
    graph = {}
    if dimension in ("D3", "D4"):
        built = time.perf_counter()
        nodes, edges = index.call_graph.size()
        graph = {"nodes": nodes, "edges": edges, "seconds": time.perf_counter() - built,
                 "entry_points": len(index.call_graph.entry_points)}
    verdicts = [decide(sau, index) for sau in spec.saus if sau.dimension == dimension]
    seconds = time.perf_counter() - started
    return {"config": config, "paper": slug, "seconds": seconds, "warnings": len(index.warnings), "graph": graph,
            "verdicts": [{"id": v.sau.id, "score": v.score, "status": v.status, "drift": v.drift, "reason": v.reason,
                          "evidence": [e.ref for e in v.evidence[:3]]} for v in verdicts]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("sabench", type=Path)
    parser.add_argument("--config", action="append")
    parser.add_argument("--paper", action="append")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dimension", choices=("D1", "D3", "D4"), default="D1",
                        help="the dimension whose rule is measured (D1 by default)")
    parser.add_argument("--specs", choices=("compiled", "curated"), default="compiled",
                        help="compiled: SA-Bench claims compiled at load time; curated: benchmark_data/ specs where "
                             "written (compiled otherwise)")
    args = parser.parse_args()
    configs = args.config or list(DEVELOPMENT_CONFIGS)
    papers = args.paper or sorted(p.name for p in (args.sabench / "papers").iterdir() if p.is_dir())
    jobs = [(str(args.runs), str(args.sabench), c, p, args.specs, args.dimension) for c in configs for p in papers
            if (args.runs / c / p / "repo").is_dir()]
    decisions = {}
    for config in configs:
        for line in (args.sabench / "decisions" / f"{config}.jsonl").read_text().splitlines():
            row = json.loads(line)
            decisions[(config, row["claim_id"])] = row["score"]
    totals = {"saus": 0, "settled": 0, "settled_exact": 0, "settled_near": 0, "scored": 0, "scored_exact": 0,
              "scored_near": 0, "seconds": []}
    graphs = []
    dim = args.dimension
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(_one, jobs):
            results.append(result)
            verdicts = result["verdicts"]
            settled = [v for v in verdicts if v["status"] == "settled"]
            scored = [v for v in verdicts if v["score"] is not None]

            def agree(rows, tolerance):
                pairs = [(v["score"], decisions.get((result["config"], v["id"]))) for v in rows]
                return sum(1 for ours, theirs in pairs if theirs is not None and abs(ours - theirs) <= tolerance)

            row = {"settled": len(settled), "settled_exact": agree(settled, 0), "settled_near": agree(settled, 0.25),
                   "scored": len(scored), "scored_exact": agree(scored, 0), "scored_near": agree(scored, 0.25)}
            for key, value in row.items():
                totals[key] += value
            totals["saus"] += len(verdicts)
            totals["seconds"].append(result["seconds"])
            if result["graph"]:
                graphs.append(result["graph"])
            print(f"{result['config']:<24} {result['paper']:<36} {dim} {len(verdicts):>3}  settled {len(settled):>3} "
                  f"({len(settled) / max(1, len(verdicts)):.0%})  exact {row['settled_exact']}/{len(settled)}  "
                  f"±0.25 {row['settled_near']}/{len(settled)}  {result['seconds']:.2f}s", flush=True)
    seconds = sorted(totals["seconds"])
    n = totals["settled"] or 1
    m = totals["scored"] or 1
    print(f"\nrepositories {len(results)}  {dim} SAUs {totals['saus']}  settled {totals['settled']} "
          f"({totals['settled'] / max(1, totals['saus']):.1%})")
    print(f"settled agreement: exact {totals['settled_exact'] / n:.1%}  within ±0.25 {totals['settled_near'] / n:.1%}")
    print(f"all scored ({totals['scored']}): exact {totals['scored_exact'] / m:.1%}  "
          f"within ±0.25 {totals['scored_near'] / m:.1%}")
    if seconds:
        print(f"seconds per repository: median {seconds[len(seconds) // 2]:.2f}  max {seconds[-1]:.2f}  "
              f"total {sum(seconds):.1f}")
    if graphs:
        def spread(key: str, form: str) -> str:
            values = sorted(g[key] for g in graphs)
            return f"median {values[len(values) // 2]:{form}}  max {values[-1]:{form}}"

        print(f"call graphs: nodes {spread('nodes', 'd')}; edges {spread('edges', 'd')}; "
              f"seconds {spread('seconds', '.2f')}; repositories without an entry point "
              f"{sum(1 for g in graphs if not g['entry_points'])}")
    if args.json:
        args.json.write_text(json.dumps({"results": results}, indent=1))


if __name__ == "__main__":
    main()
