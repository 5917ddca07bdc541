#!/usr/bin/python3
"""Tests of the report renderer on fixture inputs (reports/testdata/*-input.json, written by
`kvlab report` and `kvlab study` and trimmed): the outputs exist, the PNGs are valid images, the
HTML is self-contained, and the numbers in the text are the input's.

Run: /usr/bin/python3 -m unittest discover -s reports -p 'test_*.py'
"""

import html
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402

import kvlab_report  # noqa: E402

DATA = os.path.join(HERE, "testdata")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def md_tables(md):
    """{caption: [row dicts]} of the Markdown tables preceded by a **caption** line."""
    tables = {}
    lines = md.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\*\*(.+)\*\*$", lines[i])
        if m and i + 2 < len(lines) and lines[i + 2].startswith("| "):
            header = [c.strip() for c in lines[i + 2].strip("|").split(" | ")]
            rows = []
            j = i + 4
            while j < len(lines) and lines[j].startswith("| "):
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", lines[j].strip()[1:-1])]
                rows.append(dict(zip(header, cells)))
                j += 1
            tables[m.group(1)] = rows
            i = j
        else:
            i += 1
    return tables


class RenderedCase:
    """Renders one fixture into a temporary directory."""

    fixture = None
    markdown = "report.md"

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="kvlab-report-test-")
        cls.input = load(cls.fixture)
        cls.input["markdown_name"] = cls.markdown
        path = os.path.join(cls.out, "input.json")
        with open(path, "w") as f:
            json.dump(cls.input, f)
        rc = kvlab_report.main(["kvlab_report.py", path, cls.out])
        assert rc == 0, "the renderer failed"
        with open(os.path.join(cls.out, "index.html"), encoding="utf-8") as f:
            cls.html = f.read()
        with open(os.path.join(cls.out, cls.markdown), encoding="utf-8") as f:
            cls.md = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_outputs_exist_and_pngs_are_valid(self):
        pngs = [f for f in os.listdir(self.out) if f.endswith(".png")]
        self.assertTrue(pngs, "no plot written")
        for p in pngs:
            path = os.path.join(self.out, p)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", p)
            img = mpimg.imread(path)
            self.assertGreater(img.shape[0], 100, p)
            self.assertGreater(img.shape[1], 100, p)
        # Every image the Markdown shows exists; the HTML inlines as many.
        linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", self.md)
        self.assertEqual(sorted(linked), sorted(pngs))
        self.assertEqual(self.html.count('<img src="data:image/png;base64,'), len(pngs))

    def test_html_is_self_contained(self):
        self.assertNotRegex(self.html, r"(src|href)=\"(https?:)?//")
        for src in re.findall(r'src="([^"]*)"', self.html):
            self.assertTrue(src.startswith("data:"), src)
        self.assertNotIn("<script", self.html)

    def test_summary_first_then_contents(self):
        s = self.html.index('id="summary"')
        t = self.html.index('id="contents"')
        first_section = self.html.index("<section id=", t)
        self.assertLess(s, t)
        self.assertLess(t, first_section)
        self.assertLess(self.md.index("## Summary"), self.md.index("## Contents"))


