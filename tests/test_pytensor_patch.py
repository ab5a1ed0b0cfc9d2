"""The upstream patch (upstream/pytensor-cite-docs.patch), proven on the installed PyTensor.

The installed PyTensor package is copied into a scratch directory and the committed patch is applied there
with `patch -p1` (after `git apply --check`), as a maintainer would apply it to PyTensor's source. A subprocess
that imports the copy (first on PYTHONPATH) then runs the test the patch adds to PyTensor's suite and every
trigger of the deprecation catalog. Each deprecation must now end with " See <url>", the rest of the message
unchanged; the URL's page and anchor must exist (in the page's source, and in the built site when it is
current); and the citation map must find every patched message, as it finds the unpatched ones.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docsite import ROOT, catalog
from docsite import pytensor_patch as make_pytensor_patch

PATCH = make_pytensor_patch.OUTPUT
DEPRECATIONS = [e for e in catalog.ENTRIES if e.deprecation]
SEE = re.compile(r" See (\S+)$")

RUN_TRIGGERS = """
import json, sys
import pytensor
from docsite import catalog

results = {e.label: catalog.run_trigger(e) for e in catalog.ENTRIES + catalog.ERRORS}
print(json.dumps({"pytensor": pytensor.__file__, "results": results}))
"""


def _installed_pytensor():
    import pytensor

    return Path(pytensor.__file__).parent


def _env(*path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join(map(str, path))
    return env


@pytest.fixture(scope="module")
def patched(tmp_path_factory):
    """A copy of the installed PyTensor with the committed patch applied: the directory holding `pytensor/`."""
    tree = tmp_path_factory.mktemp("pytensor-patched")
    shutil.copytree(_installed_pytensor(), tree / "pytensor", ignore=shutil.ignore_patterns("__pycache__"))
    if shutil.which("git"):
        subprocess.run(["git", "apply", "--check", str(PATCH)], cwd=tree, check=True, capture_output=True)
    if shutil.which("patch"):
        done = subprocess.run(["patch", "-p1", "--batch", "--forward", "-i", str(PATCH)], cwd=tree,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        # Applies cleanly: every hunk where the patch says, no fuzz, no line offset.
        assert not re.search(r"fuzz|offset", done.stdout), done.stdout
    else:
        subprocess.run(["git", "apply", str(PATCH)], cwd=tree, check=True)
    assert not list(tree.rglob("*.rej"))
    return tree


@pytest.fixture(scope="module")
def patched_run(patched):
    """What every catalog trigger emits and raises on the patched copy."""
    done = subprocess.run([sys.executable, "-c", RUN_TRIGGERS], cwd=patched, env=_env(patched),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert Path(out["pytensor"]).is_relative_to(patched), f"imported {out['pytensor']}, not the patched copy"
    return {label: ([tuple(w) for w in caught], error and tuple(error))
            for label, (caught, error) in out["results"].items()}


def test_committed_patch_is_generated_from_the_current_catalog():
    """The patch follows the catalog: regenerate it (python -m docsite.pytensor_patch) after editing either."""
    assert PATCH.read_text() == make_pytensor_patch.make_patch(), (
        "upstream/pytensor-cite-docs.patch is stale: run .venv/bin/python -m docsite.pytensor_patch")


def test_patch_is_minimal():
    """One constant, one import per module, one added line per message, and PyTensor's new test."""
    text = PATCH.read_text()
    files = re.findall(r"^diff --git a/(\S+)", text, re.M)
    removed = [ln for ln in text.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    cites = [ln for ln in text.splitlines()
             if re.fullmatch(r'\+ +f" See \{AUTODIFF_MIGRATION_URL\}#[\w-]+",?', ln)]
    n_calls = len(catalog.source_deprecations())
    assert {f"{catalog.PAGE}#{e.label}" for e in DEPRECATIONS} >= {
        f"{catalog.PAGE}#{label}" for label in re.findall(r"#([\w-]+)\",?$", "\n".join(cites), re.M)}
    assert len(cites) == n_calls
    # Only the message lines that lose their trailing comma, and lines of imports that gain the constant.
    assert all(ln.rstrip().endswith(",") or " import " in ln for ln in removed), removed
    assert len([ln for ln in removed if " import " not in ln]) == n_calls
    assert len(re.findall(rf'^\+{make_pytensor_patch.CONSTANT} = (\(\n\+ +)?"', text, re.M)) == 1
    assert files[-1] == make_pytensor_patch.TEST_FILE and "pytensor/utils.py" in files


def test_pytensor_style_test_added_by_the_patch_passes(patched):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           make_pytensor_patch.TEST_FILE], cwd=patched, env=_env(patched),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(DEPRECATIONS)} passed" in done.stdout, done.stdout


