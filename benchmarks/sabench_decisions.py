"""Build the decisions files the benchmark scripts read (``<config>.jsonl``) from SA-Bench's public result files, so
that a reader with only a clone of SA-Bench can reproduce the README's Results.

    python benchmarks/sabench_decisions.py <SA-Bench>/experiments/runs --out decisions [--configs NAME ...]

For each config (default: the nine development configs of ``benchmarks/sabench_layout.py``), every result file
``<config>/<paper>/repo/result/<paper>-sau-score.json`` gives one line per scored claim: ``paper_id``,
``claim_id``, ``dimension`` (the key of the dimension the claim is filed under), ``score``, ``judge_reasoning``
and ``evidence_refs`` (each evidence item as ``file:lines``), in paper order then claim order. Writes
``OUT/<config>.jsonl``; prints the count per config. Exits 2 naming the file when a result file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402


def decisions(result: dict) -> list[dict]:
    """The decision rows of one parsed result file."""
    rows = []
    for dimension, block in result["dimensions"].items():
        for claim in block["claims"]:
            rows.append({"paper_id": result["paper_id"], "claim_id": claim["id"], "dimension": dimension,
                         "score": claim["score"], "judge_reasoning": claim["judge_reasoning"],
                         "evidence_refs": [f"{e['file']}:{e['lines']}" for e in claim.get("evidence", [])]})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, help="SA-Bench's experiments/runs folder")
    parser.add_argument("--out", type=Path, required=True, help="folder to write <config>.jsonl into")
    parser.add_argument("--configs", nargs="+", default=list(DEVELOPMENT_CONFIGS), metavar="NAME")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for config in args.configs:
        rows = []
        for path in sorted((args.runs / config).glob("*/repo/result/*-sau-score.json")):
            try:
                rows += decisions(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError) as error:
                print(f"sabench_decisions: {path}: not an SA-Bench result file: {error}", file=sys.stderr)
                return 2
        with (args.out / f"{config}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{config}: {len(rows)} decisions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
