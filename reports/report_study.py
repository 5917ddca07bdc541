"""The study page of kvlab's report (`kvlab study`): the rankings, their method and the
figures of each criterion. Called by kvlab_report.py.
"""

import report_plots as plots
from report_common import context_warnings, describe_context, footer_of, fmt, \
    run_section_blocks, slug, versions_section, workload_blocks
from report_html import Cell, Figure, Page, Section, Table


# ---------------------------------------------------------------------------------------------
# Study.

def study_page(doc, legend, versions):
    study = doc["data"]
    ctx = study.get("context", {})
    settings = study.get("study", {})
    rankings = study.get("rankings", [])
    page = Page("kvlab study: %s on %s" % (", ".join(settings.get("workloads", [])),
                                           ", ".join(settings.get("backends", []))))
    page.subtitle.append(describe_context(ctx))
    page.subtitle.append(
        "%s design, %s repetitions, weights %s%s" % (
            settings.get("design", "?"), settings.get("repetitions", "?"),
            settings.get("weights_text", "?"),
            "" if not settings.get("weights_given") else " (given: `--weights %s`)"
            % settings["weights_given"]))
    page.warnings += context_warnings(ctx, study.get("partial"), None)
    for w in study.get("warnings", []):
        page.warnings.append(w)
    for n in study.get("notes", []):
        page.warnings.append(n)
    sentences = [s["text"] for s in study.get("verdict", {}).get("sentences", [])]
    page.summary.append(("p", "**Verdict**, drawn from the measured numbers below:"
                         .replace("**", "")))
    page.summary.append(("list", sentences or ["No ranking: no type had two versions measured."]))
    page.summary.append(("table", ranking_summary_table(rankings, legend)))
    page.summary.append(("p", "Rank, score and the score's interval over the repetitions, per "
                              "backend, in rank order (0 is best; each point is \"twice as "
                              "costly\" on one criterion of weight 1). A rank counts the versions "
                              "that beat a version beyond the noise and the tie margin: versions "
                              "sharing rank 1 are tied for first. ≈ marks a p50 whose difference "
                              "from the fastest version is inside the noise."))
    page.sections.append(versions_section(versions, used_versions(rankings)))
    page.sections.append(method_section(study))
    footer = footer_of(ctx)
    fig_index = 0
    for group in groups(rankings):
        first = group[0]
        wl, vtype = first["workload"], first["type"]
        sid = slug(wl, vtype)
        fixed = ", ".join("%s at %s" % (t, v["label"]) for t, v in first.get("fixed", {}).items())
        sec = Section(sid, "%s: %s versions%s" % (wl, vtype, (" (%s)" % fixed) if fixed else ""))
        labels = legend.sort({row["label"] for r in group for row in r["rows"]})
        backends = [r["backend"] for r in group]
        fig_index += 1
        sec.blocks.append(("figure", criteria_figure(group, labels, backends, legend, footer,
                                                     "study-%s-criteria.png" % sid)))
        fig = command_figure(group, labels, backends, legend, footer,
                             "study-%s-commands.png" % sid)
        if fig:
            sec.blocks.append(("figure", fig))
        page.sections.append(sec)
        for r in group:
            sub = Section(slug(wl, vtype, r["backend"]), "%s on %s" % (vtype, r["backend"]),
                          level=3)
            sub.blocks.append(("table", ranking_table(r, study.get("criteria", []))))
            sub.blocks.append(("table", command_table(r)))
            devs = {}
            for row in r["rows"]:
                for d in row.get("deviations", []):
                    devs.setdefault(d["id"], (d, []))[1].append(row["label"])
            if devs:
                sub.blocks.append(("list", ["`%s` (%s on %s): %s" % (
                    i, ", ".join(d["commands"]), ", ".join(ls), d.get("reason", ""))
                    for i, (d, ls) in devs.items()]))
            errors = [(row["label"], e) for row in r["rows"] for e in row.get("errors", [])]
            for label, e in errors:
                page.warnings.append("%s on %s: a cell failed: %s" % (label, r["backend"], e))
            page.sections.append(sub)
    bench = doc.get("bench")
    if bench:
        page.sections.append(Section("workloads", "The workloads", workload_blocks(bench)))
    page.sections.append(Section("run", "The run", run_section_blocks(ctx)))
    return page


def used_versions(rankings):
    return {row["label"] for r in rankings for row in r["rows"]}


def groups(rankings):
    out, index = [], {}
    for r in rankings:
        key = (r["workload"], r["type"])
        if key not in index:
            index[key] = len(out)
            out.append([])
        out[index[key]].append(r)
    return out


def rank_order(group):
    """The labels of a (workload, type) group in rank order: the first backend's order (rank,
    then score), then versions only other backends have."""
    out = []
    for r in group:
        for row in r["rows"]:
            if row["label"] not in out:
                out.append(row["label"])
    return out


