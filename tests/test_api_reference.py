"""The API reference (api/): every listed object has an autodoc entry generated from the installed PyTensor, and
every entry's name-table link (and deprecation link) resolves to an existing id.

Reads the built HTML in _build/html (set API_REFERENCE_SITE to check another build, e.g. a `make page` output).
"""

import functools
import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import ROOT, soup as parse

SITE = Path(os.environ.get("API_REFERENCE_SITE", ROOT / "_build" / "html"))


@pytest.fixture(autouse=True, scope="module")
def built_from_these_sources(request):
    """_build/html must be built from the current sources (conftest's `site` fixture fails otherwise); a folder
    named by API_REFERENCE_SITE is taken as it is."""
    if "API_REFERENCE_SITE" not in os.environ:
        request.getfixturevalue("site")


G = "pytensor.gradient."
OP = "pytensor.graph.op.Op."
OFG = "pytensor.compile.builders.OpFromGraph"

# (page, entry label, autodoc id of the object (None: an argument, documented in the class entry),
#  name-table labels the entry must link to, deprecation-catalog labels it must link to)
ENTRIES = [
    ("gradient", "api-pullback", G + "pullback", ["names-pullback"], []),
    ("gradient", "api-pushforward", G + "pushforward", ["names-pushforward", "names-linearize"], []),
    ("gradient", "api-grad", G + "grad", ["names-grad"], []),
    ("gradient", "api-jacobian", G + "jacobian", ["names-jacobian"], []),
    ("gradient", "api-hessian", G + "hessian", ["names-hessian-vector"], []),
    ("gradient", "api-hessian-vector-product", G + "hessian_vector_product", ["names-hessian-vector"], []),
    ("gradient", "api-lop", G + "Lop", ["names-pullback"], ["deprecation-lop"]),
    ("gradient", "api-rop", G + "Rop", ["names-pushforward"], ["deprecation-rop"]),
    ("gradient-control", "api-zero-grad", G + "zero_grad", ["names-stop-gradient"], []),
    ("gradient-control", "api-disconnected-grad", G + "disconnected_grad", ["names-stop-gradient"], []),
    ("gradient-control", "api-undefined-grad", G + "undefined_grad", ["names-disconnected"], []),
    ("gradient-control", "api-grad-clip", G + "grad_clip", ["names-custom-pullback"], []),
    ("gradient-control", "api-grad-scale", G + "grad_scale", ["names-custom-pullback"], []),
    ("disconnected", "api-grad-not-implemented", G + "grad_not_implemented", ["names-disconnected"], []),
    ("disconnected", "api-grad-undefined", G + "grad_undefined", ["names-disconnected"], []),
    ("disconnected", "api-null-type-grad-error", G + "NullTypeGradError", ["names-disconnected"], []),
    ("disconnected", "api-disconnected-type", G + "DisconnectedType", ["names-disconnected"], []),
    ("disconnected", "api-disconnected-type", G + "disconnected_type", ["names-disconnected"], []),
    ("disconnected", "api-disconnected-input-error", G + "DisconnectedInputError", ["names-disconnected"], []),
    ("checking", "api-verify-grad", G + "verify_grad", ["names-check"], []),
    ("op", "api-op-pullback", OP + "pullback", ["names-custom-pullback"], []),
    ("op", "api-op-pushforward", OP + "pushforward", ["names-custom-pushforward"], []),
    ("op", "api-op-grad", OP + "grad", ["names-custom-pullback"], ["deprecation-op-grad-l-op"]),
    ("op", "api-op-l-op", OP + "L_op", ["names-custom-pullback"], ["deprecation-op-grad-l-op"]),
    ("op", "api-op-r-op", OP + "R_op", ["names-custom-pushforward"], ["deprecation-op-r-op"]),
    ("opfromgraph", "api-opfromgraph-class", OFG, ["names-custom-pullback", "names-custom-pushforward"], []),
    ("opfromgraph", "api-opfromgraph-pullback", None, ["names-custom-pullback"], []),
    ("opfromgraph", "api-opfromgraph-pushforward", None, ["names-custom-pushforward"], []),
    ("opfromgraph", "api-opfromgraph-lop-overrides", None, ["names-custom-pullback"], ["deprecation-lop-overrides"]),
    ("opfromgraph", "api-opfromgraph-rop-overrides", None, ["names-custom-pushforward"],
     ["deprecation-rop-overrides"]),
]


@functools.cache
def soup(relpath):
    """Parsed once per page (read only here)."""
    path = SITE / relpath
    assert path.exists(), f"{relpath} is missing from the built site"
    return parse(path)


@functools.cache
def ids_of(relpath):
    return {tag["id"] for tag in soup(relpath).find_all(id=True)}


def links_to(section, target_page):
    """Fragments of the links in `section` that point to `target_page` (an HTML path relative to the site)."""
    found = set()
    for a in section.find_all("a", href=True):
        parts = urlsplit(a["href"])
        if parts.path.endswith(target_page) and parts.fragment:
            found.add(parts.fragment)
    return found


def entry_section(page, label):
    section = soup(f"api/{page}.html").find(id=label)
    assert section is not None, f"api/{page}.html has no element with id={label!r}"
    return section


@pytest.mark.parametrize(("page", "label", "object_id", "names", "deprecations"), ENTRIES,
                         ids=[f"{e[1]}:{e[2]}" for e in ENTRIES])
def test_entry_generated_and_linked(page, label, object_id, names, deprecations):
    section = entry_section(page, label)
    if object_id is not None:
        target = section.find(id=object_id)
        assert target is not None, f"entry {label} has no autodoc entry with id={object_id!r}"
        assert target.name == "dt" and "sig" in target.get("class", []), f"{object_id} is not an autodoc signature"
    vocabulary_links = links_to(section, "notebooks/vocabulary.html")
    assert set(names) <= vocabulary_links, f"{label} must link to the name-table rows {names}"
    vocabulary_ids = ids_of("notebooks/vocabulary.html")
    missing = sorted(vocabulary_links - vocabulary_ids)
    assert not missing, f"{label} links to name-table rows that do not exist: {missing}"
    deprecation_links = links_to(section, "guides/deprecations.html")
    assert set(deprecations) <= deprecation_links, f"{label} must link to the catalog anchors {deprecations}"
    missing = sorted(deprecation_links - ids_of("guides/deprecations.html"))
    assert not missing, f"{label} links to catalog anchors that do not exist: {missing}"


def test_every_autodoc_entry_is_listed():
    """No object is documented on an API page without being checked here."""
    listed = {e[2] for e in ENTRIES if e[2]}
    documented = set()
    for page in sorted((SITE / "api").glob("*.html")):
        for dt in soup(page.relative_to(SITE).as_posix()).select("dl.py > dt.sig[id]"):
            documented.add(dt["id"])
    assert documented == listed, (f"documented but not listed: {sorted(documented - listed)}; "
                                  f"listed but not documented: {sorted(listed - documented)}")


def test_overview_table_links_every_entry():
    overview = entry_section("index", "api-overview")
    fragments = {urlsplit(a["href"]).fragment for a in overview.find_all("a", href=True)}
    assert {e[1] for e in ENTRIES if e[1] != "api-opfromgraph-class"} <= fragments