class StudyReport(RenderedCase, unittest.TestCase):
    fixture = "study-input.json"
    markdown = "study.md"

    def study(self):
        return self.input["documents"][0]["data"]

    def test_verdict_sentences_are_shown_verbatim(self):
        sentences = self.study()["verdict"]["sentences"]
        self.assertTrue(sentences)
        summary_html = self.html[self.html.index('id="summary"'):self.html.index('id="contents"')]
        for s in sentences:
            self.assertIn(html.escape(s["text"]), summary_html)
            self.assertIn(s["text"], self.md)

    def test_ranking_tables_match_the_input(self):
        tables = md_tables(self.md)
        fmt = kvlab_report.fmt
        checked = 0
        for r in self.study()["rankings"]:
            caption = next(c for c in tables if c.startswith("Ranking on %s (%s commands"
                                                             % (r["backend"], r["type"])))
            rows = {row["version"]: row for row in tables[caption]}
            for row in r["rows"]:
                md = rows[row["label"]]
                self.assertEqual(md["rank"], fmt(row["rank"]))
                if row["rank"] is None:  # every cell of the version failed
                    continue
                self.assertEqual(md["score [interval]"], "%s [%s–%s]" % (
                    fmt(row["score"]), fmt(row["score_low"]), fmt(row["score_high"])))
                p50 = md["p50 µs"]
                self.assertIn(fmt(row["criteria"]["latency"]["value"]), p50)
                self.assertEqual(p50.startswith("≈"), not row["criteria"]["latency"].get("best")
                                 and not row["criteria"]["latency"].get("significant"))
                self.assertEqual(md["KV ops /cmd"], fmt(row["criteria"]["kv_ops"]["value"]))
                checked += 1
        self.assertGreater(checked, 0)

    def test_summary_table_is_in_rank_order(self):
        tables = md_tables(self.md)
        summary = tables["Ranking"]
        first_backend = self.study()["rankings"][0]["backend"]
        for r in self.study()["rankings"]:
            if r["backend"] != first_backend:
                continue
            key = "%s %s" % (r["workload"], r["type"])
            shown = [row["version"] for row in summary if row["workload, type"] == key]
            self.assertEqual(shown, [row["label"] for row in r["rows"]], key)

    def test_warnings_are_shown(self):
        for w in self.study().get("warnings", []):
            self.assertIn(html.escape(w), self.html)

    def test_weights_are_named(self):
        text = self.study()["study"]["weights_text"]
        self.assertIn(text, self.md)
        self.assertIn(html.escape(text), self.html)

    def test_versions_are_explained_with_their_colours(self):
        used = {row["label"] for r in self.study()["rankings"] for row in r["rows"]}
        for v in self.input["versions"]:
            if v["label"] not in used:
                continue
            self.assertIn(html.escape(v["summary"]), self.html)
            self.assertIn("background:%s" % v["color"], self.html)


class StudyFailedCellsReport(StudyReport):
    """A study whose Redis-tier versions failed (an unreachable cache), with named versions
    (hardb, hkvrocks) and one repetition: the timings do not count, and the page says so."""
    fixture = "study-failed-input.json"

    def test_failed_versions_are_named(self):
        failed = [row["label"] for r in self.study()["rankings"] for row in r["rows"]
                  if row["rank"] is None]
        self.assertTrue(failed, "the fixture has a failed version")
        for label in failed:
            self.assertRegex(self.md, r"%s on \S+: a cell failed" % label)
        self.assertIn("timings do not count", self.md)


class StudyPartialReport(StudyReport):
    """An interrupted study: partial, some versions with fewer repetitions."""
    fixture = "study-partial-input.json"

    def test_partial_is_said(self):
        self.assertTrue(self.study()["partial"])
        self.assertIn("interrupted", self.md)


class BenchReport(RenderedCase, unittest.TestCase):
    fixture = "bench-input.json"

    def test_throughput_table_matches_the_summary(self):
        cells = [c for c in self.input["documents"][0]["summary"]["cells"] if c["command"] == "*"]
        tables = md_tables(self.md)
        rows = {r["cell"]: r for r in tables["Phase run: throughput and latency per cell"]}
        for c in cells:
            self.assertEqual(rows[c["cell"]]["ops/s median [range]"],
                             kvlab_report.fmt_range(c["throughput"]))
        self.assertEqual(len(rows), len(cells))


class BenchNamedVersionsReport(BenchReport):
    """A bench result whose versions have names (0 and kvrocks): every cell is coloured by its
    version, whatever its name."""
    fixture = "bench-named-input.json"

    def test_named_versions_are_shown(self):
        self.assertIn("hkvrocks", self.md)


class SweepReport(RenderedCase, unittest.TestCase):
    fixture = "sweep-input.json"

    def test_growth_numbers_match(self):
        growth = self.input["documents"][0]["bench"]["growth"]
        self.assertTrue(growth)
        for g in growth:
            steps = " ".join(kvlab_report.fmt(x) for x in g["kv_steps_per_call"])
            self.assertIn("| %s | %s | %s |" % (g["command"], steps, g["kv_class"]), self.md)


class ConformReport(RenderedCase, unittest.TestCase):
    fixture = "conform-input.json"

    def test_totals_match(self):
        c = self.input["documents"][0]["data"]
        t = c["totals"]
        fmt = kvlab_report.fmt
        self.assertIn("Verdict: %s. %s replies equal to Redis's, %s catalogued deviations, %s "
                      "failures" % (c["verdict"].upper(), fmt(t["pass"]), fmt(t["deviation"]),
                                    fmt(t["fail"])), self.md)


