#!/usr/bin/python3
"""The HTML page and Markdown of kvlab results: `kvlab report` and `kvlab study` call this.

Usage: /usr/bin/python3 kvlab_report.py REPORT-INPUT.json OUTDIR

REPORT-INPUT.json is written by kvlab (study/report_input.h): the results (bench, conform,
study), the statistics kvlab computed over them with its analysis library, and the version
legend. This script lays them out: OUTDIR/index.html (self-contained: styles inline, plots as
data: URIs), OUTDIR/<markdown_name> (study.md or report.md) and the plots as OUTDIR/*.png.
It computes no statistic of its own.

Exit status: 0 done; 2 bad arguments or an unreadable input; 3 matplotlib missing.
"""

import json
import os
import sys

try:
    import report_plots as plots
except ImportError as e:  # matplotlib missing
    print(f"kvlab_report: matplotlib is not available to {sys.executable} ({e}); install "
          "python3-matplotlib and run with /usr/bin/python3", file=sys.stderr)
    sys.exit(3)
from report_html import Cell, Figure, Page, Section, Table, figures_of, render_html, \
    render_markdown

INPUT_SCHEMA = "kvlab-report-input"

from report_common import context_warnings, describe_context, footer_of, fmt, fmt_range, \
    fmt_value, run_section_blocks, slug, versions_section
from report_study import study_page


# ---------------------------------------------------------------------------------------------
# Bench.

def cell_color_label(cell_profile, varied_types, legend):
    """The version label that colours a cell: its version of the first varied type."""
    for t in varied_types:
        if t in cell_profile and cell_profile[t] is not None:
            v = legend.get(t, cell_profile[t])
            if v:
                return v["label"]
    return None


def bench_page(doc, legend, versions):
    bench = doc["bench"]
    ctx = bench.get("context", {})
    summary = doc.get("summary", {}).get("cells", [])
    names = [w["name"] for w in bench.get("workloads", [])]
    page = Page("kvlab bench: %s" % (", ".join(names) or "sweep"))
    page.subtitle.append(describe_context(ctx))
    page.warnings += context_warnings(ctx, bench.get("partial"), bench.get("partial_reason"))
    for n in bench.get("notes", []):
        page.warnings.append(n)
    add_bench_content(page, doc, legend, versions, footer_of(ctx), summary)
    page.sections.append(Section("run", "The run", run_section_blocks(ctx)))
    return page


def add_bench_content(page, doc, legend, versions, footer, summary, prefix=""):
    bench = doc["bench"]
    whole = [c for c in summary if c["command"] == "*"]
    lines = []
    panels = []
    backends = []
    for c in whole:
        if c["backend"] not in backends:
            backends.append(c["backend"])
    for w in bench.get("workloads", []):
        cells = [c for c in whole if c["workload"] == w["name"] and c.get("throughput")]
        if not cells:
            continue
        best = max(cells, key=lambda c: c["throughput"]["median"])
        worst = min(cells, key=lambda c: c["throughput"]["median"])
        lines.append("%s (phase %s): the fastest cell is %s at %s ops/s, the slowest %s at %s "
                     "ops/s (medians over %s repetitions)." % (
                         w["name"], best["phase"], best["cell"], fmt(best["throughput"]["median"]),
                         worst["cell"], fmt(worst["throughput"]["median"]),
                         best["throughput"]["n"]))
    if lines:
        page.summary.append(("list", lines))
    else:
        page.summary.append(("p", "This result has no workload cells."))
    used = set()
    for w in bench.get("workloads", []):
        cells = [c for c in summary if c["workload"] == w["name"]]
        if not cells:
            continue
        profiles = [c["profile"] for c in cells]
        varied = [t for t in ("hash", "zset") if len({json.dumps(p.get(t)) for p in profiles}) > 1]
        phases = []
        for c in cells:
            if c["phase"] not in phases:
                phases.append(c["phase"])
        sec = Section(slug(prefix, w["name"]), "%s%s" % (prefix and prefix + ": ", w["name"]))
        for ph in phases:
            labels, points, colors = [], {}, {}
            for c in cells:
                if c["phase"] != ph or c["command"] != "*" or not c.get("throughput"):
                    continue
                cat = " ".join(x for x in c["cell"].split(" ")[1:]) or c["backend"]
                if cat not in labels:
                    labels.append(cat)
                t = c["throughput"]
                points[(cat, c["backend"])] = (t["median"], t["min"], t["max"])
                colors[cat] = cell_color_label(c["profile"], varied, legend)
                used.add(colors[cat])
            if points:
                panels.append({"title": "%s · %s" % (w["name"], ph), "categories": labels,
                               "colors": colors, "points": points})
            sec.blocks.append(("table", bench_cell_table(cells, ph)))
            sec.blocks.append(("table", bench_kv_table(cells, ph)))
        page.sections.append(sec)
    if panels:
        png = plots.category_panels(panels, backends, legend, footer,
                                    "Throughput per cell (median, range over repetitions)",
                                    "operations / s")
        page.summary.append(("figure", Figure(slug(prefix, "throughput") + ".png", png,
                                              "Throughput of each workload phase per cell: "
                                              "marker = backend, colour = the version varied.",
                                              "throughput per cell")))
    sweeps(page, bench, legend, footer, prefix)
    page.sections.insert(0, versions_section(versions, None))


