"""Small-multiple plots for kvlab reports (matplotlib, run under Debian's /usr/bin/python3).

Conventions, the same in every figure:
- one panel per command, criterion or probe, at most six series per panel;
- each encode-version has one colour, taken from the version legend that kvlab passes in (the
  registry's), and each backend one marker and line style;
- legends sit outside the data, to the right of the panels;
- a log axis where the values span more than a factor of 20, with O(1) / O(log n) / O(n)
  guides on cost-against-size panels;
- every axis has a label with its unit, and every figure names the run, commit and machine in
  its footer.

Nothing here computes a statistic: medians, ranges and intervals arrive computed (by kvlab's
analysis library) and are only drawn.
"""

import io
import math

import matplotlib

matplotlib.use("Agg")  # no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

BACKEND_STYLES = {
    "memory": ("o", ":"),
    "rocksdb": ("s", "-"),
    "lmdb": ("^", "--"),
    "wiredtiger": ("D", "-."),
}
OTHER_MARKERS = ["v", "P", "X", "*", "h", "<", ">"]
NEUTRAL = "#555555"
MAX_COLUMNS = 4


def backend_style(name, order):
    """(marker, linestyle) of a backend: fixed for the known ones, then by first appearance."""
    if name in BACKEND_STYLES:
        return BACKEND_STYLES[name]
    unknown = [b for b in order if b not in BACKEND_STYLES]
    i = unknown.index(name) if name in unknown else 0
    return OTHER_MARKERS[i % len(OTHER_MARKERS)], (0, (3, 1, 1, 1))


class Legend:
    """The version legend: label -> colour, from the report input's `versions`. A version is its
    type and its registry name ("0", "kvrocks"); results of every schema arrive with names."""

    def __init__(self, versions):
        self.by_label = {v["label"]: v for v in versions}
        self.by_key = {(v["type"], str(v["version"])): v for v in versions}
        self.order = [v["label"] for v in versions]

    def get(self, vtype, version):
        """The legend entry of a version, or None (a version this kvlab does not know)."""
        if version is None:
            return None
        return self.by_key.get((vtype, str(version)))

    def label(self, vtype, version):
        v = self.get(vtype, version)
        return v["label"] if v else "%s=%s" % (vtype, version)

    def color(self, label):
        v = self.by_label.get(label)
        return v["color"] if v else NEUTRAL

    def sort(self, labels):
        """Labels in the registry's order (types in table order, versions by id); unknown last."""
        return sorted(labels, key=lambda l: (self.order.index(l) if l in self.order
                                             else len(self.order), l))


def needs_log(values):
    positive = [v for v in values if v is not None and v > 0]
    return len(positive) >= 2 and max(positive) / min(positive) > 20


def grid(n):
    cols = min(MAX_COLUMNS, max(1, n))
    rows = math.ceil(n / cols)
    return rows, cols


def new_figure(n_panels, footer, title, panel_w=3.3, panel_h=2.6, legend_w=1.9):
    rows, cols = grid(n_panels)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * panel_w + legend_w, rows * panel_h + 0.9),
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n_panels:]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    fig.text(0.01, 0.005, footer, fontsize=7, color="#555555", ha="left", va="bottom")
    return fig, flat[:n_panels], legend_w / (cols * panel_w + legend_w)


