"""Measure the site build and the pages: `make bench` runs this and writes bench/RESULTS.md.

0. A clean parallel build with an empty PyTensor/Numba compile cache, as on a fresh machine (cold).
1. A clean parallel build (the same command as `make html`) with the cache that build left: wall time, time
   per notebook, peak memory of the whole process tree (Sphinx, its workers and their kernels).
2. The same build again with nothing changed (the no-change rebuild).
3. A clean serial build (-j 1): the serial sum of notebook execution times the parallel build is compared with.
4. Every page loaded in headless Chromium from a local server with an empty cache: bytes transferred (as
   served here, uncompressed, and as gzip would send them) and any request that leaves 127.0.0.1.
5. Every notebook run alone in a fresh kernel, as a reader runs it (docsite/run_notebook.py): first with an empty
   PyTensor/Numba compile cache (a reader's first run on a fresh machine or an unwarmed Binder), then again with
   the cache that run left (warm).

`python -m docsite.bench notebooks [--numba-cpu-name generic] [page.md ...]` runs step 5 alone (all pages by
default) and prints its table; NUMBA_CPU_NAME=generic is what Binder uses (binder/start).

Figures only: nothing here asserts a time.
"""

import functools
import gzip
import http.server
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from docsite import ROOT

OUT = ROOT / "_build" / "bench"
RESULTS = ROOT / "bench" / "RESULTS.md"
EXECUTED = re.compile(r"^(?P<path>\S+\.md): Executed notebook in (?P<s>[\d.]+) seconds", re.M)


def timed_build(outdir, jobs, clean=True, compiledir=None, extra_env=None):
    """Run `make html` (the one sphinx-build command line) into outdir/html; return wall seconds, peak RSS of the
    process tree (bytes), per-notebook seconds."""
    if clean:
        shutil.rmtree(outdir, ignore_errors=True)
    cmd = ["make", "--no-print-directory", "html", f"VENV={sys.prefix}", f"OUT={outdir}", f"SPHINXOPTS=-j {jobs}"]
    env = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"} | (extra_env or {})
    if compiledir:  # PyTensor keeps its C and Numba caches under base_compiledir
        env["PYTENSOR_FLAGS"] = f"base_compiledir={compiledir}"
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak, log = 0, []
    reader = threading.Thread(target=lambda: log.extend(proc.stdout), daemon=True)
    reader.start()
    parent = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            tree = [parent] + parent.children(recursive=True)
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.2)
    wall = time.perf_counter() - start
    reader.join()
    text = "".join(log)
    if proc.returncode != 0:
        sys.exit(f"build failed ({' '.join(cmd)}):\n{text[-3000:]}")
    notebooks = {str(Path(m["path"]).relative_to(ROOT)): float(m["s"]) for m in EXECUTED.finditer(text)}
    return wall, peak, notebooks


