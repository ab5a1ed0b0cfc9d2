"""The built HTML: every executed page shows real outputs, no errors, no stderr, and the version stamp."""

import functools
import json
import re
from importlib.metadata import version
from pathlib import Path

import jupytext
import pytest

from conftest import ROOT, content_pages, notebook_sources, soup

NOTEBOOKS = notebook_sources()
IMAGE_MAGIC = {".png": b"\x89PNG", ".svg": b"<svg", ".jpg": b"\xff\xd8", ".jpeg": b"\xff\xd8"}


def page_for(source: Path) -> str:
    return source.with_suffix(".html").as_posix()


@functools.cache
def parsed(path: Path):
    """Each page parsed once for all the tests here (they only read it)."""
    return soup(path)


def figure_cells(source: Path):
    """Code cells that draw a figure: CONTRIBUTING ("Figures") ends each with `plt.show()`. A removed cell or a
    removed output shows no figure."""
    return [c for c in jupytext.read(ROOT / source).cells
            if c.cell_type == "code" and "plt.show()" in c.source
            and not {"remove-cell", "remove-output"} & set(c.metadata.get("tags", []))]


FIGURE_PAGES = [source for source in NOTEBOOKS if figure_cells(source)]


def test_there_are_executed_pages():
    assert Path("notebooks/vocabulary.md") in NOTEBOOKS
    assert Path("index.md") in NOTEBOOKS


def test_pages_that_plot_follow_the_figure_convention():
    """So FIGURE_PAGES misses no page: a page that imports pyplot has cells ending with `plt.show()`."""
    plotting = {s for s in NOTEBOOKS if re.search(r"^\s*(import matplotlib\.pyplot|from matplotlib import pyplot)",
                                                  (ROOT / s).read_text(), re.MULTILINE)}
    assert plotting, "no page plots: the figure checks below would check nothing"
    assert plotting <= set(FIGURE_PAGES), f"pages that import pyplot but never call plt.show(): " \
                                          f"{sorted(map(str, plotting - set(FIGURE_PAGES)))}"


@pytest.mark.parametrize("source", FIGURE_PAGES, ids=str)
def test_every_figure_cell_shows_its_figure(site, source):
    """A cell that draws a figure has an image in the built page, and the image is a real, non-empty file."""
    page = site / page_for(source)
    images = parsed(page).select("div.cell_output img")
    expected = len(figure_cells(source))
    assert len(images) >= expected, f"{expected} cells draw a figure, the page shows {len(images)} images"
    for img in images:
        path = (page.parent / img["src"]).resolve()
        assert path.is_file(), f"{img['src']} is missing from the built site"
        magic = IMAGE_MAGIC.get(path.suffix)
        # the signature sits in the first bytes (an SVG after its XML prolog and doctype)
        assert magic and magic in path.read_bytes()[:512], f"{img['src']} is not a {path.suffix} image"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_has_outputs_and_no_errors(site, source):
    html = parsed(site / page_for(source))
    cells = html.select("div.cell")
    assert cells, "no code cells rendered"
    assert html.select("div.cell_output"), "no cell produced output: was the page executed?"
    assert not html.select("div.output.error, div.output.traceback"), "a cell output is an error"
    assert not html.select("div.output.stderr"), "a cell wrote to stderr"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_is_stamped_with_the_kernel_versions(site, source):
    """docsite/sphinxext/exec_stamp.py ends every executed page with the versions its kernel reported."""
    stamps = parsed(site / page_for(source)).select("p.exec-stamp")
    assert len(stamps) == 1, "exactly one footer stamp (see CONTRIBUTING.md)"
    assert not stamps[0].find_next_sibling(), "the stamp ends its section"
    text = stamps[0].get_text()
    assert f"PyTensor {version('pytensor')}" in text
    assert f"JAX {version('jax')}" in text
    assert re.search(r"Python 3\.1[2-9]\.\d+", text)


def test_a_page_that_prints_its_own_stamp_gets_no_second_one():
    """A page whose cell still prints `<p class="exec-stamp">` keeps that one; the extension adds none."""
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.utils import new_document

    from docsite.sphinxext import exec_stamp

    doctree = new_document("page", get_default_settings())
    section = nodes.section()
    doctree += section
    assert not exec_stamp.has_own_stamp(doctree)
    section += nodes.raw("", '<p class="exec-stamp">Executed with ...</p>', format="html")
    assert exec_stamp.has_own_stamp(doctree)
    info = {"name": "python", "version": "3.12.1", "docsite_versions": {"PyTensor": "3.3.8", "JAX": "0.12.0.1"}}
    assert exec_stamp.stamp_text(info) == "Executed with PyTensor 3.3.8, JAX 0.12.0.1, Python 3.12.1"
    assert exec_stamp.stamp_text({"name": "python", "version": "3.12.1"}) is None, "no versions, no stamp"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=str)
def test_executed_page_offers_downloads(site, source):
    page = page_for(source)
    hrefs = [a["href"] for a in parsed(site / page).select(".launch-links a")]
    # A Binder button exists only when the build named a repository (conf.py, "Hosting"; tests/test_hosting.py
    # builds a fixture site both ways). When it is there, it opens this page.
    binder = [h for h in hrefs if h.startswith("https://mybinder.org/v2/gh/")]
    assert all(h.endswith(f"urlpath=lab/tree/{source.as_posix()}") for h in binder), binder
    local = [(site / page).parent / h for h in hrefs if not h.startswith("http")]
    assert sorted(p.suffix for p in local) == [".ipynb", ".md"]
    for path in local:
        assert path.resolve().is_file(), f"download link {path} is dead"
    ipynb = json.loads(next(p for p in local if p.suffix == ".ipynb").read_text())
    assert all(not c.get("outputs") for c in ipynb["cells"]), "downloads carry no stale outputs"


# Binder's configuration (binder/): tests/test_hosting.py asks repo2docker itself how it builds the repository.


def test_hosting_files(site):
    locs = re.findall(r"<loc>([^<]*)</loc>", (site / "sitemap.xml").read_text())
    base = min((loc for loc in locs if loc.endswith("/index.html")), key=len).removesuffix("index.html")
    sitemap = {loc.removeprefix(base) for loc in locs}
    pages = set(content_pages()) - {"genindex.html", "search.html", "404.html"}
    assert pages <= sitemap, f"pages missing from the sitemap (an incremental build?): {pages - sitemap}"
    assert "404.html" not in sitemap
    assert (site / "404.html").exists()
    assert 'rel="canonical"' in (site / "index.html").read_text()


def test_every_glued_number_was_measured_in_the_build(site):
    """A cell may glue NaN for "not measured here" when its notebook runs downloaded alone (design-notes weighs
    the explorer's files); in the site build every glued value is a real one."""
    unmeasured = [(page, span.get_text()) for page in content_pages()
                  for span in soup(site / page).select(".pasted-text") if span.get_text().strip().lower() == "nan"]
    assert unmeasured == []