def rank_cell(row):
    """'1 · 0.31 [0.2–0.5]', bold when ranked first; 'failed' when every cell failed."""
    if row is None:
        return "–"
    if row.get("rank") is None:
        return Cell("failed", muted=True)
    text = "%d · %s" % (row["rank"], fmt(row.get("score")))
    if row.get("score_low") is not None and row.get("score_high") is not None:
        text += " [%s–%s]" % (fmt(row["score_low"]), fmt(row["score_high"]))
    return Cell(text, strong=bool(row.get("first", row.get("rank") == 1)))


def ranking_summary_table(rankings, legend):
    backends = []
    for r in rankings:
        if r["backend"] not in backends:
            backends.append(r["backend"])
    rows = []
    for g in groups(rankings):
        by_backend = {r["backend"]: r for r in g}
        first = g[0]
        for label in rank_order(g):
            cells = ["%s %s" % (first["workload"], first["type"]),
                     Cell(label, swatch=legend.color(label), strong=True)]
            found = {}
            for b in backends:
                r = by_backend.get(b)
                found[b] = next((x for x in r["rows"] if x["label"] == label), None) if r else None
                cells.append(rank_cell(found[b]))
            for b in backends:
                c = ((found[b] or {}).get("criteria") or {}).get("latency")
                if not c:
                    cells.append("–")
                else:
                    ns = not c.get("best") and not c.get("significant")
                    cells.append(Cell(("≈" if ns else "") + fmt(c.get("value")), muted=ns))
            rows.append(cells)
    cols = ["workload, type", "version"] + ["%s rank · score [interval]" % b for b in backends] + \
           ["%s p50 µs" % b for b in backends]
    return Table(cols, rows, caption="Ranking", numeric=set(range(2, len(cols))))


def method_section(study):
    crit = study.get("criteria", [])
    rows = [[c["name"], c["title"], c["unit"], c["what"],
             "higher" if c.get("higher_is_better") else "lower",
             "repetitions (90% interval)" if c.get("timed") else "exact (1% materiality)",
             fmt(c.get("weight"))] for c in crit]
    s = study.get("study", {})
    return Section("method", "How the ranking works", [
        ("p", "Each criterion's value is the median over the repetitions (timed) or the exact "
              "count. The best version on a criterion sets the reference; another version's cost "
              "on it is weight × |log2((value + floor) / (best + floor))|, 0 for a counted value "
              "within %s%% of the best. A timed cost counts only when its ratio to the best is "
              "significant at %d%% and larger than the noise (the square of the spread of a "
              "cell's repetitions, the median over the versions); a timed criterion whose "
              "repetitions spread more than 2x counts for nothing. Exactness costs the weight "
              "per catalogued deviation beyond the fewest any version has; needs cost 1 per "
              "cache Redis and 2 per store Redis. The score is the sum; its range spans the "
              "repetitions. A version is beaten by another whose cost is lower by more than the "
              "tie margin (%s), the two compared pair by pair, a timed difference inside the "
              "noise counting as none; its rank is 1 + the versions that beat it, and the "
              "versions nothing beats (or that beat back every version beating them, in a "
              "cycle) are tied for first."
              % (fmt(100 * s.get("materiality", 0.01)), round(100 * s.get("confidence", 0.9)),
                 fmt(s.get("tie_margin", 0.1)))),
        ("p", "Break-even: the model re-scores the versions for another share of one command "
              "(the others keeping their proportions) and for a round trip added to every KV "
              "call, from each command's measured numbers, and names where the first place "
              "changes (docs/study.md)."),
        ("p", "Weights used: %s. Change them with `kvlab study --weights NAME=W,...`."
              % s.get("weights_text", "?")),
        ("p", "Design: %s. %s" % (s.get("design", "?"),
              "One type's versions vary at a time, the other types at their baseline version, "
              "so every difference between two rows of a table comes from that type's encoding."
              if s.get("design") == "one-factor" else
              "Every combination of versions ran; each table holds the other types at the "
              "baseline.")),
        ("p", "Space is what keeping the data costs: the live bytes (keys and values) of the "
              "type's records per element at the end of the load, garbage excluded (a dry run of "
              "the collector), plus a store Redis's dataset; it does not depend on how the load "
              "was batched. The load's write volume (every key-meta rewrite included) is the "
              "separate criterion write B/elem. Redis memory is the datasets of the Redis roles "
              "the version uses per element: a cache's at the end of the run (it fills as the "
              "run reads), a store's at the end of the load. The tables also show the "
              "live bytes per element after the run and a GC pass, and the whole store's disk "
              "bytes after a flush per element of every type (indicative)."),
        ("table", Table(["name", "column", "unit", "what", "better", "uncertainty", "weight"],
                        rows, numeric={6})),
    ])


