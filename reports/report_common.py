"""Shared pieces of kvlab's report pages: numbers as kvlab prints them, the run's context
(machine, build, warnings), and the version legend. Used by kvlab_report.py and report_study.py.
"""

from report_html import Cell, Section, Table


# ---------------------------------------------------------------------------------------------
# Numbers, as kvlab prints them (study/verdict.cc's FormatNumber: 3 significant digits).

def fmt(v):
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v != v or v in (float("inf"), float("-inf")):
        return "inf"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        s = "%.0f" % v
    elif a >= 10:
        s = "%.1f" % v
    elif a >= 1:
        s = "%.2f" % v
    elif a >= 0.01:
        s = "%.3f" % v
    else:
        s = "%.2g" % v
    if "." in s and "e" not in s:
        s = s.rstrip("0").rstrip(".")
    return s


def fmt_time(ns):
    """Nanoseconds in the unit that fits: '850 ns', '2.42 µs', '15.7 ms', '1.57 s'."""
    if ns is None or ns != ns or ns in (float("inf"), float("-inf")):
        return fmt(ns)
    a = abs(ns)
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if a >= factor:
            return "%s %s" % (fmt(ns / factor), unit)
    return "%s ns" % fmt(ns)


def fmt_value(v, unit):
    """A value of `unit` as kvlab gate prints it: times by fmt_time, rates with k and M."""
    if unit == "ns":
        return fmt_time(v)
    if v is None:
        return fmt(v)
    if unit and unit.endswith("/s"):
        a = abs(v)
        for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if a >= factor:
                return "%s%s %s" % (fmt(v / factor), suffix, unit)
    return "%s %s" % (fmt(v), unit) if unit else fmt(v)


def fmt_range(summary, scale=1.0):
    """'123 [110–130]' from a summary (median [min–max]); scale converts units."""
    if not summary:
        return "–"
    med = summary["median"] * scale
    if summary.get("n", 1) <= 1:
        return fmt(med)
    return "%s [%s–%s]" % (fmt(med), fmt(summary["min"] * scale), fmt(summary["max"] * scale))


def slug(*parts):
    s = "-".join(str(p) for p in parts).lower()
    return "".join(c if c.isalnum() else "-" for c in s).strip("-")


# ---------------------------------------------------------------------------------------------
# Context: the run, commit and machine.

def describe_context(ctx, name=None):
    b = ctx.get("build", {})
    h = ctx.get("host", {})
    commit = (b.get("commit") or "?")[:12] + ("+dirty" if b.get("commit_dirty") else "")
    line = "%srun %s · commit %s (%s, %s) · %s, %s, %s CPUs, load %s at start" % (
        (name + ": ") if name else "", ctx.get("date", "?"), commit, b.get("build_type", "?"),
        b.get("compiler", "?"), h.get("hostname", "?"), h.get("cpu_model", "?"),
        h.get("usable_cpus", "?"), fmt(h.get("load_average_1m")))
    return line


def footer_of(ctx):
    b = ctx.get("build", {})
    h = ctx.get("host", {})
    return "kvlab run %s · commit %s · %s (%s, %s CPUs)" % (
        ctx.get("date", "?"), (b.get("commit") or "?")[:12], h.get("hostname", "?"),
        h.get("cpu_model", "?"), h.get("usable_cpus", "?"))


def context_warnings(ctx, partial=False, partial_reason=None, name=None):
    out = []
    prefix = (name + ": ") if name else ""
    h = ctx.get("host", {})
    load, cpus = h.get("load_average_1m"), h.get("usable_cpus")
    if load is not None and cpus and load > cpus:
        out.append("%sthe machine was loaded when the run started (load average %s on %s CPUs): "
                   "times are noisier than usual; the significance marks account for the "
                   "spread measured" % (prefix, fmt(load), cpus))
    if ctx.get("timing_valid") is False:
        out.append("%stimes are not valid (%s): only the KV counts mean anything"
                   % (prefix, ctx.get("timing_invalid_reason", "debug or sanitizer build")))
    if partial:
        out.append("%sthe run is partial (%s): some cells are missing"
                   % (prefix, partial_reason or "interrupted"))
    return out


def run_section_blocks(ctx):
    store = ctx.get("store", {})
    rows = [
        ["command line", "`" + " ".join(ctx.get("command_line", [])) + "`"],
        ["date", ctx.get("date", "?")],
        ["build", "%s, %s, %s, flags `%s`" % ((ctx.get("build", {}).get("commit") or "?")[:12],
                                              ctx.get("build", {}).get("build_type", "?"),
                                              ctx.get("build", {}).get("compiler", "?"),
                                              ctx.get("build", {}).get("cxx_flags", ""))],
        ["machine", "%s, %s, %s of %s CPUs usable, kernel %s, load %s at start" % (
            ctx.get("host", {}).get("hostname", "?"), ctx.get("host", {}).get("cpu_model", "?"),
            ctx.get("host", {}).get("usable_cpus", "?"),
            ctx.get("host", {}).get("logical_cpus", "?"), ctx.get("host", {}).get("kernel", "?"),
            fmt(ctx.get("host", {}).get("load_average_1m")))],
        ["store", "backends %s; sync %s; cache %s MiB; reverse scan %s; round-trip delay %s µs"
         % (", ".join(store.get("backends", [])), fmt(store.get("sync_writes")),
            store.get("cache_mb", "?"), "off" if store.get("no_reverse_scan") else "on",
            store.get("rtt_us", 0))],
        ["repetitions", str(ctx.get("repetitions", "?"))],
    ]
    return [("table", Table(["", ""], rows, numeric=set()))]


def versions_section(versions, used_labels=None):
    rows = []
    for v in versions:
        if used_labels is not None and v["label"] not in used_labels:
            continue
        rows.append([Cell(v["label"], swatch=v["color"], strong=True), v["type"],
                     v["summary"], "; ".join(v.get("needs", [])) or "the KV store only"])
    return Section("versions", "The encode-versions", [
        ("p", "Each version in one line (from kvlab's encoding registry), with its colour in "
              "every plot and what it needs beside the KV store. Byte layouts: "
              "docs/encodings.md."),
        ("table", Table(["version", "type", "what it is", "needs"], rows, numeric=set()))])


def load_command_text(c):
    """A load command as the workload file has it: a template, or {"command", "records": [from,
    to]} when it loads only part of the keyspace (a profile's workload, one range per type)."""
    if isinstance(c, dict):
        r = c.get("records")
        return c.get("command", "") + (" (records %s-%s)" % (fmt(r[0]), fmt(r[1])) if r else "")
    return c


def workload_blocks(bench):
    blocks = []
    for w in bench.get("workloads", []):
        d = w.get("definition", {})
        ks = d.get("keyspace", {})
        blocks.append(("p", "`%s`: %s. %s records of %s %s elements; load `%s`." % (
            w.get("name"), d.get("description", ""), fmt(ks.get("records")),
            fmt(ks.get("elements")), ks.get("type"),
            "`, `".join(load_command_text(c) for c in d.get("load", {}).get("commands", [])))))
        for ph in d.get("run", []):
            ops = ", ".join("%s %s%% `%s`" % (o["name"], fmt(o["weight"]), "; ".join(o["commands"]))
                            for o in ph.get("ops", []))
            blocks.append(("list", ["phase %s: %s operations after %s warm-up; %s" % (
                ph.get("name"), fmt(ph.get("operations")), fmt(ph.get("warmup_operations")),
                ops)]))
    return blocks