def bench_cell_table(cells, phase):
    cmds = sorted({c["command"] for c in cells if c["phase"] == phase and c["command"] != "*"})
    cols = ["cell", "ops/s median [range]"] + ["%s p50 µs" % c for c in cmds] + \
           ["%s p99 µs" % c for c in cmds]
    by_cell = {}
    for c in cells:
        if c["phase"] == phase:
            by_cell.setdefault(c["cell"], {})[c["command"]] = c
    rows = []
    for cell, m in by_cell.items():
        row = [cell, fmt_range(m.get("*", {}).get("throughput"))]
        row += [fmt_range(m[c]["p50_ns"], 1e-3) if c in m else "–" for c in cmds]
        row += [fmt_range(m[c]["p99_ns"], 1e-3) if c in m else "–" for c in cmds]
        rows.append(row)
    return Table(cols, rows, caption="Phase %s: throughput and latency per cell" % phase)


KV_FIELDS = [("gets", "get"), ("multiget_keys", "multiget key"), ("seeks", "seek"),
             ("nexts", "next"), ("prevs", "prev"), ("puts", "put"), ("deletes", "delete"),
             ("range_deletes", "range delete"), ("batch_records", "batch record")]


def kv_text(kv):
    if not kv:
        return "n/a"
    parts = ["%s %s" % (fmt(kv.get(f, 0)), name) for f, name in KV_FIELDS if kv.get(f, 0)]
    return " · ".join(parts) or "none"


def bench_kv_table(cells, phase):
    rows = []
    for c in cells:
        if c["phase"] != phase or c["command"] == "*":
            continue
        kv = c.get("kv_per_call")
        rows.append([c["cell"], c["command"], kv_text(kv),
                     fmt((kv or {}).get("bytes_read")), fmt((kv or {}).get("bytes_written")),
                     fmt(c.get("errors"))])
    return Table(["cell", "command", "KV operations per call (exact)", "bytes read/call",
                  "bytes written/call", "errors"], rows,
                 caption="Phase %s: KV operations per call" % phase, numeric={3, 4, 5})