def ranking_table(r, criteria):
    crit = [c for c in criteria if c["name"] not in ("exactness", "needs")]
    cols = ["rank", "version", "score [interval]"] + \
        ["%s%s" % (c["title"], (" " + c["unit"]) if c["unit"] and c["unit"] not in c["title"]
                   else "") for c in crit] + \
        ["B/elem after run", "disk B/elem", "deviations", "needs"]
    rows = []
    for row in r["rows"]:
        score = fmt(row.get("score"))
        if row.get("score_low") is not None and row.get("score_high") is not None:
            score += " [%s–%s]" % (fmt(row["score_low"]), fmt(row["score_high"]))
        cells = [fmt(row.get("rank")), Cell(row["label"], strong=bool(row.get("first"))), score]
        for c in crit:
            cj = (row.get("criteria") or {}).get(c["name"])
            if not cj:
                cells.append("–")
                continue
            text = fmt(cj["value"])
            muted = False
            tip = None
            if c.get("timed") and not cj.get("best"):
                if cj.get("significant"):
                    text += " (×%s)" % fmt(cj.get("ratio"))
                else:
                    text = "≈" + text
                    muted = True
                if cj.get("low") is not None:
                    tip = "ratio to the best %s, %d%% interval [%s, %s]" % (
                        fmt(cj.get("ratio")), round(100 * cj.get("confidence", 0.9)),
                        fmt(cj["low"]), fmt(cj["high"]))
            if cj.get("counted") is False:
                text += " (not counted)"
                muted = True
            cells.append(Cell(text, muted=muted, title=tip, strong=bool(cj.get("best"))))
        cells.append(fmt(row.get("space_after_run")))
        cells.append(fmt(row.get("disk_bytes_per_element")))
        cells.append(", ".join(d["id"] for d in row.get("deviations", [])) or "none")
        cells.append("; ".join(row.get("needs", [])) or "–")
        rows.append(cells)
    return Table(cols, rows, caption="Ranking on %s (%s commands: %s)" % (
        r["backend"], r["type"], ", ".join(r.get("commands", []))),
        numeric=set(range(2, len(cols) - 2)) - {1})


def command_table(r):
    cols = ["command", "version", "calls", "p50 µs", "p99 µs", "KV reads/call", "KV writes/call",
            "KV bytes/call", "Redis RTs/call"]
    rows = []
    for cmd in r.get("commands", []):
        for row in r["rows"]:
            c = (row.get("commands") or {}).get(cmd)
            if not c:
                continue
            rows.append([cmd, row["label"], fmt(c.get("calls")), fmt(c.get("p50_us")),
                         fmt(c.get("p99_us")), fmt(c.get("kv_reads")), fmt(c.get("kv_writes")),
                         fmt(c.get("kv_bytes")), fmt(c.get("round_trips"))])
    return Table(cols, rows, caption="Per command on %s (medians over repetitions; KV counts "
                                     "exact)" % r["backend"], numeric=set(range(2, len(cols))))


def criteria_figure(group, labels, backends, legend, footer, name):
    panels = []
    names = ["latency", "tail_latency", "throughput", "kv_ops", "kv_bytes", "round_trips",
             "space", "write_bytes", "redis_memory"]
    titles = {"latency": ("p50 of the type's commands", "µs"),
              "tail_latency": ("p99 of the type's commands", "µs"),
              "throughput": ("workload throughput", "operations / s"),
              "kv_ops": ("KV operations per command", "operations"),
              "kv_bytes": ("KV bytes per command", "bytes"),
              "round_trips": ("Redis round trips per command", "round trips"),
              "space": ("live bytes per element after the load", "bytes"),
              "write_bytes": ("bytes the load wrote per element", "bytes"),
              "redis_memory": ("Redis memory per element", "bytes")}
    for n in names:
        points = {}
        for r in group:
            for row in r["rows"]:
                c = (row.get("criteria") or {}).get(n)
                if not c:
                    continue
                samples = c.get("samples")
                low = min(samples) if samples else None
                high = max(samples) if samples else None
                points[(row["label"], r["backend"])] = (c["value"], low, high)
        if not points or all(v[0] == 0 for v in points.values()):
            continue
        panels.append({"title": titles[n][0], "ylabel": titles[n][1], "points": points})
    first = group[0]
    png = plots.dot_panels(panels, labels, backends, legend, footer,
                           "%s: %s versions on each criterion" % (first["workload"], first["type"]))
    return Figure(name, png, "Each criterion per version (colour) and backend (marker); timed "
                             "criteria show the median and the range over repetitions. Log "
                             "axes where values span more than 20×.",
                  "%s %s criteria" % (first["workload"], first["type"]))


def command_figure(group, labels, backends, legend, footer, name):
    first = group[0]
    panels = []
    for cmd in first.get("commands", []):
        points = {}
        for r in group:
            for row in r["rows"]:
                c = (row.get("commands") or {}).get(cmd)
                if c and c.get("p50_us") is not None:
                    points[(row["label"], r["backend"])] = (c["p50_us"], None, None)
        if points:
            panels.append({"title": cmd + " p50", "ylabel": "µs per call", "points": points})
    if not panels:
        return None
    png = plots.dot_panels(panels, labels, backends, legend, footer,
                           "%s: p50 per command" % first["workload"])
    return Figure(name, png, "p50 latency per call of each %s command of the workload (median "
                             "over repetitions), per version and backend." % first["type"],
                  "%s %s p50 per command" % (first["workload"], first["type"]))
