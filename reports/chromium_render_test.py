#!/usr/bin/python3
"""The report page in headless Chromium (ctest report_chromium_test).

Renders every fixture with the report renderer, opens each page in Chromium and requires every
check of check_html_render to pass; then opens a deliberately broken page (a missing image and
an external script) and requires the checks to catch both, so that the test can fail.
"""

import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_html_render  # noqa: E402
import kvlab_report  # noqa: E402


def fixtures():
    """Every report input the tests keep (reports/testdata/*-input.json): each kind of page
    kvlab writes (bench, sweep, conform, comparison, study) and the studies and results that
    once broke the renderer (named versions, failed cells, an interrupted study)."""
    data = os.path.join(HERE, "testdata")
    return sorted(f for f in os.listdir(data) if f.endswith("-input.json"))


def main():
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        print("chromium is not installed (scripts/bootstrap installs it)")
        return 1
    out = tempfile.mkdtemp(prefix="kvlab-chromium-test-")
    failures = []
    try:
        names = fixtures()
        for name in names:
            with open(os.path.join(HERE, "testdata", name)) as f:
                report = json.load(f)
            page_dir = os.path.join(out, name[:-len("-input.json")])
            os.makedirs(page_dir)
            report["markdown_name"] = "report.md"
            path = os.path.join(page_dir, "input.json")
            with open(path, "w") as f:
                json.dump(report, f)
            if kvlab_report.main(["kvlab_report.py", path, page_dir]) != 0:
                failures.append("%s: the renderer failed" % name)
                print("FAIL: " + failures[-1])
                continue
            for f in check_html_render.check(os.path.join(page_dir, "index.html"),
                                             os.path.join(page_dir, "screenshot.png"), chromium,
                                             120):
                failures.append("%s: %s" % (name, f))
                print("FAIL: " + failures[-1])
        broken = os.path.join(out, "broken.html")
        with open(broken, "w") as f:
            f.write('<!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title>'
                    '<script>console.error("boom")</script></head><body>'
                    '<section id="summary"><h2>Summary</h2><p>text</p></section>'
                    '<nav id="contents"></nav><img src="missing.png" alt="missing plot">'
                    '</body></html>')
        caught = check_html_render.check(broken, os.path.join(out, "broken.png"), chromium, 120)
        wanted = ["image not loaded: missing plot", "console error: console.error: boom"]
        for w in wanted:
            if not any(c.startswith(w) for c in caught):
                failures.append("the broken page's '%s' was not caught (got %s)" % (w, caught))
                print("FAIL: " + failures[-1])
        print("%d pages checked, %d failures" % (len(names) + 1, len(failures)))
        return 1 if failures else 0
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