def sweeps(page, bench, legend, footer, prefix):
    growth = bench.get("growth", [])
    if not growth:
        return
    for vtype in ("hash", "zset"):
        series = [g for g in growth if g.get("type") == vtype]
        if not series:
            continue
        probes = []
        for g in series:
            key = (g["probe"], g["command"])
            if key not in probes:
                probes.append(key)
        backends = []
        for g in series:
            if g["backend"] not in backends:
                backends.append(g["backend"])
        first_backend = backends[0]
        kv_panels, time_panels = [], []
        for probe, cmd in probes:
            kv_series, t_series = [], []
            for g in series:
                if (g["probe"], g["command"]) != (probe, cmd):
                    continue
                label = legend.label(vtype, g["version"])
                if g["backend"] == first_backend:
                    kv_series.append({"version": label, "backend": g["backend"], "x": g["sizes"],
                                      "y": g["kv_steps_per_call"]})
                    t_series.append({"version": label, "backend": g["backend"], "x": g["sizes"],
                                     "y": [p / 1000.0 if p else None for p in g["p50_ns"]]})
            title = probe if probe == cmd else "%s (%s)" % (probe, cmd)
            kv_panels.append({"title": title, "series": kv_series})
            time_panels.append({"title": title, "series": t_series})
        sec = Section(slug(prefix, "sweep", vtype), "%sCost against %s size" % (
            prefix and prefix + ": ", vtype))
        png = plots.growth_panels(kv_panels, legend, footer,
                                  "%s: KV steps per call against size (%s; exact)" % (
                                      vtype, first_backend), "KV steps per call")
        sec.blocks.append(("figure", Figure(slug(prefix, "sweep", vtype, "kv") + ".png", png,
                                            "KV steps (point reads, seeks, nexts, prevs, written "
                                            "records) per call, exact; guides show O(1), O(log n) "
                                            "and O(n) from the smallest size.",
                                            "%s KV steps against size" % vtype)))
        png = plots.growth_panels(time_panels, legend, footer,
                                  "%s: p50 per call against size (%s)" % (vtype, first_backend),
                                  "µs per call (p50)", guides=False)
        sec.blocks.append(("figure", Figure(slug(prefix, "sweep", vtype, "time") + ".png", png,
                                            "p50 latency per call; indicative (one repetition per "
                                            "size).", "%s p50 against size" % vtype)))
        rows = []
        for g in series:
            rows.append([g["backend"], legend.label(vtype, g["version"]), g["probe"], g["command"],
                " ".join(fmt(x) for x in g["kv_steps_per_call"]), g.get("kv_class", "?"),
                g.get("time_class", "?")])
        sec.blocks.append(("table", Table(["backend", "version", "probe", "command",
                                           "KV steps per call by size", "KV class",
                                           "time class (indicative)"], rows, numeric=set())))
        page.sections.append(sec)


# ---------------------------------------------------------------------------------------------
# Conform.

