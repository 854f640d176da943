"""The class report: one ``index.html`` an instructor opens in a browser after grading a batch.

``write_report(results, directory, ...)`` writes ``directory/index.html`` with its figures (made with
matplotlib, saved beside it as PNG and embedded in the page, so the one file can be mailed):

* a summary (submissions, mean / median / spread of the scores, full marks, zeros, how many need
  review, the protection the graded kernels ran under, the wall time);
* the score histogram;
* item analysis per check: pass rate, mean points, how many did not attempt it, and the item–rest
  correlation (the correlation of a check's points with the rest of the score: near 0 or negative
  means the check does not separate students who know the material — look at it);
* the most common failure messages per check (numbers masked, so the same mistake on different
  random inputs counts once), with how many submissions hit each;
* the submissions that need review, with the reasons;
* timing (seconds per submission: histogram, median, slowest).

:func:`summary_text` is the short plain-text version printed at the end of every run.

Everything in the page that comes from a submission (messages, ids, paths) is HTML-escaped: a
student's exception message must not run in the instructor's browser.
"""
from __future__ import annotations

import base64
import html
import io
import os
import re
import statistics
from collections import Counter

from .gradebook import review_reasons, student_ids

#: How many failure messages to show per check.
TOP_MESSAGES = 3
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


# --- numbers ---------------------------------------------------------------------------------------

def _pearson(x, y):
    """Pearson correlation of two equal-length sequences, or None when either is constant."""
    n = len(x)
    if n < 3:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sxx * syy) ** 0.5


def message_key(message):
    """What kind of mistake a failure message reports: its informative lines with numbers masked (``#``).

    The verdict header (``✗ [check] title``) and traceback file lines are skipped, so the same mistake
    on different random inputs gives one key and different mistakes on one check give different keys.
    """
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("✗ [", "File ", "Traceback", "in your code"))]
    return _NUMBER.sub("#", " / ".join(lines[:2]))[:200]


def item_analysis(results):
    """Per check id: ``{"max", "passed", "pass_rate", "mean", "not_attempted", "item_rest", "messages"}``.

    ``messages`` is a list of ``(message key, count, example message)``, most common first.
    """
    checks = []
    for r in results:
        for cid in r.checks:
            if cid not in checks:
                checks.append(cid)
    totals = [r.total for r in results]
    out = {}
    for cid in checks:
        rows = [(r.checks[cid], t) for r, t in zip(results, totals) if cid in r.checks]
        if not rows:
            continue
        points = [c.points for c, _ in rows]
        rest = [t - c.points for c, t in rows]
        failures = Counter()
        example = {}
        for c, _ in rows:
            if c.status not in ("passed", "not-attempted") and c.message:
                key = message_key(c.message)
                failures[key] += 1
                example.setdefault(key, c.message)
        out[cid] = {
            "max": rows[0][0].max_points,
            "passed": sum(1 for c, _ in rows if c.status == "passed"),
            "pass_rate": sum(1 for c, _ in rows if c.status == "passed") / len(rows),
            "mean": sum(points) / len(rows),
            "not_attempted": sum(1 for c, _ in rows if c.status == "not-attempted"),
            "item_rest": _pearson(points, rest),
            "messages": [(k, n, example[k]) for k, n in failures.most_common(TOP_MESSAGES)],
        }
    return out


def review_list(results, roots=()):
    """``[(student id, result, reasons)]`` of the submissions an instructor should look at."""
    ids = student_ids(results, roots)
    shared = Counter(ids)
    rows = []
    for sid, r in zip(ids, results):
        reasons = review_reasons(r) + ([f"student id shared by {shared[sid]} submissions"] if shared[sid] > 1 else [])
        if reasons:
            rows.append((sid, r, reasons))
    return rows


def score_summary(results, roots=()):
    """``{"n", "max", "mean", "median", "stdev", "min", "max_score", "full", "zero", "review"}``."""
    totals = [r.total for r in results]
    top = max((r.max for r in results), default=0)
    return {
        "n": len(results), "max": top,
        "mean": statistics.fmean(totals) if totals else 0.0,
        "median": statistics.median(totals) if totals else 0.0,
        "stdev": statistics.pstdev(totals) if len(totals) > 1 else 0.0,
        "min": min(totals, default=0), "max_score": max(totals, default=0),
        "full": sum(1 for r in results if r.max and r.total == r.max),
        "zero": sum(1 for r in results if r.total == 0),
        "review": len(review_list(results, roots)),
    }


