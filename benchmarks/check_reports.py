"""Check that the reports of real repositories are accepted by what reads them: the SARIF validates against the
SARIF 2.1.0 schema with a location on every result, the SA-Bench output passes our copy of SA-Bench's result
schema, and the plain table (what ``verify ... | cat`` prints) holds every evidence reference whole.

    python benchmarks/check_reports.py RUNS [--repos CONFIG/SLUG ...]

``RUNS`` is laid out like SA-Bench's ``experiments/runs`` (``<config>/<slug>/repo``; read, never run). Without
``--repos``, the ten repositories of ``TEN`` (development configs only, one per config and one with a notebook).
Prints one line per repository and exits 1 when any check fails. Needs the ``test`` extra (``jsonschema``).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import jsonschema
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.report import print_table  # noqa: E402
from verifier.run import Report, verify  # noqa: E402
from verifier.sabench_format import to_sabench  # noqa: E402
from verifier.sarif import to_sarif  # noqa: E402
from verifier.specs.load import load_paper  # noqa: E402

SCHEMAS = ROOT / "tests" / "schemas"
EXCLUDE = ("result/*",)  # SA-Bench's own scores inside each generated repository
TEN = ("gpt4o_basic/ngpt", "deepseek_basic/avg-reward-pg", "claude-sonnet_basic/ca2-vdm",
       "deepseek_papercoder/adjoint-matching", "gemini-flash_papercoder/mrq", "gpt4o_papercoder/gated-attention-llm",
       "openhands_claude/lora-sb", "openhands_gemini/ngpt", "openhands_gpt4o/sam2",
       "claude-sonnet_basic/voting-leaderboards")


def problems(report: Report) -> list[str]:
    """What the consumers of ``report``'s outputs would refuse, as messages (empty when all accept it)."""
    found = []
    sarif = json.loads(to_sarif(report))
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    for error in jsonschema.Draft4Validator(schema).iter_errors(sarif):
        found.append(f"SARIF schema: {error.message} at {list(error.absolute_path)}")
    found += [f"SARIF: result {r['ruleId']} has no location" for r in sarif["runs"][0]["results"]
              if not r.get("locations")]
    sabench = json.loads(to_sabench(report, {}))
    schema = json.loads((SCHEMAS / "sabench-result.schema.json").read_text(encoding="utf-8"))
    for error in jsonschema.Draft202012Validator(schema).iter_errors(sabench):
        found.append(f"SA-Bench schema: {error.message} at {list(error.absolute_path)}")
    text = io.StringIO()
    print_table(report, Console(file=text, width=80, no_color=True, highlight=False))  # a pipe's 80 columns
    found += [f"table: {e.span_ref} not whole" for v in report.verdicts for e in v.evidence[:1]
              if e.span_ref not in text.getvalue()]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, help="SA-Bench's experiments/runs folder")
    parser.add_argument("--repos", nargs="+", default=list(TEN), metavar="CONFIG/SLUG")
    args = parser.parse_args(argv)
    failed = 0
    for name in args.repos:
        config, slug = name.split("/")
        repo = args.runs / config / slug / "repo"
        report = verify(repo, load_paper(slug), str(repo), exclude=EXCLUDE)
        found = problems(report)
        results = len(json.loads(to_sarif(report))["runs"][0]["results"])
        print(f"{name:<45} SAUs {len(report.verdicts):>3}  SARIF results {results:>3}  "
              + ("accepted" if not found else f"{len(found)} problem(s)"))
        for problem in found:
            print(f"    {problem}")
        failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