def conform_page(doc, legend, versions):
    c = doc["data"]
    page = Page("kvlab conform: %s" % c.get("verdict", "?"))
    page.subtitle.append("%s · started %s · %s s · reference %s" % (
        c.get("command_line", "kvlab conform"), c.get("started", "?"), fmt(c.get("seconds")),
        c.get("reference", "?")))
    t = c.get("totals", {})
    page.summary.append(("p", "Verdict: %s. %s replies equal to Redis's, %s catalogued "
                              "deviations, %s failures, over %s subjects." % (
                                  c.get("verdict", "?").upper(), fmt(t.get("pass")),
                                  fmt(t.get("deviation")), fmt(t.get("fail")),
                                  len(c.get("subjects", [])))))
    seen = c.get("deviations_seen", {})
    if seen:
        page.summary.append(("list", ["`%s`: %s replies" % (k, fmt(v)) for k, v in seen.items()]))
    page.sections.append(versions_section(versions, None))
    rows = []
    for run in c.get("runs", []):
        rt = run.get("totals", {})
        rows.append([run.get("subject"), run.get("profile", {}).get("label", "?"),
                     fmt(rt.get("pass")), fmt(rt.get("deviation")), fmt(rt.get("fail")),
                     fmt(run.get("seconds"))])
    panels = {}
    for run in c.get("runs", []):
        rt = run.get("totals", {})
        panels.setdefault(run.get("subject"), []).append({
            "label": run.get("profile", {}).get("label", "?"), "pass": rt.get("pass", 0),
            "deviation": rt.get("deviation", 0), "fail": rt.get("fail", 0)})
    if panels:
        png = plots.outcome_panels([{"title": k, "rows": v} for k, v in panels.items()],
                                   "kvlab conform, started %s" % c.get("started", "?"),
                                   "Replies per subject and profile")
        page.summary.append(("figure", Figure("conform-outcomes.png", png,
                                              "Replies equal to Redis's (pass), explained by the "
                                              "catalogue (deviation) and failed, per profile.",
                                              "conformance outcomes")))
    page.sections.append(Section("runs", "Runs", [("table", Table(
        ["subject", "profile", "pass", "deviation", "fail", "seconds"], rows))]))
    failing = {}
    for m in c.get("matrix", []):
        if m.get("fail"):
            failing.setdefault((m.get("subject"), m.get("version")), []).append(
                "%s (%s)" % (m.get("command"), m.get("fail")))
    blocks = []
    if failing:
        blocks.append(("table", Table(["subject", "version", "failing commands (failures)"],
                                      [[k[0], k[1], ", ".join(v)] for k, v in failing.items()],
                                      numeric=set())))
    fails = c.get("failures", [])
    if fails:
        blocks.append(("list", ["%s" % json.dumps(f)[:400] for f in fails[:50]]))
    if not blocks:
        blocks.append(("p", "No failures."))
    page.sections.append(Section("failures", "Failures", blocks))
    groups_ = {}
    for m in c.get("matrix", []):
        g = groups_.setdefault(m.get("group", "other"), {})
        k = (m.get("subject"), m.get("version"))
        acc = g.setdefault(k, [0, 0, 0])
        acc[0] += m.get("pass", 0)
        acc[1] += m.get("deviation", 0)
        acc[2] += m.get("fail", 0)
    rows = []
    for g, cells in groups_.items():
        for (subject, version), (p, d, f) in cells.items():
            rows.append([g, subject, version, fmt(p), fmt(d), fmt(f)])
    page.sections.append(Section("matrix", "Commands by group", [("table", Table(
        ["group", "subject", "version", "pass", "deviation", "fail"], rows,
        numeric={3, 4, 5}))]))
    uncovered = c.get("corpus_uncovered_commands", [])
    page.sections.append(Section("coverage", "Coverage", [
        ("p", "Commands of the engine the corpus never ran: %s." % (", ".join(uncovered) or
                                                                    "none"))]))
    return page


# ---------------------------------------------------------------------------------------------
# Comparison of two or more results.

COMPARED_METRICS = (("p50_ns", "p50"), ("p99_ns", "p99"), ("throughput", "throughput"))


def change_text(m):
    """'+12.3% [1.08×, 1.17× at 91%]', with '≈' when the data do not support a difference."""
    if m.get("ratio") is None:
        return "from 0"
    text = "%+.1f%%" % (100 * (m["ratio"] - 1))
    if m.get("low") is not None and m.get("confidence"):
        text += " [%s×, %s× at %s%%]" % (fmt(m["low"]), fmt(m["high"]),
                                         fmt(100 * m["confidence"]))
    if m.get("verdict") not in ("better", "worse") and abs(m["ratio"] - 1) > 0.005:
        text = "≈ " + text
    if m.get("relative_ratio") is not None:
        text += "; %+.1f%% beside the shift" % (100 * (m["relative_ratio"] - 1))
    return text


