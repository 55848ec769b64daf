"""Measure D1 on SA-Bench's generated repositories: settle rate, seconds per repository, and agreement with
SA-Bench's recorded judge decisions (exact and within ±0.25), on settled verdicts and on all scored ones.

Usage: python benchmarks/d1_agreement.py RUNS_DIR SABENCH_DIR [--specs compiled|curated] [--config NAME ...]
                                        [--paper SLUG ...] [--json FILE] [--routed]
  RUNS_DIR     a folder laid out like SA-Bench's experiments/runs (<config>/<paper>/repo)
  SABENCH_DIR  a folder with papers/<slug>/sau.json and decisions/<config>.jsonl

Prints one line per repository and totals. The repositories are read, never run. With ``--routed`` every
dimension is verified (rules only, no LLM: ``--llm off``) and the totals also count, per dimension, the SAUs that
``--llm auto`` would send to the judge (``llm_fallback.routing``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
import time
from concurrent.futures import ProcessPoolExecutor
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402



def _one(job: tuple[str, str, str, str, str, bool]) -> dict:
    from llm_fallback.routing import routed_counts
    from verifier.model import DIMENSIONS
    from verifier.run import verify
    from verifier.specs import load_paper, load_sabench, resolve, spec_path

    runs, sabench, config, slug, specs, routed = job
    repo = Path(runs) / config / slug / "repo"
    if specs == "curated" and spec_path(resolve(slug)).is_file():
        spec = load_paper(slug)
    else:
        spec = load_sabench(Path(sabench) / "papers" / slug / "sau.json")
    started = time.perf_counter()
    report = verify(repo, spec, str(repo), DIMENSIONS if routed else ("D1",), exclude=("result/*",))
    seconds = time.perf_counter() - started
    every = list(report.verdicts)
    return {"config": config, "paper": slug, "seconds": seconds, "warnings": len(report.warnings),
            "saus": {d: sum(v.sau.dimension == d for v in every) for d in DIMENSIONS},
            "routed": routed_counts(every),
            "verdicts": [{"id": v.sau.id, "score": v.score, "status": v.status, "drift": v.drift, "reason": v.reason}
                         for v in every if v.sau.dimension == "D1"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("sabench", type=Path)
    parser.add_argument("--config", action="append")
    parser.add_argument("--paper", action="append")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--specs", choices=("compiled", "curated"), default="compiled",
                        help="compiled: SA-Bench claims compiled at load time; curated: benchmark_data/ specs where "
                             "written (compiled otherwise)")
    parser.add_argument("--routed", action="store_true",
                        help="verify every dimension and count the SAUs the LLM judge would get, per dimension")
    args = parser.parse_args()
    configs = args.config or list(DEVELOPMENT_CONFIGS)
    papers = args.paper or sorted(p.name for p in (args.sabench / "papers").iterdir() if p.is_dir())
    jobs = [(str(args.runs), str(args.sabench), c, p, args.specs, args.routed) for c in configs for p in papers
            if (args.runs / c / p / "repo").is_dir()]
    decisions = {}
    for config in configs:
        for line in (args.sabench / "decisions" / f"{config}.jsonl").read_text().splitlines():
            row = json.loads(line)
            decisions[(config, row["claim_id"])] = row["score"]
    totals = {"saus": 0, "settled": 0, "settled_exact": 0, "settled_near": 0, "scored": 0, "scored_exact": 0,
              "scored_near": 0, "seconds": []}
    saus, routed = Counter(), Counter()
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
            saus.update(result["saus"])
            routed.update(result["routed"])
            print(f"{result['config']:<24} {result['paper']:<36} D1 {len(verdicts):>3}  settled {len(settled):>3} "
                  f"({len(settled) / max(1, len(verdicts)):.0%})  exact {row['settled_exact']}/{len(settled)}  "
                  f"±0.25 {row['settled_near']}/{len(settled)}  {result['seconds']:.2f}s", flush=True)
    seconds = sorted(totals["seconds"])
    n = totals["settled"] or 1
    m = totals["scored"] or 1
    print(f"\nrepositories {len(results)}  D1 SAUs {totals['saus']}  settled {totals['settled']} "
          f"({totals['settled'] / max(1, totals['saus']):.1%})")
    print(f"settled agreement: exact {totals['settled_exact'] / n:.1%}  within ±0.25 {totals['settled_near'] / n:.1%}")
    print(f"all scored ({totals['scored']}): exact {totals['scored_exact'] / m:.1%}  "
          f"within ±0.25 {totals['scored_near'] / m:.1%}")
    if seconds:
        print(f"seconds per repository: median {seconds[len(seconds) // 2]:.2f}  max {seconds[-1]:.2f}  "
              f"total {sum(seconds):.1f}")
    if args.routed:
        shown = "  ".join(f"{d} {routed[d]}/{saus[d]} ({routed[d] / max(1, saus[d]):.1%})" for d in sorted(saus))
        total = sum(saus.values())
        print(f"routed to the LLM judge (unresolved and code-checkable): {shown}  "
              f"all {sum(routed.values())}/{total} ({sum(routed.values()) / max(1, total):.1%})")
    if args.json:
        args.json.write_text(json.dumps({"results": results}, indent=1))


if __name__ == "__main__":
    main()
