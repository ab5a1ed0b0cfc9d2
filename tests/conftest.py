"""Shared fixtures: the built site, a local server for it, and a browser."""

import functools
import http.server
import re
import shutil
import threading
from pathlib import Path

import pytest

from build_id import build_id

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes minutes (builds an environment); `make test` runs it too")


def notebook_sources():
    """Pages myst-nb executes: MyST files whose front matter has a kernelspec."""
    found = []
    for path in sorted(ROOT.glob("*.md")) + sorted(ROOT.glob("*/*.md")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", "tools", ".venv", "_build"}:
            continue
        text = path.read_text()
        if text.startswith("---") and "kernelspec:" in text.split("---", 2)[1]:
            found.append(rel)
    return found


def content_pages():
    """Every HTML page built from a source file (not Sphinx's generated genindex/search/404)."""
    return sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html")
                  if not p.relative_to(SITE).parts[0].startswith("_"))


@pytest.fixture(scope="session")
def site():
    """The built site; it must have been built from the current sources (`make test` sees to that)."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"no built site in {SITE}: run `make html` (or `make test`, which builds it)")
    built = (SITE / ".build-id").read_text().strip() if (SITE / ".build-id").exists() else ""
    if built != build_id():
        pytest.fail("the built site is older than the sources: run `make html` (or `make test`)")
    return SITE


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(site):
    """Serve the built site on 127.0.0.1 (a free port) for the browser tests."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


# Debian's chromium when present (CI installs it); otherwise Playwright's own browser, if the user installed one.
SYSTEM_CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="session")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        if Path(SYSTEM_CHROMIUM).exists():
            b = p.chromium.launch(executable_path=SYSTEM_CHROMIUM, args=CHROMIUM_ARGS)
        else:
            b = p.chromium.launch(args=CHROMIUM_ARGS)
        yield b
        b.close()


def html_ids(path: Path) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', path.read_text()))
