"""The built HTML: every executed page shows real outputs, no errors, no stderr, and the version stamp."""

import json
import re
from importlib.metadata import version
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import content_pages, notebook_sources

NOTEBOOKS = notebook_sources()


def page_for(source: Path) -> str:
    return source.with_suffix(".html").as_posix()


def soup(site, page):
    return BeautifulSoup((site / page).read_text(), "html.parser")


def test_there_are_executed_pages():
    assert Path("notebooks/vocabulary.md") in NOTEBOOKS
    assert Path("index.md") in NOTEBOOKS


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_has_outputs_and_no_errors(site, source):
    html = soup(site, page_for(source))
    cells = html.select("div.cell")
    assert cells, "no code cells rendered"
    assert html.select("div.cell_output"), "no cell produced output: was the page executed?"
    assert not html.select("div.output.error, div.output.traceback"), "a cell output is an error"
    assert not html.select("div.output.stderr"), "a cell wrote to stderr"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_is_stamped_with_the_kernel_versions(site, source):
    stamps = soup(site, page_for(source)).select("p.exec-stamp")
    assert len(stamps) == 1, "exactly one footer stamp (see CONTRIBUTING.md)"
    text = stamps[0].get_text()
    assert f"PyTensor {version('pytensor')}" in text
    assert f"JAX {version('jax')}" in text
    assert re.search(r"Python 3\.1[2-9]\.\d+", text)


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_offers_binder_and_downloads(site, source):
    page = page_for(source)
    links = soup(site, page).select(".launch-links a")
    hrefs = [a["href"] for a in links]
    binder = [h for h in hrefs if h.startswith("https://mybinder.org/v2/gh/")]
    assert binder and binder[0].endswith(f"urlpath=lab/tree/{source.as_posix()}")
    local = [(site / page).parent / h for h in hrefs if not h.startswith("http")]
    assert {p.suffix for p in local} == {".ipynb", ".md"}
    for path in local:
        assert path.resolve().is_file(), f"download link {path} is dead"
    ipynb = json.loads(next(p for p in local if p.suffix == ".ipynb").read_text())
    assert all(not c.get("outputs") for c in ipynb["cells"]), "downloads carry no stale outputs"


def test_binder_configuration_is_present():
    root = Path(__file__).resolve().parent.parent
    assert (root / "runtime.txt").read_text().strip() == "python-3.12"
    assert "jupytext-config set-default-viewer" in (root / "postBuild").read_text()
    assert "jupytext==" in (root / "requirements.txt").read_text()


def test_hosting_files(site):
    locs = re.findall(r"<loc>([^<]*)</loc>", (site / "sitemap.xml").read_text())
    base = min((loc for loc in locs if loc.endswith("/index.html")), key=len).removesuffix("index.html")
    sitemap = {loc.removeprefix(base) for loc in locs}
    pages = set(content_pages()) - {"genindex.html", "search.html", "404.html"}
    assert pages <= sitemap, f"pages missing from the sitemap (an incremental build?): {pages - sitemap}"
    assert "404.html" not in sitemap
    assert (site / "404.html").exists()
    assert 'rel="canonical"' in (site / "index.html").read_text()