def comparison_sections(page, comparisons, documents, footer):
    """Two results compared as kvlab gate compares them (study/report_input.cc: the gate's own
    code, reported and never gated): the verdicts arrive computed; this lays them out."""
    for cmp in comparisons:
        base, cur = cmp["baseline"], cmp["current"]
        for w in cmp.get("warnings", []):
            page.warnings.append(w)
        if cmp.get("error"):
            page.warnings.append("%s against %s: not compared: %s" % (cur, base, cmp["error"]))
            continue
        rows = cmp.get("rows", [])
        counts = {}
        kv_changed = []
        for r in rows:
            for metric, _ in COMPARED_METRICS:
                m = r.get(metric)
                if m and "verdict" in m:
                    counts.setdefault(metric, {}).setdefault(m["verdict"], 0)
                    counts[metric][m["verdict"]] += 1
            for f, v in (r.get("kv_per_call") or {}).items():
                if v["baseline"] != v["current"]:
                    kv_changed.append((r, f, v))
        summary = []
        if cmp.get("timings_compared", True):
            for metric, title in COMPARED_METRICS:
                c = counts.get(metric, {})
                summary.append("%s: %s worse, %s better, %s inconclusive, %s unchanged" % (
                    title, c.get("worse", 0), c.get("better", 0), c.get("inconclusive", 0),
                    c.get("unchanged", 0)))
        shift = cmp.get("common_shift") or {}
        if shift.get("present"):
            summary.append("machine-wide shift: %+.1f%% (the median of %s timing rows, %s of them "
                           "beyond %s%% the same way): one finding, not a difference per row" % (
                               100 * (shift["ratio"] - 1), shift["rows"],
                               shift["beyond_threshold"], fmt(100 * cmp.get("threshold", 0.1))))
        summary.append("KV counters per call that changed (exact): %d" % len(kv_changed))
        page.summary.append(("p", "%s against %s (baseline):" % (cur, base)))
        page.summary.append(("list", summary))
        sid = slug("compare", base, cur)
        sec = Section(sid, "Comparison: %s against %s" % (cur, base))
        sec.blocks.append(("p", "Baseline %s: %s. Current %s: %s. Compared as `kvlab gate` "
                                "compares (docs/gate.md): a timing is better or worse only when "
                                "Holm's adjusted p ≤ %s over the %s timing rows of this "
                                "comparison (so noise marks a difference somewhere in it with "
                                "probability at most %s) and the change is beyond %s%%; a "
                                "machine-wide shift, a loaded machine or too few repetitions "
                                "leave it inconclusive. Intervals are %s%% intervals of the "
                                "ratio; ≈ marks a difference the data do not support." % (
                                    base, cmp.get("baseline_build"), cur, cmp.get("current_build"),
                                    fmt(cmp.get("alpha")), cmp.get("family", "?"),
                                    fmt(cmp.get("alpha")), fmt(100 * cmp.get("threshold", 0.1)),
                                    fmt(100 * cmp.get("confidence", 0.9)))))
        if cmp.get("repetitions_needed"):
            sec.blocks.append(("p", "Too few repetitions for that many rows: %s per side would "
                                    "let a difference be shown." % cmp["repetitions_needed"]))
        if kv_changed:
            sec.blocks.append(("table", Table(
                ["workload", "cell", "command", "counter", base, cur],
                [[r["workload"], r["cell"], r["command"], f, fmt(v["baseline"]), fmt(v["current"])]
                 for r, f, v in kv_changed], caption="KV counters per call that changed (exact)",
                numeric={4, 5})))
        else:
            sec.blocks.append(("p", "No KV counter per call changed."))
        trows = []
        panels = {}
        for r in rows:
            where = [r["workload"], r["cell"], r["phase"], r["command"]]
            if r.get("only_in"):
                trows.append(where + [Cell("only in " + r["only_in"], muted=True)] +
                             [""] * 6)
                continue
            for metric, title in COMPARED_METRICS:
                m = r.get(metric)
                if not m or "verdict" not in m:
                    continue
                verdict = m["verdict"]
                decided = verdict in ("better", "worse")
                trows.append(where + [
                    title, fmt_value(m["baseline"]["median"], m.get("unit")),
                    fmt_value(m["current"]["median"], m.get("unit")),
                    Cell(change_text(m), muted=not decided, strong=decided,
                         title=m.get("reason", "")),
                    fmt(m.get("p_value")), fmt(m.get("p_adjusted")),
                    Cell(verdict, muted=not decided, strong=decided, title=m.get("reason", ""))])
            tp = r.get("throughput")
            if r["command"] == "*" and tp and tp.get("ratio") is not None:
                panels.setdefault(r["workload"], []).append({
                    "label": "%s · %s" % (r["cell"], r["phase"]), "ratio": tp["ratio"],
                    "low": tp.get("low"), "high": tp.get("high"), "verdict": tp.get("verdict")})
        if panels:
            png = plots.ratio_panels([{"title": w, "rows": rs} for w, rs in panels.items()],
                                     footer, "Throughput, %s / %s" % (cur, base))
            sec.blocks.append(("figure", Figure(sid + ".png", png, "Throughput ratio per cell "
                                                "and phase with its interval; colour = verdict.",
                                                "throughput ratios")))
        sec.blocks.append(("table", Table(["workload", "cell", "phase", "command", "metric",
                                           base, cur, "change [interval]", "p", "adjusted p",
                                           "verdict"], trows,
                                          caption="Per command and cell (* = the whole phase: its "
                                                  "throughput)",
                                          numeric={5, 6, 7, 8, 9})))
        page.sections.append(sec)


