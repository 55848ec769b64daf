"""Plant one known drift in a copy of a repository, at code the verifier judged to implement a SAU, and show
whether the verifier notices.

Usage:
  python benchmarks/inject_drift.py REPO --paper ID --kind numerical|method|protocol|ordering|stub
                                    [--sau SAU_ID] [--seed N] [--out DIR] [--sau-dir DIR]

Verifies REPO against the paper's spec, picks a SAU the verifier credited (``--sau`` names one; otherwise one at
random, seeded), copies REPO to ``--out`` (a new folder; default a fresh temporary folder, kept), applies the edit
(``benchmarks.drift``), verifies the copy and prints the mutant as JSON: the SAU it should break, the edits (file,
line, description), the target's score before and after, whether it dropped, and the SAUs whose verdicts changed
elsewhere. A unified diff of the edit follows. REPO is only read and copied, never imported or run.
Exit status 0 when a mutant was made, 1 when no applicable code was found, 2 on usage or input errors.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import injection  # noqa: E402
from benchmarks.drift import KINDS  # noqa: E402
from verifier.run import verify  # noqa: E402
from verifier.specs.errors import SpecError  # noqa: E402
from verifier.specs.load import load_paper  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--paper", required=True, help="benchmark_id or SA-Bench slug")
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--sau", help="the SAU to break (default: one chosen at random among those credited)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="where to write the mutant repository (must not exist)")
    parser.add_argument("--sau-dir", type=Path, help="folder of <slug>/sau.json for papers without a curated spec")
    args = parser.parse_args(argv)
    if not args.repo.is_dir():
        print(f"inject_drift: {args.repo}: not a folder", file=sys.stderr)
        return 2
    if args.out is not None and args.out.exists():
        print(f"inject_drift: {args.out}: already exists", file=sys.stderr)
        return 2
    try:
        spec = load_paper(args.paper, args.sau_dir)
    except SpecError as error:
        print(f"inject_drift: {error}", file=sys.stderr)
        return 2
    report = verify(args.repo, spec, str(args.repo))
    rng = random.Random(args.seed)
    verdicts = [v for v in report.verdicts if injection.implemented(v, args.kind)]
    if args.sau:
        verdicts = [v for v in verdicts if v.sau.id == args.sau]
        if not verdicts:
            print(f"inject_drift: {args.sau}: no such SAU with credited code for {args.kind} drift "
                  "(it must score above 0, with evidence, in the kind's dimension)", file=sys.stderr)
            return 1
    rng.shuffle(verdicts)
    avoid = [number for other in report.verdicts for number in injection.claimed_numbers(other)]
    for verdict in verdicts:
        edits = injection.edit_for(verdict, args.kind, args.repo, rng, avoid)
        if edits:
            break
    else:
        print(f"inject_drift: no applicable code for {args.kind} drift at the evidence of {len(verdicts)} "
              "credited SAU(s)", file=sys.stderr)
        return 1
    mutant = injection.Mutant(args.kind, verdict.sau.id, verdict.sau.dimension, verdict.score, verdict.status, edits)
    out = args.out or Path(tempfile.mkdtemp(prefix="sauverify-mutant-")) / "repo"
    injection.apply(mutant, args.repo, out)
    mutated = verify(out, spec, str(args.repo))
    print(json.dumps({"repository": str(out), **injection.outcome(mutant, report.verdicts, mutated.verdicts)},
                     indent=1, sort_keys=True))
    for file in dict.fromkeys(e.file for e in edits):
        before = (args.repo / file).read_text(encoding="utf-8").splitlines(keepends=True)
        after = (out / file).read_text(encoding="utf-8").splitlines(keepends=True)
        sys.stdout.writelines(difflib.unified_diff(before, after, f"a/{file}", f"b/{file}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