@pytest.mark.parametrize("entry", DEPRECATIONS, ids=lambda e: e.label)
def test_patched_deprecation_ends_with_its_url_and_is_otherwise_unchanged(entry, patched_run):
    caught, error = patched_run[entry.label]
    original, _ = catalog.run_trigger(entry)  # the installed, unpatched PyTensor
    assert error is None
    assert len(caught) == len(original)
    for (cls, msg), (old_cls, old_msg) in zip(caught, original, strict=True):
        assert cls == old_cls
        if entry.matches(old_cls, old_msg):
            assert msg == f"{old_msg} See {entry.url}", msg
        else:
            assert msg == old_msg


@pytest.mark.parametrize("entry", [e for e in catalog.ENTRIES + catalog.ERRORS if not e.deprecation],
                         ids=lambda e: e.label)
def test_patch_leaves_other_warnings_and_errors_alone(entry, patched_run):
    caught, error = patched_run[entry.label]
    assert (caught, error) == catalog.run_trigger(entry)


def test_citation_map_finds_every_patched_message(patched_run):
    """With the URL appended, every message still matches exactly its own entry, in Python and in the JSON."""
    site_map = json.loads(json.dumps(catalog.as_map("patched")))
    for label, (caught, error) in patched_run.items():
        for cls, msg in caught + ([error] if error else []):
            assert [e.label for e in catalog.lookup(cls, msg)] == [label], msg
            assert [e["id"] for e in site_map["entries"]
                    if e["category"] == cls and re.search(e["pattern"], msg)] == [label], msg


def _cited_urls(patched_run):
    urls = set()
    for entry in DEPRECATIONS:
        caught, _ = patched_run[entry.label]
        urls |= {SEE.search(msg).group(1) for cls, msg in caught if SEE.search(msg)}
    assert len(urls) == len(DEPRECATIONS)
    return urls


def _page_and_anchor(url):
    assert url.startswith(catalog.BASE_URL), url
    page, anchor = url.removeprefix(catalog.BASE_URL).split("#")
    return page, anchor


def test_patched_urls_name_permanent_labels_of_the_page(patched_run):
    citable = set((ROOT / "tests" / "citable-anchors.txt").read_text().split())
    for url in _cited_urls(patched_run):
        page, anchor = _page_and_anchor(url)
        source = ROOT / page.replace(".html", ".md")
        assert re.search(rf"^\({re.escape(anchor)}\)=$", source.read_text(), re.M), f"no label {anchor} in {source}"
        assert f"{page}#{anchor}" in citable, f"{page}#{anchor} is not in tests/citable-anchors.txt"


def test_patched_urls_resolve_in_the_built_site(patched_run, site):
    for url in _cited_urls(patched_run):
        page, anchor = _page_and_anchor(url)
        html = (site / page).read_text()
        assert f'id="{anchor}"' in html, f"{page} has no element with id {anchor}"


def test_page_one_liner_does_not_cite_twice_on_a_patched_pytensor(patched, tmp_path):
    """The page's session hook (guides/deprecations.md) leaves a message that already carries its link alone."""
    from docsite.sphinxext import deprecations_map
    from test_deprecations import _page_cell_defining

    deprecations_map.write_map(catalog, tmp_path)
    script = _page_cell_defining("cite_pytensor_docs") + f"""
cite_pytensor_docs(json.loads(pathlib.Path({str(tmp_path / '_static' / 'deprecations.json')!r}).read_text()))
import pytensor.tensor as pt
from pytensor.gradient import Lop
x = pt.dvector("x")
Lop(pt.sin(x), x, x)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=patched, env=_env(patched), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(catalog.url("deprecation-lop")) == 1, done.stderr