class CompareReport(RenderedCase, unittest.TestCase):
    fixture = "compare-input.json"

    def test_counts_match_the_rows(self):
        cmp = self.input["comparisons"][0]
        for metric, title in (("p50_ns", "p50"), ("throughput", "throughput")):
            counts = {}
            for r in cmp["rows"]:
                m = r.get(metric)
                if m and "verdict" in m:
                    counts[m["verdict"]] = counts.get(m["verdict"], 0) + 1
            self.assertIn("%s: %d worse, %d better, %d inconclusive, %d unchanged" % (
                title, counts.get("worse", 0), counts.get("better", 0),
                counts.get("inconclusive", 0), counts.get("unchanged", 0)), self.md)

    def test_times_are_in_human_units_and_every_row_has_both_p_values(self):
        cmp = self.input["comparisons"][0]
        tables = md_tables(self.md)
        rows = tables["Per command and cell (* = the whole phase: its throughput)"]
        p50 = [r for r in cmp["rows"] if r.get("p50_ns")]
        self.assertTrue(p50)
        shown = {(t["cell"], t["phase"], t["command"], t["metric"]): t for t in rows}
        for r in p50:
            t = shown[(r["cell"], r["phase"], r["command"], "p50")]
            self.assertEqual(t["verdict"], r["p50_ns"]["verdict"])
            self.assertEqual(t["adjusted p"], kvlab_report.fmt(r["p50_ns"]["p_adjusted"]))
            self.assertRegex(t[cmp["baseline"]], r"^[0-9.]+ (ns|µs|ms|s)$")
        self.assertNotIn("e+0", self.md)

    def test_never_better_or_worse_without_support(self):
        for r in self.input["comparisons"][0]["rows"]:
            for metric in ("p50_ns", "p99_ns", "throughput"):
                m = r.get(metric)
                if m and m["verdict"] in ("better", "worse"):
                    self.assertLessEqual(m["p_adjusted"], self.input["comparisons"][0]["alpha"])

    def test_each_document_is_named(self):
        for d in self.input["documents"]:
            self.assertIn(d["name"], self.md)


class Plots(unittest.TestCase):
    """Every version's colour is distinct and readable on white (the registry's, as kvlab hands
    them over), and axis labels never overlap."""

    def test_tick_labels_never_overlap(self):
        import report_plots as plots
        versions = load("study-input.json")["versions"]
        legend = plots.Legend(versions)
        labels = [v["label"] for v in versions if v["type"] == "set"] + \
            [v["label"] for v in versions if v["type"] == "zset"]
        points = {(l, "memory"): (float(i + 1), None, None) for i, l in enumerate(labels)}
        panels = [{"title": "p%d" % i, "ylabel": "µs", "points": points} for i in range(8)]
        fig = plots.dot_panels(panels, labels, ["memory"], legend, "footer", "title",
                               return_figure=True)
        self.assertEqual(plots.overlapping_tick_labels(fig), [])
        plots.plt.close(fig)

    def test_legend_knows_named_versions(self):
        import report_plots as plots
        legend = plots.Legend(load("study-input.json")["versions"])
        self.assertEqual(legend.label("hash", "kvrocks"), "hkvrocks")
        self.assertEqual(legend.label("zset", 1), "z1")
        self.assertEqual(legend.label("zset", "nosuch"), "zset=nosuch")


class Formatting(unittest.TestCase):
    def test_agrees_with_kvlab(self):
        # The same cases as study_test's FormatNumber test.
        for value, text in load("format_cases.json")["cases"]:
            self.assertEqual(kvlab_report.fmt(value), text, value)


class BadInput(unittest.TestCase):
    def test_rejects_other_json(self):
        d = tempfile.mkdtemp()
        try:
            p = os.path.join(d, "x.json")
            with open(p, "w") as f:
                json.dump({"schema": "something-else"}, f)
            self.assertEqual(kvlab_report.main(["kvlab_report.py", p, d]), 2)
            self.assertEqual(kvlab_report.main(["kvlab_report.py"]), 2)
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