def overlapping_tick_labels(fig):
    """The axes of `fig` whose x tick labels overlap or touch one another once drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels()
                 if t.get_visible() and t.get_text()]
        boxes.sort(key=lambda b: b.x0)
        # Labels closer than a few pixels read as one word ("sardbskvrocks").
        if any(a.x1 + 4 > b.x0 for a, b in zip(boxes, boxes[1:])):
            out.append(ax)
    return out


def lay_out(fig, handles, legend_fraction):
    """Lays the figure out: panels, legend to the right outside the data, and x tick labels
    that never overlap (smaller, then upright, where they would). Returns the figure."""
    right = 1 - legend_fraction
    fig.tight_layout(rect=(0, 0.03, right, 0.95))
    # Crowded labels get a smaller font first, then stand upright (an upright label takes its
    # font's height along the axis, so it cannot reach its neighbour).
    for fix in ("smaller", "upright"):
        crowded = overlapping_tick_labels(fig)
        if not crowded:
            break
        for ax in crowded:
            for t in ax.get_xticklabels():
                if fix == "smaller":
                    t.set_fontsize(min(t.get_fontsize(), 7))
                else:
                    t.set_rotation(90)
                    t.set_ha("center")
        fig.tight_layout(rect=(0, 0.03, right, 0.95))
    if handles:
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(right + 0.005, 0.5),
                   fontsize=8, frameon=False)
    return fig


def finish(fig, handles, legend_fraction):
    """Lays the figure out (lay_out); returns the PNG bytes."""
    lay_out(fig, handles, legend_fraction)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def version_handles(labels, legend):
    return [Line2D([], [], color=legend.color(l), marker="s", linestyle="none", markersize=8,
                   label=l) for l in labels]


def backend_handles(backends):
    out = []
    for b in backends:
        marker, ls = backend_style(b, backends)
        out.append(Line2D([], [], color=NEUTRAL, marker=marker, linestyle=ls, label=b))
    return out


def dot_panels(panels, versions, backends, legend, footer, title, return_figure=False):
    """Panels of values per version (x) and backend (marker), coloured by version.

    panels: [{"title", "ylabel", "points": {(version_label, backend): (value, low, high)}}]
    low/high may be None (exact values); they are drawn as the spread over repetitions.
    Returns the PNG bytes, or the laid-out figure with return_figure (its tests).
    """
    fig, axes, lf = new_figure(len(panels), footer, title)
    n_b = max(1, len(backends))
    width = 0.6
    for ax, panel in zip(axes, panels):
        values = []
        for (v, b), (value, low, high) in panel["points"].items():
            if value is None:
                continue
            xi = versions.index(v)
            bi = backends.index(b) if b in backends else 0
            x = xi + (bi - (n_b - 1) / 2) * (width / n_b)
            marker, _ = backend_style(b, backends)
            color = legend.color(v)
            if low is not None and high is not None:
                ax.errorbar([x], [value], yerr=[[max(0, value - low)], [max(0, high - value)]],
                            fmt=marker, color=color, ecolor=color, elinewidth=1, capsize=2,
                            markersize=6)
            else:
                ax.plot([x], [value], marker=marker, color=color, linestyle="none", markersize=6)
            values += [value] + [w for w in (low, high) if w is not None]
        ax.set_xticks(range(len(versions)))
        ax.set_xticklabels(versions)
        ax.set_xlim(-0.6, len(versions) - 0.4)
        ax.set_title(panel["title"], fontsize=9)
        ax.set_ylabel(panel["ylabel"], fontsize=8)
        ax.set_xlabel("encode-version", fontsize=8)
        ax.tick_params(labelsize=8)
        if needs_log(values):
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
    handles = version_handles(versions, legend) + backend_handles(backends)
    if return_figure:
        return lay_out(fig, handles, lf)
    return finish(fig, handles, lf)


def bar_panels(panels, versions, legend, footer, title):
    """Panels of one exact value per version, as bars coloured by version.

    panels: [{"title", "ylabel", "values": {version_label: value}}]
    """
    fig, axes, lf = new_figure(len(panels), footer, title)
    for ax, panel in zip(axes, panels):
        xs, hs, cs = [], [], []
        for i, v in enumerate(versions):
            value = panel["values"].get(v)
            if value is None:
                continue
            xs.append(i)
            hs.append(value)
            cs.append(legend.color(v))
        ax.bar(xs, hs, color=cs, width=0.65)
        for x, h in zip(xs, hs):
            ax.annotate(fmt_short(h), (x, h), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 1), textcoords="offset points")
        ax.set_xticks(range(len(versions)))
        ax.set_xticklabels(versions)
        ax.set_title(panel["title"], fontsize=9)
        ax.set_ylabel(panel["ylabel"], fontsize=8)
        ax.set_xlabel("encode-version", fontsize=8)
        ax.tick_params(labelsize=8)
        if needs_log(hs):
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, (max(hs) if hs else 1) * 1.18 or 1)
        ax.grid(axis="y", alpha=0.3)
    return finish(fig, version_handles(versions, legend), lf)


def category_panels(panels, backends, legend, footer, title, ylabel):
    """Panels with categorical x (cells' profiles), one marker per backend, coloured by version.

    panels: [{"title", "categories": [label], "colors": {label: version_label},
              "points": {(label, backend): (median, low, high)}}]
    """
    fig, axes, lf = new_figure(len(panels), footer, title, panel_w=4.2)
    used_versions = []
    for ax, panel in zip(axes, panels):
        cats = panel["categories"]
        n_b = max(1, len(backends))
        values = []
        for (cat, b), (value, low, high) in panel["points"].items():
            if value is None:
                continue
            bi = backends.index(b) if b in backends else 0
            x = cats.index(cat) + (bi - (n_b - 1) / 2) * (0.6 / n_b)
            vlabel = panel["colors"].get(cat)
            if vlabel and vlabel not in used_versions:
                used_versions.append(vlabel)
            color = legend.color(vlabel) if vlabel else NEUTRAL
            marker, _ = backend_style(b, backends)
            yerr = None
            if low is not None and high is not None:
                yerr = [[max(0, value - low)], [max(0, high - value)]]
            ax.errorbar([x], [value], yerr=yerr, fmt=marker, color=color, ecolor=color,
                        capsize=2, markersize=5, elinewidth=1)
            values += [value]
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, rotation=45 if len(cats) > 4 else 0, ha="right"
                           if len(cats) > 4 else "center", fontsize=7)
        ax.set_title(panel["title"], fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=8)
        if needs_log(values):
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
    handles = version_handles(sorted(used_versions), legend) + backend_handles(backends)
    return finish(fig, handles, lf)


def growth_panels(panels, legend, footer, title, ylabel, guides=True):
    """Cost against collection size: one panel per probe, one line per version (colour) and
    backend (line style and marker), log-log, with O(1), O(log n) and O(n) guides.

    panels: [{"title", "series": [{"version": label, "backend": name,
                                    "x": [...], "y": [...]}]}]
    """
    fig, axes, lf = new_figure(len(panels), footer, title)
    backends, versions = [], []
    for panel in panels:
        for s in panel["series"]:
            if s["backend"] not in backends:
                backends.append(s["backend"])
            if s["version"] not in versions:
                versions.append(s["version"])
    for ax, panel in zip(axes, panels):
        ys = []
        for s in panel["series"]:
            pts = [(x, y) for x, y in zip(s["x"], s["y"]) if x and y is not None and y > 0]
            if not pts:
                continue
            marker, ls = backend_style(s["backend"], backends)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=legend.color(s["version"]),
                    marker=marker, linestyle=ls, markersize=4, linewidth=1.2)
            ys += [p[1] for p in pts]
        ax.set_xscale("log")
        if ys and (needs_log(ys) or guides):
            ax.set_yscale("log")
        if guides and ys:
            xs = sorted({x for s in panel["series"] for x in s["x"] if x})
            if len(xs) >= 2:
                x0, x1 = xs[0], xs[-1]
                y0 = min(ys)
                ax.plot([x0, x1], [y0, y0], color="#bbbbbb", linewidth=0.8, linestyle=":")
                ax.plot([x0, x1], [y0, y0 * math.log2(x1) / max(1.0, math.log2(x0))],
                        color="#bbbbbb", linewidth=0.8, linestyle="--")
                ax.plot([x0, x1], [y0, y0 * x1 / x0], color="#bbbbbb", linewidth=0.8,
                        linestyle="-.")
        ax.set_title(panel["title"], fontsize=9)
        ax.set_xlabel("elements in the collection", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    handles = version_handles(versions, legend)
    handles += backend_handles(backends) if len(backends) > 1 else []
    if guides:
        handles += [Line2D([], [], color="#bbbbbb", linestyle=":", label="O(1) guide"),
                    Line2D([], [], color="#bbbbbb", linestyle="--", label="O(log n) guide"),
                    Line2D([], [], color="#bbbbbb", linestyle="-.", label="O(n) guide")]
    return finish(fig, handles, lf)


def ratio_panels(panels, footer, title):
    """Comparison ratios with their intervals: one panel per workload, one row per cell and
    command, a vertical line at 1.

    panels: [{"title", "rows": [{"label", "ratio", "low", "high", "verdict"}]}]
    """
    n = len(panels)
    tallest = max((len(p["rows"]) for p in panels), default=1)
    fig, axes, lf = new_figure(n, footer, title, panel_w=4.5,
                               panel_h=max(2.2, 0.22 * tallest + 1.0))
    colors = {"better": "#1a9850", "worse": "#d73027", "unchanged": "#777777",
              "inconclusive": "#bbbbbb"}
    for ax, panel in zip(axes, panels):
        rows = panel["rows"]
        for i, r in enumerate(rows):
            c = colors.get(r.get("verdict"), NEUTRAL)
            if r.get("low") is not None and r.get("high") is not None:
                ax.plot([r["low"], r["high"]], [i, i], color=c, linewidth=2)
            ax.plot([r["ratio"]], [i], marker="o", color=c, markersize=4)
        ax.axvline(1.0, color="#333333", linewidth=0.8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r["label"] for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("current / baseline (median, 90% interval)", fontsize=8)
        ax.set_title(panel["title"], fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], color=c, marker="o", linewidth=2, label=v) for v, c in colors.items()]
    return finish(fig, handles, lf)


def outcome_panels(panels, footer, title):
    """Conformance outcomes: one panel per subject, one stacked bar per profile (pass,
    deviation, fail), on a log axis since failures are few against thousands of passes.

    panels: [{"title", "rows": [{"label", "pass", "deviation", "fail"}]}]
    """
    tallest = max((len(p["rows"]) for p in panels), default=1)
    fig, axes, lf = new_figure(len(panels), footer, title, panel_w=4.5,
                               panel_h=max(2.2, 0.3 * tallest + 1.0))
    colors = [("pass", "#4daf4a"), ("deviation", "#f0a020"), ("fail", "#d73027")]
    for ax, panel in zip(axes, panels):
        rows = panel["rows"]
        for i, r in enumerate(rows):
            left = 0.0
            for key, color in colors:
                v = r.get(key, 0)
                if v:
                    ax.barh([i], [v], left=[left], color=color, height=0.6)
                    left += v
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r["label"] for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("replies compared", fontsize=8)
        ax.set_title(panel["title"], fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], color=c, marker="s", linestyle="none", markersize=8, label=k)
               for k, c in colors]
    return finish(fig, handles, lf)


def fmt_short(v):
    if v is None:
        return ""
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e4:
        return f"{v / 1e3:.3g}k"
    return f"{v:.3g}"
