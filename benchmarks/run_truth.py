"""Measure the verifier against the project's truth set (``benchmarks/truth/``): careful-review labels and mutation
recipes on SA-Bench development repositories; and, on the same labels, SA-Bench's recorded judge.

Usage:
  python benchmarks/run_truth.py RUNS_DIR [--decisions DIR] [--labels FILE] [--recipes FILE] [--no-recipes]
        [--steps FILE] [--jobs 2] [--json OUT]

  RUNS_DIR     SA-Bench's experiments/runs (<config>/<paper slug>/repo), read and copied, never run
  --decisions  a folder of <config>.jsonl decision files (SA-Bench's recorded judge), to measure it on the same labels

Prints the inter-rater agreement of the labels; the verifier per dimension and per static basis (settle rate,
agreement of settled verdicts and of all scored estimates with the truth: exact, within ±0.25, quadratic weighted
kappa; wrong settles, settled more than 0.25 from the truth); where D4 places each step against the readers' lines
(``steps.jsonl``: ``benchmarks.truth.step_figures``); per recipe kind the detection rate (the target's
score dropped), the share named (the verdict names the edit: ``benchmarks.truth.mutant_outcome``) and the false
alarms per mutant; and SA-Bench's judge against the same labels. ``--json`` writes the
figures and every verdict and mutant. A repository that cannot be verified, or a recipe that does not apply, costs
only itself: the rest runs, the figures are printed, and each error is named on stderr (file and line). Exit status
0; 2 on usage or input errors, including those.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from benchmarks import truth  # noqa: E402
from benchmarks.run_benchmark import EXCLUDE, load_spec  # noqa: E402
from benchmarks.summary import DecisionsError, load_decisions  # noqa: E402
from rules.findings import StepFinding  # noqa: E402
from verifier.run import NothingToRead, verify  # noqa: E402
from verifier.specs.errors import SpecError  # noqa: E402

SCHEMA = "sauverify-truth/1"


def _verdicts(repo: Path, spec, shown: str) -> tuple[dict[str, tuple[float | None, str]], dict[str, truth.Spans],
                                                    dict[str, str | None], dict[str, tuple[truth.Placement, ...]]]:
    """Each SAU's (score, status), its evidence spans outside notebook cells (``truth.Spans``, most telling first),
    its drift kind (``None`` without one) and, for a D4 SAU, its step findings in step order
    (``truth.Placement``)."""
    report = verify(repo, spec, shown, exclude=EXCLUDE)
    return ({v.sau.id: (v.score, str(v.status)) for v in report.verdicts},
            {v.sau.id: tuple((e.file, e.line, e.end_line) for e in v.evidence if e.cell is None)
             for v in report.verdicts},
            {v.sau.id: None if v.drift is None else str(v.drift) for v in report.verdicts},
            {v.sau.id: found for v in report.verdicts
             if (found := tuple((str(f.outcome), None if f.strength is None else str(f.strength), f.ref)
                                for f in v.findings if isinstance(f, StepFinding)))})


def run_repository(job: dict) -> dict:
    """Verify one labelled repository and each of its recipes' mutants. ``job``: ``runs``, ``config``, ``paper``,
    ``recipes`` (dicts of ``truth.Recipe`` fields). Returns ``{config, paper, verdicts, steps, mutants, errors}``
    (``steps``: each D4 SAU's step findings, ``truth.Placement`` lists); an input error costs only this repository
    (or only its recipe)."""
    repo = Path(job["runs"]) / job["config"] / job["paper"] / "repo"
    row: dict = {"config": job["config"], "paper": job["paper"], "verdicts": {}, "steps": {}, "mutants": [],
                 "errors": []}
    if not repo.is_dir():
        row["errors"].append(f"repository not found: {repo}")
        return row
    try:
        spec = load_spec(job["paper"], "curated", None)
        before, cited, drifts, placed = _verdicts(repo, spec, str(repo))
    except (SpecError, OSError, NothingToRead) as error:
        row["errors"].append(str(error))
        return row
    row["verdicts"] = {sau: list(pair) for sau, pair in before.items()}
    row["steps"] = {sau: [list(p) for p in found] for sau, found in placed.items()}
    for fields in job["recipes"]:
        recipe = truth.Recipe(**fields)
        try:
            with tempfile.TemporaryDirectory(prefix="sauverify-recipe-") as temporary:
                copy = truth.apply_recipe(recipe, repo, Path(temporary) / "repo")
                after, cited_after, drifts_after, _ = _verdicts(copy, spec, str(repo))
        except (truth.TruthError, OSError) as error:
            row["errors"].append(str(error))
            continue
        row["mutants"].append(truth.mutant_outcome(recipe, before, after, (cited, cited_after),
                                                   (drifts, drifts_after)))
    return row


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_figures(figures: dict, console: Console) -> None:
    """Print the tables of ``figures`` (as ``main`` builds them)."""
    rater = figures["inter_rater"]
    console.print(f"labels: {figures['labels']} SAUs on {figures['repositories']} repositories; read twice: "
                  f"{rater['pairs']} ({_share(rater['share'])}): exact {_share(rater['exact'])}, within ±0.25 "
                  f"{_share(rater['near'])}, QWK {_number(rater['qwk'])}; settled by a third reading: "
                  f"{rater['third_readings']}", markup=False, highlight=False, soft_wrap=True)
    ours = figures["verifier"]
    table = Table(title="The verifier against the truth")
    for column in ("group", "SAUs", "settled", "settle rate", "settled exact", "±0.25", "QWK", "wrong settles",
                   "all exact", "±0.25 ", "QWK "):
        table.add_column(column, justify="left" if column == "group" else "right")
    rows = [("all", ours["overall"]), *ours["by_dimension"].items(), *ours["by_static_basis"].items()]
    for index, (name, f) in enumerate(rows):
        settled, scored = f["settled_agreement"], f["scored_agreement"]
        table.add_row(name, str(f["saus"]), str(f["settled"]), _share(f["settle_rate"]), _share(settled["exact"]),
                      _share(settled["near"]), _number(settled["qwk"]),
                      f"{f['wrong_settles']} ({_share(f['wrong_settle_share'])})", _share(scored["exact"]),
                      _share(scored["near"]), _number(scored["qwk"]),
                      end_section=index in (0, len(ours["by_dimension"])))
    console.print(table)
    console.print(f"without a score (not code-checkable in the spec, or a rule failure): {ours['unscored']}",
                  markup=False, highlight=False)
    steps = figures.get("steps")
    if steps:
        console.print(f"D4 steps placed against the readers' lines ({steps['steps']} labelled steps, "
                      f"{steps['running']} running): at the reader's line {steps['at_reader']} ({steps['strong']} "
                      f"strongly), elsewhere {steps['elsewhere']}, not placed {steps['missed']}; of the "
                      f"{steps['steps'] - steps['running'] - steps['unmatched']} not running, placed anyway "
                      f"{steps['placed_not_running']}; precision {_share(steps['precision'])}, recall "
                      f"{_share(steps['recall'])}" + (f"; without a finding {steps['unmatched']}"
                                                      if steps["unmatched"] else ""),
                      markup=False, highlight=False, soft_wrap=True)
    if figures["recipes"]:
        drift = Table(title="Mutation recipes at the truth evidence")
        for column in ("kind", "mutants", "detected", "rate", "named", "rate ", "mutants with a false alarm",
                       "false alarms / mutant", "collateral / mutant"):
            drift.add_column(column, justify="left" if column == "kind" else "right")
        for kind, f in figures["recipes"].items():
            drift.add_row(kind, str(f["mutants"]), "-" if f["detected"] is None else str(f["detected"]),
                          _share(f["detection_rate"]), "-" if f["named"] is None else str(f["named"]),
                          _share(f["named_rate"]), str(f["with_false_alarm"]),
                          f"{f['false_alarms_per_mutant']:.2f}", f"{f['collateral_per_mutant']:.2f}")
        console.print(drift)
    if figures.get("judge"):
        judge = Table(title="SA-Bench's judge on the same labels")
        for column in ("group", "pairs", "exact", "±0.25", "QWK"):
            judge.add_column(column, justify="left" if column == "group" else "right")
        for name, f in [("all", figures["judge"]["overall"]), *figures["judge"]["by_dimension"].items()]:
            judge.add_row(name, str(f["pairs"]), _share(f["exact"]), _share(f["near"]), _number(f["qwk"]))
        console.print(judge)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``run_truth.py``."""
    parser = truth.truth_parser(__doc__)
    parser.add_argument("--recipes", type=Path, default=truth.RECIPES, help="recipes file (default: the project's)")
    parser.add_argument("--no-recipes", action="store_true", help="verify the labelled repositories only")
    parser.add_argument("--steps", type=Path, default=truth.STEPS,
                        help="D4 step locations file (default: the project's)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", type=Path, help="also write the figures, verdicts and mutants here")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the truth measurement; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        labels = truth.load_labels(args.labels)
        recipes = [] if args.no_recipes else truth.load_recipes(args.recipes)
        step_labels = truth.load_step_labels(args.steps)
        configs = sorted({label.config for label in labels})
        decisions = load_decisions(args.decisions, configs) if args.decisions else None
    except (truth.TruthError, DecisionsError) as error:
        print(f"run_truth: {error}", file=sys.stderr)
        return 2
    repositories = sorted({(label.config, label.paper) for label in labels})
    by_repository: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for recipe in recipes:
        by_repository[(recipe.config, recipe.paper)].append(vars(recipe))
    jobs = [{"runs": str(args.runs), "config": c, "paper": p, "recipes": by_repository[(c, p)]}
            for c, p in repositories]
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(run_repository, jobs))
    verdicts = {(row["config"], row["paper"], sau): tuple(pair)
                for row in rows for sau, pair in row["verdicts"].items()}
    outcomes = [m for row in rows for m in row["mutants"]]
    placed = {(row["config"], row["paper"], sau): tuple(tuple(p) for p in found)
              for row in rows for sau, found in row["steps"].items()}
    figures = {"schema": SCHEMA, "labels": len(labels), "repositories": len(repositories),
               "inter_rater": truth.inter_rater(labels), "verifier": truth.verifier_figures(labels, verdicts),
               "steps": truth.step_figures([s for s in step_labels if (s.config, s.paper) in repositories], placed),
               "recipes": truth.recipe_figures(outcomes),
               "judge": truth.judge_figures(labels, decisions) if decisions is not None else None,
               "errors": [f"{row['config']}/{row['paper']}: {e}" for row in rows for e in row["errors"]]}
    console = Console() if sys.stdout.isatty() else Console(width=200)
    print_figures(figures, console)
    if args.json:
        args.json.write_text(json.dumps({**figures, "rows": rows}, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    for error in figures["errors"]:
        print(f"run_truth: error: {error}", file=sys.stderr)
    return 2 if figures["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
