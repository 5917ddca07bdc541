#!/usr/bin/python3
"""Opens a kvlab report page in headless Chromium and checks that a person would see it.

Usage: /usr/bin/python3 check_html_render.py PAGE.html [--screenshot OUT.png]
                                             [--chromium PATH] [--timeout S]

Chromium is driven through the DevTools protocol over a pipe (--remote-debugging-pipe: JSON
messages separated by NUL bytes on file descriptors 3 and 4), with Python's standard library
only. The checks:
  - the page loads (Page.loadEventFired) from a file:// URL with the network unused;
  - the summary section is present and has text;
  - every <img> has loaded (complete, with a natural width) and there is at least one;
  - nothing was logged as an error: no console.error, no uncaught exception, no failed load
    (Log.entryAdded of level "error", e.g. a missing image or an external asset refused);
  - a screenshot of the page is not blank: it has enough non-background pixels and more than a
    few distinct colours.
Exit status: 0 every check passed; 1 a check failed (each failure is printed); 2 bad arguments
or Chromium could not be run.
"""

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402  (decodes the screenshot)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio",
         "--hide-scrollbars", "--remote-debugging-pipe", "--window-size=1280,2000"]

CHECK_JS = """(() => {
  const imgs = Array.from(document.images);
  const summary = document.getElementById('summary');
  return JSON.stringify({
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt || i.src.slice(0, 60)),
    summary_text: summary ? summary.innerText.trim().length : -1,
    has_toc: !!document.getElementById('contents'),
    title: document.title,
    body_text: document.body ? document.body.innerText.trim().length : 0,
    external: Array.from(document.querySelectorAll('[src],[href]'))
      .map(e => e.getAttribute('src') || e.getAttribute('href'))
      .filter(u => /^(https?:)?\\/\\//.test(u)),
  });
})()"""


class Browser:
    """A Chromium process and its DevTools pipe."""

    def __init__(self, chromium, profile_dir, timeout):
        self.timeout = timeout
        to_child_r, self.to_child_w = os.pipe()
        self.from_child_r, from_child_w = os.pipe()

        def plumb():
            # The protocol's fixed descriptors: Chromium reads fd 3 and writes fd 4. Move both
            # ends out of the way first, in case either already sits on 3 or 4.
            r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [chromium] + FLAGS + ["--user-data-dir=" + profile_dir, "about:blank"],
            # close_fds=False: fds 3 and 4 are made in the child by plumb() (subprocess would
            # close them, and pass_fds needs them open in the parent); every other descriptor
            # Python opens is close-on-exec anyway.
            close_fds=False, preexec_fn=plumb,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from Chromium within %s s" % self.timeout)
            import select
            ready, _, _ = select.select([self.from_child_r], [], [], 0.5)
            if ready:
                chunk = os.read(self.from_child_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe (exit %s): %s" % (
                        self.proc.poll(), self.proc.stderr.read().decode(errors="replace")[-2000:]))
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None):
        mid = self.send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read_message(deadline)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, deadline):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = self._read_message(deadline)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def drain(self, seconds):
        end = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(end))
        except TimeoutError:
            pass

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_child_w)
        os.close(self.from_child_r)


def blank_check(png_path):
    """None when the screenshot shows content, else why it looks blank."""
    img = mpimg.imread(png_path)
    h, w = img.shape[0], img.shape[1]
    rgb = img[:, :, :3]
    background = rgb[0, 0]
    differs = (abs(rgb - background).sum(axis=2) > 0.05)
    fraction = differs.sum() / float(h * w)
    # Distinct colours, coarsely: text, tables and plots give many.
    coarse = (rgb[::4, ::4] * 15).round().reshape(-1, 3)
    distinct = len({tuple(c) for c in coarse.tolist()})
    if fraction < 0.01:
        return "only %.2f%% of the pixels differ from the background" % (100 * fraction)
    if distinct < 8:
        return "only %d distinct colours" % distinct
    return None


def check(page, screenshot, chromium, timeout):
    failures = []
    profile = tempfile.mkdtemp(prefix="kvlab-chromium-")
    browser = None
    try:
        browser = Browser(chromium, profile, timeout)
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.call(domain + ".enable", session=session)
        browser.call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=session)
        deadline = time.monotonic() + timeout
        browser.wait_event("Page.loadEventFired", deadline)
        browser.drain(0.5)  # late console messages
        result = browser.call("Runtime.evaluate", {"expression": CHECK_JS, "returnByValue": True},
                              session=session)
        info = json.loads(result["result"]["value"])
        shot = browser.call("Page.captureScreenshot", {"format": "png"}, session=session)
        import base64
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        errors = []
        for e in browser.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                errors.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
        for e in errors:
            failures.append("console error: " + e)
        if info["summary_text"] <= 0:
            failures.append("no summary: #summary is %s" % (
                "missing" if info["summary_text"] < 0 else "empty"))
        if not info["has_toc"]:
            failures.append("no table of contents (#contents)")
        if info["images"] == 0:
            failures.append("no image on the page")
        for b in info["broken"]:
            failures.append("image not loaded: " + b)
        for u in info["external"]:
            failures.append("external asset: " + u)
        why = blank_check(screenshot)
        if why:
            failures.append("the page renders blank: " + why)
        print("checked %s: %d images, summary %d characters, %d console errors; screenshot %s"
              % (page, info["images"], info["summary_text"], len(errors), screenshot))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("--screenshot", default=None)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()
    if not os.path.isfile(args.page):
        print("check_html_render: no such page: " + args.page, file=sys.stderr)
        return 2
    if not os.access(args.chromium, os.X_OK):
        print("check_html_render: chromium not found at %s (scripts/bootstrap installs it)"
              % args.chromium, file=sys.stderr)
        return 2
    shot = args.screenshot or os.path.join(os.path.dirname(os.path.abspath(args.page)),
                                           "screenshot.png")
    try:
        failures = check(args.page, shot, args.chromium, args.timeout)
    except (RuntimeError, TimeoutError, OSError) as e:
        print("check_html_render: %s" % e, file=sys.stderr)
        return 2
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