# ---------------------------------------------------------------------------------------------

def build_page(report):
    versions = report.get("versions", [])
    legend = plots.Legend(versions)
    docs = report.get("documents", [])
    if not docs:
        raise ValueError("the report input has no documents")
    if len(docs) == 1:
        d = docs[0]
        page = {"study": study_page, "bench": bench_page, "conform": conform_page}[d["kind"]](
            d, legend, versions)
    else:
        # Names that tell the documents apart: the file name, or its path when two share one.
        names = [d["name"] for d in docs]
        for d in docs:
            if names.count(d["name"]) > 1:
                d["name"] = d.get("path", d["name"])
        page = Page("kvlab report: " + ", ".join(d["name"] for d in docs))
        for d in docs:
            ctx = (d.get("data") or {}).get("context") or (d.get("bench") or {}).get("context")
            if ctx:
                page.subtitle.append(describe_context(ctx, d["name"]))
                page.warnings += context_warnings(ctx, name=d["name"])
            elif d["kind"] == "conform":
                page.subtitle.append("%s: %s, %s" % (d["name"], d["data"].get("command_line"),
                                                     d["data"].get("started")))
        footer = "kvlab report of " + ", ".join(d["name"] for d in docs)
        comparison_sections(page, report.get("comparisons", []), docs, footer)
        page.sections.append(versions_section(versions, None))
        for d in docs:
            sub = {"study": study_page, "bench": bench_page, "conform": conform_page}[d["kind"]](
                d, legend, versions)
            page.summary.append(("p", "%s (%s): %s" % (d["name"], d["kind"], " ".join(
                b[1] if b[0] == "p" else "; ".join(b[1]) for b in sub.summary
                if b[0] in ("p", "list")))))
            for f in figures_of(sub):
                f.name = slug(d["name"]) + "-" + f.name
            for s in sub.sections:
                if s.id == "versions":
                    continue
                s.id = slug(d["name"], s.id)
                s.title = "%s: %s" % (d["name"], s.title)
                page.sections.append(s)
            for b in sub.summary:
                if b[0] == "figure":
                    page.sections.append(Section(slug(d["name"], "fig", b[1].name),
                                                 "%s: %s" % (d["name"], b[1].alt), [b]))
    return page


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print("kvlab_report: cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    if report.get("schema") != INPUT_SCHEMA or report.get("schema_version") != 1:
        print("kvlab_report: %s is not a kvlab report input (schema %s version 1)"
              % (argv[1], INPUT_SCHEMA), file=sys.stderr)
        return 2
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    page = build_page(report)
    names = set()
    for fig in figures_of(page):
        if fig.name in names:
            raise ValueError("two figures named " + fig.name)
        names.add(fig.name)
        with open(os.path.join(out, fig.name), "wb") as f:
            f.write(fig.png)
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write(render_html(page))
    md = report.get("markdown_name", "report.md")
    with open(os.path.join(out, md), "w", encoding="utf-8") as f:
        f.write(render_markdown(page))
    print("wrote %s and %s (%d plots)" % (os.path.join(out, "index.html"),
                                          os.path.join(out, md), len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
