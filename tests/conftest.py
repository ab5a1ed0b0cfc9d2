"""Shared by every test: the repository root, the HTML parser, which tests are `slow`, and fixtures for the built
site, a local server for it, and a browser."""

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from docsite import ROOT  # the repository root, defined once in the site's package
from docsite.build_id import build_id

SITE = ROOT / "_build" / "html"

# `slow`: the test builds or executes something (a site, a notebook, PyTensor in a subprocess, a browser, a Binder
# image). `make check` runs the others (-m "not slow") on an already built site; `make test` runs everything.
# A test marks itself (@pytest.mark.slow, or `pytestmark` for a whole file); a test that drives the browser is slow
# wherever it is; and these files, whose every test builds or executes, are marked here, whole:
SLOW_FILES = {
    "test_warnings_as_errors.py",  # builds fixture sites, runs notebooks
    "test_pytensor_patch.py",  # applies the patch to a copy of PyTensor and runs it
    "test_hosting.py",  # repo2docker, Binder's JupyterLab, fixture-site builds
    "test_downloads.py",  # runs every downloadable notebook in an empty folder
}
# ... and these tests of files whose other tests are quick (each took 3 to 40 s on the 2-core machine; their owners
# may move the mark into the file):
SLOW_TESTS = {
    "test_checker.py": {
        "test_fixed_library_runs_with_deprecations_as_errors_and_gives_the_same_derivatives",  # verify_grad runs
        "test_installed_pytensor_package",  # checks all of the installed PyTensor
        "test_checker_page_runs_alone_in_an_empty_folder",  # executes the page
        "test_output_into_head_ends_quietly",  # a full run piped into head
        "test_same_findings_under_older_pythons",  # three other interpreters
    },
    "test_deprecations.py": {
        "test_page_runs_alone_with_the_published_catalog_next_to_it",  # executes the page
        "test_page_alone_without_the_catalog_says_what_to_download",  # executes the page
        "test_every_deprecation_in_pytensor_autodiff_source_is_catalogued",  # imports and scans PyTensor
        "test_javascript_lookup_agrees_with_python",  # Node or the browser
    },
}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: builds or executes something (minutes); `make check` leaves it out, "
                                       "`make test` runs it")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if (item.path.name in SLOW_FILES or item.originalname in SLOW_TESTS.get(item.path.name, ())
                or "browser" in item.fixturenames):
            item.add_marker(pytest.mark.slow)


def soup(path: Path) -> BeautifulSoup:
    """The parsed HTML of a built page (a fresh tree: callers may change it)."""
    return BeautifulSoup(Path(path).read_text(), "html.parser")


def notebook_sources():
    """Pages myst-nb executes: MyST files whose front matter has a kernelspec."""
    found = []
    for path in sorted(ROOT.glob("*.md")) + sorted(ROOT.glob("*/*.md")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", "tools", "docsite", ".venv", "_build"}:
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


@pytest.fixture(scope="session")
def reader_python(tmp_path_factory):
    """A Python as a reader has it after `pip install -r requirements.txt`: every pinned package, but not the site's
    own package (docsite/) nor a clone of the repository. It is a venv that sees this venv's site-packages through
    one .pth line (no second install, no network); Python does not run the .pth files of a directory added that
    way, so the editable install of docsite/ stays invisible."""
    venv = tmp_path_factory.mktemp("reader") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "pinned-requirements.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = "import importlib.util as u; print(u.find_spec('pytensor') is not None, u.find_spec('docsite') is None)"
    assert subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=venv).stdout.split() == [
        "True", "True"]
    return python


def run_alone(python, notebook, folder, timeout=900):
    """Run a notebook top to bottom in `folder` with `python`, as `make nb` does (docsite/run_notebook.py, run as
    a file so that `python` needs no site package); return the CompletedProcess."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run([str(python), str(ROOT / "docsite" / "run_notebook.py"), str(notebook)], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=timeout)


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