def page_weights(site):
    """Bytes each page transfers on a first visit, and requests that leave the host."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.relative_to(site).parts[0].startswith("_"))
    weights = {}
    chromium = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu",
                                    "--disable-background-networking", "--disable-component-update"])
        for page_path in pages:
            context = browser.new_context()  # empty cache: a first visit
            page = context.new_page()
            bodies, outside = [], []
            page.on("request", lambda r: urlsplit(r.url).hostname not in ("127.0.0.1", None)
                    and not r.url.startswith("data:") and outside.append(r.url))
            page.on("response", lambda r: bodies.append(r))
            page.goto(f"{base}/{page_path}", wait_until="networkidle")
            raw = zipped = 0
            for response in bodies:
                try:
                    body = response.body()
                except Exception:  # e.g. a redirect has no body
                    continue
                raw += len(body)
                zipped += len(gzip.compress(body, 6))
            weights[page_path] = (raw, zipped, len(bodies), outside)
            context.close()
        browser.close()
    httpd.shutdown()
    return weights


def notebook_pages():
    """Pages myst-nb executes: MyST files whose front matter has a kernelspec (as binder/postBuild finds them)."""
    found = [p for p in sorted(ROOT.glob("*.md")) + sorted(ROOT.glob("*/*.md"))
             if p.parent.name not in {"tests", "tools", "bench"} and re.search(r"^kernelspec:", p.read_text(), re.M)]
    return [str(p.relative_to(ROOT)) for p in found]


def notebook_cold_warm(pages, extra_env=None):
    """Seconds per page, each run in a fresh kernel: with an empty compile cache (cold), then with the cache that
    run left (warm). The figure is run_notebook.py's "executed in": kernel start plus every cell."""
    times = {}
    for page in pages:
        with tempfile.TemporaryDirectory(prefix="bench-compiledir-") as cache:
            env = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                "PYTENSOR_FLAGS": f"base_compiledir={cache}"} | (extra_env or {})
            runs = []
            for label in ("cold", "warm"):
                proc = subprocess.run([sys.executable, "-m", "docsite.run_notebook", page], cwd=ROOT, env=env,
                                      capture_output=True, text=True)
                found = re.search(r"executed in ([\d.]+) s, 0 problem", proc.stdout)
                if proc.returncode or not found:
                    print(f"    {page} ({label}) failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
                runs.append(float(found[1]) if found else float("nan"))
            times[page] = tuple(runs)
            print(f"    {page}: cold {runs[0]:.1f} s, warm {runs[1]:.1f} s", flush=True)
    return times


def notebook_table(times):
    lines = ["| page | empty compile cache (cold) | warm compile cache | target (cold) |", "|---|---|---|---|"]
    for page, (cold, warm) in sorted(times.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"| {page} | {cold:.1f} | {warm:.1f} | <= 60 s |")
    return lines


def mib(n):
    return f"{n / 2**20:.2f} MiB"


def main():
    cold_cache = OUT / "cold-compiledir"
    shutil.rmtree(cold_cache, ignore_errors=True)
    print("0/5 clean parallel build with an empty PyTensor/Numba cache ...", flush=True)
    cold_wall, cold_peak, cold_nb = timed_build(OUT / "cold", jobs=2, compiledir=cold_cache)
    print(f"    {cold_wall:.1f} s, peak {mib(cold_peak)}")
    print("1/5 clean parallel build (-j 2) ...", flush=True)
    wall, peak, per_nb = timed_build(OUT / "html", jobs=2, compiledir=cold_cache)
    print(f"    {wall:.1f} s, peak {mib(peak)}")
    print("2/5 no-change rebuild ...", flush=True)
    rebuild, _, _ = timed_build(OUT / "html", jobs=2, clean=False, compiledir=cold_cache)
    print(f"    {rebuild:.1f} s")
    print("3/5 clean serial build (-j 1) ...", flush=True)
    serial_wall, serial_peak, serial_nb = timed_build(OUT / "serial", jobs=1, compiledir=cold_cache)
    serial_sum = sum(serial_nb.values())
    print(f"    {serial_wall:.1f} s, notebooks {serial_sum:.1f} s in sum")
    print("4/5 page weights in Chromium ...", flush=True)
    weights = page_weights(OUT / "html" / "html")
    print("5/5 each notebook alone in a fresh kernel, empty then warm compile cache ...", flush=True)
    alone = notebook_cold_warm(notebook_pages())

    lines = [
        "# Build and page benchmark",
        "",
        f"Produced by `make bench` (docsite/bench.py) on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}:",
        f"{os.cpu_count()} cores, {mib(psutil.virtual_memory().total)} RAM, Python {platform.python_version()}, "
        f"PyTensor {version('pytensor')}, JAX {version('jax')}, Sphinx {version('sphinx')}, "
        f"myst-nb {version('myst-nb')}. Figures from one run; other work on the machine shifts them.",
        "",
        "## Build",
        "",
        "| figure | value | target |",
        "|---|---|---|",
        f"| clean full build, parallel, empty compile cache (a fresh machine) | {cold_wall:.1f} s | <= 300 s |",
        f"| clean full build, parallel (`make html`, -j 2), warm compile cache | {wall:.1f} s | <= 300 s |",
        f"| clean full build, serial (-j 1) | {serial_wall:.1f} s | |",
        f"| serial sum of notebook execution | {serial_sum:.1f} s | |",
        f"| parallel wall / serial execution sum | {wall / serial_sum:.2f} | <= 0.75 |",
        f"| Sphinx overhead beyond execution (serial wall / serial execution sum) | "
        f"{serial_wall / serial_sum:.2f} | |",
        f"| no-change rebuild | {rebuild:.1f} s | <= 15 s |",
        f"| peak memory, whole process tree (parallel build) | {mib(max(peak, cold_peak))} | < 3 GiB |",
        f"| peak memory, whole process tree (serial build) | {mib(serial_peak)} | |",
        "",
        "## Notebook execution (seconds; serial build, and inside the parallel build)",
        "",
        "| page | serial | parallel | parallel, empty cache |",
        "|---|---|---|---|",
    ]
    for page in sorted(serial_nb, key=serial_nb.get, reverse=True):
        lines.append(f"| {page} | {serial_nb[page]:.1f} | {per_nb.get(page, float('nan')):.1f} "
                     f"| {cold_nb.get(page, float('nan')):.1f} |")
    lines += [
        "",
        "## Page weight on a first visit (target <= 1.5 MiB transferred, no request leaves the host)",
        "",
        "Served by Python's http.server, which does not compress; hosts such as Read the Docs send gzip, so both",
        "are shown.",
        "",
        "| page | requests | bytes as served | bytes with gzip | requests off host |",
        "|---|---|---|---|---|",
    ]
    for page, (raw, zipped, count, outside) in sorted(weights.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"| {page} | {count} | {mib(raw)} | {mib(zipped)} | {len(outside)} |")
    lines += [
        "",
        "## Each notebook alone in a fresh kernel, as a reader runs it (seconds: kernel start and every cell)",
        "",
        "Cold: an empty PyTensor/Numba compile cache (a fresh machine, or a Binder image whose cache was not warmed).",
        "Warm: the same page again with the cache the cold run left.",
        "",
        *notebook_table(alone),
    ]
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nwritten to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["notebooks"]:
        args = sys.argv[2:]
        extra = {}
        if args[:1] == ["--numba-cpu-name"]:
            extra, args = {"NUMBA_CPU_NAME": args[1]}, args[2:]
        print("\n".join(notebook_table(notebook_cold_warm(args or notebook_pages(), extra))))
    else:
        main()
