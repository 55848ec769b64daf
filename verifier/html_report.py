"""The report as one self-contained HTML page (``--format html``), to read each verdict beside the code it was
judged on.

The page holds the paper, the overall and per-dimension scores with a bar chart (inline SVG), a list of SAUs that
can be filtered by dimension, status, drift and text, and for each SAU its statement, verdict, reason and the
evidence as code excerpts with line numbers, the evidence lines highlighted. Everything is inline (styles, the
chart, a short filtering script): no network access, no external file, so it opens from disk or a CI artifact.
Every string from the spec or the repository is HTML-escaped, its control and bidirectional formatting characters
shown as escapes (code lines keep their tabs). Output is deterministic: the same report gives the same bytes.
"""

from __future__ import annotations

from html import escape as _html_escape

from verifier import __version__
from sau.vocabulary import Dimension, Evidence, Verdict
from verifier.report import stub_totals, summary_lines
from verifier.run import Report
from verifier.scoring import dimension_scores, overall_score
from verifier.terminal import printable


def escape(text: str) -> str:
    """``text`` HTML-escaped, its control and bidirectional formatting characters shown as escapes
    (``verifier.terminal.printable``): a file name holding U+202E cannot reorder what the page shows."""
    return _html_escape(printable(text))


CONTEXT = 3  # lines shown before and after an evidence span
MAX_EXCERPTS = 4  # excerpts shown per SAU; further evidence is listed by reference
MAX_SPAN = 40  # an evidence span longer than this is cut to its first lines

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:14px 24px}header h1{font-size:19px;margin:0 0 4px}
header p{margin:0;color:#c9d1dc;font-size:13px}main{padding:16px 24px;max-width:1200px}
.scores{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap;background:#fff;border:1px solid #dde2e8;
border-radius:6px;padding:12px 16px}.overall{font-size:30px;font-weight:600}.muted{color:#5d6978;font-size:12px}
.filters{margin:14px 0;display:flex;gap:10px;flex-wrap:wrap;align-items:center}
select,input{font:inherit;padding:3px 6px}.sau{background:#fff;border:1px solid #dde2e8;border-radius:6px;
margin:8px 0}.sau summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:baseline}
.sau .body{padding:0 12px 10px}.id{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}
.badge{border-radius:10px;padding:1px 8px;font-size:12px;background:#e8ebef}
.settled{background:#d9f2e0}.judged{background:#d8ecf7}.unresolved{background:#fbeec8}
.drift{background:#f8d9d9}.score{font-weight:600;min-width:34px}.claim{margin:6px 0}
pre{background:#fbfbfc;border:1px solid #e4e7eb;border-radius:4px;padding:4px 0;overflow-x:auto;margin:6px 0}
pre span{display:block;padding:0 8px;white-space:pre}pre .hit{background:#fff3b0}
pre .no{display:inline-block;min-width:44px;color:#8a94a3;text-align:right;margin-right:10px;user-select:none}
.ref{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:#34506e}
.hidden{display:none}.counts{white-space:pre;font-family:ui-monospace,Menlo,Consolas,monospace}
"""

_SCRIPT = """
(function(){
  var ids=['f-dim','f-status','f-drift','f-text'];
  var f=function(){
    var d=document.getElementById('f-dim').value,s=document.getElementById('f-status').value,
        r=document.getElementById('f-drift').value,t=document.getElementById('f-text').value.toLowerCase(),n=0;
    document.querySelectorAll('details.sau').forEach(function(e){
      var ok=(!d||e.dataset.dim===d)&&(!s||e.dataset.status===s)&&(!r||e.dataset.drift===r)&&
             (!t||e.textContent.toLowerCase().indexOf(t)>=0);
      e.classList.toggle('hidden',!ok);if(ok){n++;}
    });
    document.getElementById('shown').textContent=n;
  };
  ids.forEach(function(i){document.getElementById(i).addEventListener('input',f);});
  /* a view can be linked: #dim=D1&status=settled&drift=missing&text=lr&open=SAU-ID,SAU-ID */
  location.hash.slice(1).split('&').forEach(function(pair){
    var k=decodeURIComponent(pair.split('=')[0]),v=decodeURIComponent(pair.split('=').slice(1).join('='));
    if(k==='open'){v.split(',').forEach(function(id){var e=document.getElementById('sau-'+id);if(e){e.open=true;}});}
    else if(ids.indexOf('f-'+k)>=0){document.getElementById('f-'+k).value=v;}
  });
  f();
})();
"""


def to_html(report: Report) -> str:
    """The report as a self-contained HTML5 page (text, trailing newline)."""
    title = f"{report.spec.title or report.spec.benchmark_id}"
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             # the page loads nothing: no script, style, font or image from anywhere else
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
             "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
             f"<title>{escape(f'sauverify: {title}')}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
             "<header>", f"<h1>{escape(title)}</h1>",
             f"<p>{escape(report.spec.benchmark_id)} ({escape(report.spec.slug)}) on "
             f"<span class=\"ref\" style=\"color:#fff\">{escape(report.repo)}</span> &middot; sauverify "
             f"{escape(__version__)} &middot; "
             + (f"LLM judge {escape(report.model)}" if report.model else "rules only, no LLM") + "</p>",
             "</header>", "<main>", _scores(report), _filters(report), '<div id="saus">']
    parts.extend(_sau(verdict, report) for verdict in report.verdicts)
    parts.append("</div>")
    if report.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f'<li><span class="ref">{escape(w.file)}{"" if not w.line else f":{w.line}"}</span> '
                     f"{escape(w.message)}</li>" for w in report.warnings)
        parts.append("</ul>")
    parts += ["</main>", f"<script>{_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _scores(report: Report) -> str:
    scores = dimension_scores(list(report.verdicts), report.dimensions)
    overall = overall_score(scores)
    stubs, todos = stub_totals(report)
    bars = []
    width, row = 260, 24
    for index, score in enumerate(scores):
        y = index * row
        value = score.score or 0.0
        label = "n/a" if score.score is None else f"{score.score:.2f}"
        bars.append(f'<text x="0" y="{y + 16}" font-size="12">{score.dimension} '
                    f"{Dimension(score.dimension).label}</text>"
                    f'<rect x="90" y="{y + 4}" width="{width}" height="14" fill="#e8ebef"/>'
                    f'<rect x="90" y="{y + 4}" width="{value * width:.1f}" height="14" fill="#3d7bd9"/>'
                    f'<text x="{100 + width}" y="{y + 16}" font-size="12">{label}</text>')
    chart = (f'<svg role="img" aria-label="score per dimension" width="{140 + width}" height="{len(scores) * row}" '
             f'xmlns="http://www.w3.org/2000/svg">{"".join(bars)}</svg>')
    counts = "".join(f"<div>{escape(line)}</div>" for line in summary_lines(report))
    return ('<section class="scores"><div><div class="muted">overall</div><div class="overall">'
            f"{'n/a' if overall is None else f'{overall:.2f}'}</div>"
            f'<div class="muted">stubs {stubs} &middot; TODOs {todos}</div></div>'
            f"<div>{chart}</div><div class=\"muted counts\">{counts}</div></section>")


def _filters(report: Report) -> str:
    def options(name: str, values: list[str]) -> str:
        return (f'<select id="f-{name}" aria-label="{name}"><option value="">every {name}</option>'
                + "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values) + "</select>")

    verdicts = report.verdicts
    dims = sorted({v.sau.dimension.value for v in verdicts})
    statuses = sorted({v.status.value for v in verdicts})
    drifts = sorted({v.drift.value for v in verdicts if v.drift}) + ["none"]
    return ('<div class="filters">' + options("dim", dims) + options("status", statuses) + options("drift", drifts)
            + '<input id="f-text" type="search" placeholder="search id, claim, reason, file" size="32">'
            + f'<span class="muted"><span id="shown">{len(verdicts)}</span> of {len(verdicts)} SAUs shown</span>'
            + "</div>")


def _sau(verdict: Verdict, report: Report) -> str:
    sau = verdict.sau
    score = "-" if verdict.score is None else f"{verdict.score:.2f}"
    drift = verdict.drift.value if verdict.drift else "none"
    head = (f'<summary><span class="score">{score}</span><span class="id">{escape(sau.id)}</span>'
            f'<span class="badge">{sau.dimension} {Dimension(sau.dimension).label}</span>'
            f'<span class="badge {verdict.status.value}">{verdict.status.value}</span>'
            + (f'<span class="badge drift">{escape(drift)}</span>' if verdict.drift else "")
            + (f'<span class="ref">{escape(verdict.evidence[0].span_ref)}</span>' if verdict.evidence else
               '<span class="muted">no evidence</span>') + "</summary>")
    body = [f'<p class="claim"><b>Claim</b>{f" ({escape(sau.source)})" if sau.source else ""}: '
            f"{escape(sau.statement)}</p>",
            f"<p><b>Verdict</b>: {score}, {verdict.status.value}"
            + (f", {escape(drift)} drift" if verdict.drift else "")
            + f", decided by {escape(verdict.decided_by)}. {escape(verdict.reason)}</p>"]
    shown = verdict.evidence[:MAX_EXCERPTS]
    body.extend(_excerpt(e, report) for e in shown)
    rest = verdict.evidence[MAX_EXCERPTS:]
    if rest:
        body.append('<p class="muted">also: ' + ", ".join(f'<span class="ref">{escape(e.span_ref)}</span>'
                                                          for e in rest) + "</p>")
    return (f'<details class="sau" id="sau-{escape(sau.id)}" data-dim="{sau.dimension}" '
            f'data-status="{verdict.status.value}" data-drift="{escape(drift)}">' + head + '<div class="body">' + "".join(body) + "</div></details>")


def _excerpt(evidence: Evidence, report: Report) -> str:
    """The evidence lines with ``CONTEXT`` lines around them, numbered, the evidence highlighted; the reference
    alone when the report holds no lines of that file."""
    ref = f'<div class="ref">{escape(evidence.span_ref)}</div>'
    lines = report.sources.get(evidence.where)
    if not lines:
        return ref
    last = min(evidence.end_line, evidence.line + MAX_SPAN - 1)
    start, end = max(1, evidence.line - CONTEXT), min(len(lines), last + CONTEXT)
    rows = []
    for number in range(start, end + 1):
        hit = ' class="hit"' if evidence.line <= number <= last else ""
        code = _html_escape(printable(lines[number - 1], keep="\t"))  # a code line keeps its tabs
        rows.append(f'<span{hit}><span class="no">{number}</span>{code}</span>')
    return ref + "<pre>" + "".join(rows) + "</pre>"
