"""Run the stub and TODO detector (``extractors.stubs``) over SA-Bench-style generated repositories and print the
finding counts by code and the seconds taken.

Layout read: ``ROOT/<config>/<paper>/repo``. Each repository's ``result/`` folder (SA-Bench's scores and logs) is
skipped. The repositories are only read, never imported or run.

    python benchmarks/stub_scan.py /work/scratch/sab/experiments/runs --configs gpt4o_basic deepseek_basic
    python benchmarks/stub_scan.py ROOT --configs ... --sample 10 --seed 1   # also print 10 findings at random

By default the nine development configs are scanned, never the held-out ones. Exit status 0; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst  # noqa: E402

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402
from extractors.stubs.detect import find_stubs, read_source  # noqa: E402
from extractors.stubs.findings import CODES  # noqa: E402
from extractors.walk import iter_python_files  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="folder holding <config>/<paper>/repo")
    parser.add_argument("--configs", nargs="+", default=list(DEVELOPMENT_CONFIGS),
                        help="config folders to scan (default: the nine development configs)")
    parser.add_argument("--sample", type=int, default=0, help="print this many findings chosen at random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", action="store_true", help="print every finding")
    args = parser.parse_args(argv)
    configs = args.configs
    repos = [repo for config in configs for repo in sorted((args.root / config).glob("*/repo")) if repo.is_dir()]
    if not repos:
        parser.error(f"no <config>/<paper>/repo folders under {args.root} for {configs}")
    counts: Counter[str] = Counter()
    by_config: dict[str, Counter[str]] = {}
    findings = []
    files = unparsed = errors = 0
    seconds = 0.0
    for repo in repos:
        config = repo.parent.parent.name
        for path in iter_python_files([repo], exclude=("result",)):
            try:
                source = read_source(path)
            except OSError as error:
                errors += 1
                print(f"error: {path}: {error}", file=sys.stderr)
                continue
            files += 1
            start = time.perf_counter()
            found = find_stubs(source, str(Path(path).relative_to(args.root)))
            seconds += time.perf_counter() - start
            try:
                libcst.parse_module(source)
            except Exception:
                unparsed += 1
            findings.extend(found)
            counts.update(f.code for f in found)
            by_config.setdefault(config, Counter()).update(f.code for f in found)
    print(f"configs: {len(configs)}  repositories: {len(repos)}  python files: {files}  "
          f"libcst-unparsable (tree-sitter fallback): {unparsed}  unreadable: {errors}")
    print(f"{'code':8} {'count':>6}  meaning")
    for code in CODES:
        print(f"{code:8} {counts[code]:6d}  {CODES[code]}")
    print(f"{'total':8} {sum(counts.values()):6d}")
    print("by config: " + "; ".join(f"{c} " + " ".join(f"{k}={v}" for k, v in sorted(n.items()))
                                    for c, n in sorted(by_config.items())))
    print(f"seconds in find_stubs: {seconds:.2f} ({files / seconds if seconds else 0:.0f} files/s)")
    if args.list:
        for finding in findings:
            print(finding.format())
    if args.sample:
        rng = random.Random(args.seed)
        for finding in rng.sample(findings, min(args.sample, len(findings))):
            print(finding.format(), f"[{finding.qualname}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
