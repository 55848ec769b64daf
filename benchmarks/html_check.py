"""Load the HTML report of a repository in a real headless browser (Chromium), check that it renders offline and
that its filters work, and take a screenshot (the README's). A script, not a CI test: it needs Chromium
(Debian: ``apt-get install chromium``).

    python benchmarks/html_check.py REPO --paper SLUG [--out DIR] [--view FRAGMENT] [--size 1280,900]

Writes ``DIR/report.html`` and ``DIR/report.png``. With every host name unresolvable (``--host-resolver-rules``),
Chromium loads the page once per filter of the status list and the dimension list (set through the page's
fragment, ``#status=settled``) and the script compares the SAUs the page shows with the report's own counts.
Exits 1 when a count differs or Chromium fails. The repository is read, never run.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.html_report import to_html  # noqa: E402
from verifier.run import verify  # noqa: E402
from verifier.specs.load import load_paper  # noqa: E402

OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND"  # any network request would fail


def chromium() -> str:
    """The Chromium executable; raises ``SystemExit`` naming the package when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("html_check: no Chromium found (Debian: apt-get install chromium)")


def _run(browser: str, profile: str, *args: str) -> str:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", OFFLINE,
               f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"html_check: chromium failed ({done.returncode}): {done.stderr[-500:]}")
    return done.stdout


def shown(dom: str) -> int:
    """How many SAUs the rendered page shows (``details`` elements not hidden by the filters)."""
    return len([tag for tag in re.findall(r'<details class="sau[^"]*"', dom) if "hidden" not in tag])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--paper", required=True)
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--view", default="", metavar="FRAGMENT",
                        help="the page's fragment for the screenshot, e.g. status=settled&open=ID,ID")
    parser.add_argument("--size", default="1280,900", help="window size of the screenshot, WIDTH,HEIGHT")
    args = parser.parse_args(argv)
    report = verify(args.repo, load_paper(args.paper), str(args.repo), exclude=("result/*",))
    args.out.mkdir(parents=True, exist_ok=True)
    page = args.out / "report.html"
    page.write_text(to_html(report), encoding="utf-8")
    url = page.resolve().as_uri()
    browser = chromium()
    failures = 0
    with tempfile.TemporaryDirectory() as profile:
        views = [("", len(report.verdicts))]
        views += [(f"status={s}", sum(v.status == s for v in report.verdicts))
                  for s in sorted({v.status.value for v in report.verdicts})]
        views += [(f"dim={d}", sum(v.sau.dimension == d for v in report.verdicts))
                  for d in sorted({v.sau.dimension.value for v in report.verdicts})]
        for fragment, expected in views:
            dom = _run(browser, profile, "--dump-dom", f"{url}#{fragment}")
            got = shown(dom)
            counter = re.search(r'<span id="shown">(\d+)</span>', dom)
            ok = got == expected and counter is not None and int(counter.group(1)) == expected
            failures += not ok
            print(f"#{fragment or '(all)':<20} shown {got:>3}, expected {expected:>3}: {'ok' if ok else 'WRONG'}")
        _run(browser, profile, f"--screenshot={(args.out / 'report.png').resolve()}", f"--window-size={args.size}",
             f"{url}#{args.view}")
    print(f"wrote {page} and {args.out / 'report.png'}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