def summary_text(results, *, roots=(), wall_seconds=None, protection=None):
    """A few lines for the terminal at the end of a run (scores, weakest checks, review, time)."""
    if not results:
        return "no submissions graded"
    s = score_summary(results, roots)
    lines = [f"{s['n']} submissions · score mean {s['mean']:.1f} / {s['max']}, median {s['median']:g}, "
             f"range {s['min']}–{s['max_score']} · full marks {s['full']}, zero {s['zero']}"]
    items = item_analysis(results)
    weakest = sorted(items.items(), key=lambda kv: kv[1]["pass_rate"])[:3]
    if weakest:
        lines.append("lowest pass rates: " + ", ".join(f"{cid} {v['pass_rate']:.0%}" for cid, v in weakest))
    lines.append(f"needs review: {s['review']}" + (" (see the gradebook's needs_review column)" if s["review"] else ""))
    seconds = [r.seconds for r in results]
    timing = f"time per submission: median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s"
    if wall_seconds is not None:
        timing += f"; wall time {wall_seconds:.0f} s ({wall_seconds / len(results):.2f} s per submission)"
    lines.append(timing)
    if protection:
        lines.append(f"protection: {protection}")
    return "\n".join(lines)


# --- figures --------------------------------------------------------------------------------------

def _figure(width=6.4, height=3.2):
    from matplotlib.figure import Figure                 # noqa: PLC0415  (Agg canvas, no pyplot state)
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _png(fig, directory, name):
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    data = buf.getvalue()
    with open(os.path.join(directory, name), "wb") as fh:
        fh.write(data)
    return data


def score_histogram(results):
    """The histogram of total scores (one bar per possible score)."""
    s = score_summary(results)
    fig, ax = _figure()
    top = max(s["max"], 1)
    ax.hist([r.total for r in results], bins=[b - 0.5 for b in range(top + 2)], color="#4c72b0", edgecolor="white")
    ax.set_xlabel("total score (points)", fontsize=12)
    ax.set_ylabel("submissions", fontsize=12)
    ax.set_title(f"Scores of {s['n']} submissions (max {s['max']})", fontsize=13)
    ax.set_xlim(-0.5, top + 0.5)
    ax.yaxis.get_major_locator().set_params(integer=True)
    return fig


def pass_rate_chart(results):
    """Horizontal bars: the pass rate of each check (item analysis at a glance)."""
    items = item_analysis(results)
    fig, ax = _figure(6.4, 0.45 * max(len(items), 2) + 1.2)
    names = list(items)[::-1]
    rates = [100 * items[c]["pass_rate"] for c in names]
    ax.barh(names, rates, color=["#c44e52" if r < 50 else "#55a868" for r in rates])
    ax.set_xlim(0, 100)
    ax.set_xlabel("passed (% of submissions)", fontsize=12)
    ax.set_title("Pass rate per check", fontsize=13)
    for y, r in enumerate(rates):
        ax.text(min(r + 1, 92), y, f"{r:.0f}%", va="center", fontsize=10)
    return fig


