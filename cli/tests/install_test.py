#!/usr/bin/env python3
"""kvlab runs from wherever its binary is: nothing of the build machine is compiled in.

1. A copy of build/kvlab and build/share/ in a fresh directory runs `kvlab conform` on its
   corpus and catalogue (found next to the binary), from another working directory.
2. `cmake --install` into a fresh prefix gives PREFIX/bin/kvlab and PREFIX/share/kvlab, and the
   installed kvlab does the same.
3. No --help text names the source or build directory.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def check_conform(kvlab, workdir, label):
    """A short conform run: one profile on memory, the default corpus and catalogue."""
    out = os.path.join(workdir, "conform-out")
    env = dict(os.environ)
    env.pop("KVLAB_DATA_DIR", None)
    code, stdout, stderr = run([kvlab, "conform", "--backends", "memory", "--hash-versions", "0",
                                "--zset-versions", "0", "--out", out], workdir, env)
    if code != 0:
        print(f"{label}: kvlab conform exited {code}\n{stdout}\n{stderr}", file=sys.stderr)
        return False
    if not os.path.exists(os.path.join(out, "conform.json")):
        print(f"{label}: no conform.json in {out}", file=sys.stderr)
        return False
    print(f"{label}: conform ran on its own corpus and catalogue")
    return True


def check_help(kvlab, workdir, forbidden, label):
    ok = True
    for args in ([], ["serve"], ["bench"], ["bench", "run"], ["conform"], ["gate"]):
        code, stdout, stderr = run([kvlab] + args + ["--help"], workdir)
        text = stdout + stderr
        for path in forbidden:
            if path in text:
                print(f"{label}: `kvlab {' '.join(args)} --help` shows {path}", file=sys.stderr)
                ok = False
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    build = os.path.realpath(args.build)
    source = os.path.realpath(args.source)
    ok = True
    with tempfile.TemporaryDirectory(prefix="kvlab-install-test-") as tmp:
        # 1. A copied build.
        copy = os.path.join(tmp, "copy")
        os.makedirs(copy)
        shutil.copy2(os.path.join(build, "kvlab"), copy)
        shutil.copytree(os.path.join(build, "share"), os.path.join(copy, "share"))
        elsewhere = os.path.join(tmp, "elsewhere")
        os.makedirs(elsewhere)
        ok &= check_conform(os.path.join(copy, "kvlab"), elsewhere, "copied build")
        ok &= check_help(os.path.join(copy, "kvlab"), elsewhere, [source, build], "copied build")
        # 2. An install.
        prefix = os.path.join(tmp, "prefix")
        code, stdout, stderr = run(["cmake", "--install", build, "--prefix", prefix], tmp)
        if code != 0:
            print(f"cmake --install exited {code}\n{stdout}\n{stderr}", file=sys.stderr)
            return 1
        installed = os.path.join(prefix, "bin", "kvlab")
        for f in ("share/kvlab/docs/deviations.json", "share/kvlab/conformance/cases",
                  "share/kvlab/reports/plot_bench.py"):
            if not os.path.exists(os.path.join(prefix, f)):
                print(f"install: {f} is missing", file=sys.stderr)
                ok = False
        ok &= check_conform(installed, elsewhere, "installed")
    print("install_test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
