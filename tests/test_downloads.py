"""Every notebook the site offers for download runs top to bottom in an empty folder, with only what
`pip install -r requirements.txt` installs: no clone of the repository, no site package (conftest's
`reader_python`). A page that truly needs a file says in one line what to download from where; NEEDS lists those
files, and the test puts them next to the notebook from the built site, as the page tells the reader to."""

import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import ROOT, SITE, notebook_sources, run_alone

DOWNLOADS = SITE / "_downloads" / "notebooks"
NAMES = [source.with_suffix(".ipynb").as_posix().replace("/", "--") for source in notebook_sources()]
NEEDS = {"guides--deprecations.ipynb": ["_static/deprecations_catalog.py"]}  # the page's "Download ..." line


@pytest.fixture(scope="module")
def runs(site, reader_python, tmp_path_factory):
    """Run every download, two at a time (two cores); the CompletedProcess of each, by file name."""
    def run(name):
        folder = tmp_path_factory.mktemp(name.removesuffix(".ipynb"))
        shutil.copy(DOWNLOADS / name, folder)
        for needed in NEEDS.get(name, []):
            shutil.copy(site / needed, folder)
        return name, run_alone(reader_python, folder / name, folder)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, NAMES))


def test_every_executed_page_is_offered_for_download(site):
    assert sorted(p.name for p in DOWNLOADS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_download_runs_alone_in_an_empty_folder(runs, name):
    done = runs[name]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 problem(s)" in done.stdout, done.stdout[-3000:]


def test_page_template_runs_alone(reader_python, tmp_path):
    """CONTRIBUTING's page template (docsite/page-template.md) is a working page: copy it and it runs."""
    shutil.copy(ROOT / "docsite" / "page-template.md", tmp_path)
    done = run_alone(reader_python, tmp_path / "page-template.md", tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 problem(s)" in done.stdout


def test_downloads_hold_no_site_directive(site):
    """Jupyter does not know this site's directives: the downloaded deprecations notebook carries what they render
    on the site (the table, each "What to do", each trigger) as plain Markdown, with links to the published site."""
    import json

    text = (DOWNLOADS / "guides--deprecations.ipynb").read_text()
    markdown = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    assert ":::{deprecation" not in markdown
    assert "| Warning (start of the text) | Class | Section |" in markdown
    actions = (ROOT / "guides" / "deprecations.md").read_text().count(":::{deprecation-action}")
    assert markdown.count("**What to do.**") == actions > 0  # each one the site shows