def timing_histogram(results):
    """Seconds per submission."""
    fig, ax = _figure(6.4, 2.8)
    ax.hist([r.seconds for r in results], bins=min(20, max(5, len(results) // 2)), color="#8172b2", edgecolor="white")
    ax.set_xlabel("seconds per submission (one graded run)", fontsize=12)
    ax.set_ylabel("submissions", fontsize=12)
    ax.set_title("Grading time", fontsize=13)
    return fig


# --- the page -------------------------------------------------------------------------------------

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; } td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f2f2f2; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; background: #f7f7f7; padding: 0.4em; margin: 0; font-size: 0.9em; }
.low { color: #b00; font-weight: 600; } img { max-width: 100%; }
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _img(data, alt):
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def report_html(results, *, title, figures, roots=(), protection=None, wall_seconds=None):
    """The page (a string); ``figures`` maps name → PNG bytes (score, items, timing)."""
    s = score_summary(results, roots)
    items = item_analysis(results)
    ids = student_ids(results, roots)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>", f"<h1>{_e(title)}</h1>"]
    out.append("<h2>Summary</h2><table>")
    rows = [("submissions", s["n"]), ("points available", s["max"]),
            ("mean score", f"{s['mean']:.2f}"), ("median score", f"{s['median']:g}"),
            ("standard deviation", f"{s['stdev']:.2f}"), ("lowest / highest", f"{s['min']} / {s['max_score']}"),
            ("full marks", s["full"]), ("zero", s["zero"]), ("need review", s["review"])]
    if protection:
        rows.append(("protection of the graded kernels", protection))
    if wall_seconds is not None:
        rows.append(("wall time", f"{wall_seconds:.0f} s ({wall_seconds / max(s['n'], 1):.2f} s per submission)"))
    out += [f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows]
    out.append("</table>")
    out.append("<h2>Scores</h2>" + _img(figures["score"], "histogram of total scores"))
    out.append("<h2>Item analysis</h2>" + _img(figures["items"], "pass rate per check"))
    out.append("<p>Item–rest correlation: the correlation between a check's points and the rest of the "
               "score. Near zero or negative means the check does not separate students who know the "
               "material from those who do not (too easy, too hard, or testing something else).</p>")
    out.append("<table><tr><th>check</th><th>points</th><th>passed</th><th>pass rate</th><th>mean points</th>"
               "<th>not attempted</th><th>item–rest r</th></tr>")
    for cid, v in items.items():
        r = "—" if v["item_rest"] is None else f"{v['item_rest']:.2f}"
        low = ' class="low"' if v["item_rest"] is not None and v["item_rest"] < 0.1 else ""
        out.append(f"<tr><td><code>{_e(cid)}</code></td><td class=num>{v['max']}</td><td class=num>{v['passed']}</td>"
                   f"<td class=num>{v['pass_rate']:.0%}</td><td class=num>{v['mean']:.2f}</td>"
                   f"<td class=num>{v['not_attempted']}</td><td class=num{low}>{r}</td></tr>")
    out.append("</table>")
    out.append("<h2>Most common failure messages</h2>")
    for cid, v in items.items():
        if not v["messages"]:
            continue
        out.append(f"<h3><code>{_e(cid)}</code></h3><table><tr><th>submissions</th><th>message (first seen)</th></tr>")
        for _, count, example in v["messages"]:
            out.append(f"<tr><td class=num>{count}</td><td><pre>{_e(example[:1500])}</pre></td></tr>")
        out.append("</table>")
    review = review_list(results, roots)
    out.append(f"<h2>Needs review ({len(review)})</h2>")
    if review:
        out.append("<table><tr><th>student</th><th>submission</th><th>score</th><th>reasons</th></tr>")
        out += [f"<tr><td>{_e(sid)}</td><td><code>{_e(r.path)}</code></td><td class=num>{r.total} / {r.max}</td>"
                f"<td>{'<br>'.join(_e(x) for x in reasons)}</td></tr>" for sid, r, reasons in review]
        out.append("</table>")
    else:
        out.append("<p>Nothing needs review.</p>")
    seconds = sorted(((r.seconds, sid) for sid, r in zip(ids, results)), reverse=True)
    out.append("<h2>Timing</h2>" + _img(figures["timing"], "histogram of grading time per submission"))
    if seconds:
        out.append(f"<p>Median {statistics.median([x for x, _ in seconds]):.1f} s per submission; slowest: "
                   + ", ".join(f"{_e(sid)} ({x:.1f} s)" for x, sid in seconds[:5]) + ".</p>")
    out.append("</body></html>")
    return "\n".join(out)


def write_report(results, directory, *, title="Class report", roots=(), protection=None, wall_seconds=None):
    """Write ``directory/index.html`` and its PNG figures; returns the path of ``index.html``."""
    if not results:
        raise ValueError("write_report: no results to report on (results is empty)")
    os.makedirs(directory, exist_ok=True)
    figures = {"score": _png(score_histogram(results), directory, "scores.png"),
               "items": _png(pass_rate_chart(results), directory, "pass_rates.png"),
               "timing": _png(timing_histogram(results), directory, "timing.png")}
    page = report_html(results, title=title, figures=figures, roots=roots, protection=protection,
                       wall_seconds=wall_seconds)
    path = os.path.join(directory, "index.html")
    with open(f"{path}.tmp", "w", encoding="utf-8") as fh:
        fh.write(page)
    os.replace(f"{path}.tmp", path)
    return path


__all__ = ["write_report", "report_html", "summary_text", "item_analysis", "score_summary", "message_key"]
