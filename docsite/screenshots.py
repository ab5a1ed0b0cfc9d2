"""Screenshots of every page of the built site, in both themes, at desktop and phone widths, for a person to
look at (not a test: it asserts nothing about looks). Also prints each page's layout shift (CLS) while loading.

    .venv/bin/python -m docsite.screenshots [--site _build/html] [--out /tmp/screenshots] [--cls] [page.html ...]

Writes <out>/<page>--<theme>-<width>.png (full page) and prints the files written. With --cls it also loads
each page under a throttled CPU and network (4x, 150 ms latency) and prints its cumulative layout shift, with
the elements that moved, as Chromium's PerformanceObserver reports them.
"""

import argparse
import functools
import http.server
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDTHS = (1400, 390)
THEMES = ("light", "dark")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

# The theme reads the reader's choice from localStorage before the first paint; set it the same way.
THEME_SCRIPT = "localStorage.setItem('mode', '{0}'); localStorage.setItem('theme', '{0}');"
CLS_SCRIPT = """
window.__cls = 0; window.__shifts = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    window.__cls += e.value;
    window.__shifts.push({t: Math.round(e.startTime), value: e.value, nodes: e.sources.map(s =>
      s.node && s.node.nodeType === 1 ? s.node.tagName.toLowerCase() + '.' + s.node.className : '#text')});
  }
}).observe({type: 'layout-shift', buffered: true});
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def pages_of(site):
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).parts[0].startswith("_"))


def launch(p):
    if Path(CHROMIUM).exists():
        return p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    return p.chromium.launch(args=ARGS)


def screenshots(browser, base, pages, out):
    written = []
    for theme in THEMES:
        for width in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": 900})
            context.add_init_script(THEME_SCRIPT.format(theme))
            page = context.new_page()
            for path in pages:
                page.goto(f"{base}/{path}", wait_until="networkidle")
                page.wait_for_timeout(300)  # MathJax finishes typesetting after the network goes idle
                target = out / f"{path.removesuffix('.html').replace('/', '--')}--{theme}-{width}.png"
                page.screenshot(path=str(target), full_page=True)
                written.append(target)
            context.close()
    return written


def layout_shift(browser, base, path, width=1400):
    """Cumulative layout shift while the page loads on a slow machine and network, and what moved."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_init_script(CLS_SCRIPT)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 150,
                                                  "downloadThroughput": 800_000, "uploadThroughput": 100_000})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(f"{base}/{path}", wait_until="networkidle")
    page.wait_for_timeout(1500)
    result = page.evaluate("({cls: window.__cls, shifts: window.__shifts})")
    context.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=Path("/tmp/screenshots"))
    parser.add_argument("--cls", action="store_true", help="also measure layout shift on each page")
    parser.add_argument("--no-shots", action="store_true", help="only measure (with --cls)")
    parser.add_argument("pages", nargs="*", help="pages relative to the site (default: every page)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    pages = args.pages or pages_of(args.site)
    args.out.mkdir(parents=True, exist_ok=True)
    httpd, base = serve(args.site)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            if not args.no_shots:
                for path in screenshots(browser, base, pages, args.out):
                    print(path)
            if args.cls:
                for path in pages:
                    result = layout_shift(browser, base, path)
                    moved = sorted({n for s in result["shifts"] if s["value"] >= 0.005 for n in s["nodes"]})
                    print(f"CLS {result['cls']:.3f}  {path}  moved: {', '.join(moved[:6]) or '-'}")
            browser.close()
    finally:
        httpd.shutdown()


if __name__ == "__main__":
    main()
