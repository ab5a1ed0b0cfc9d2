"""Python, NumPy and PyTensor names in the API reference link to their own docs (intersphinx), from inventories
committed in docsite/inventories/: the build reads local files and never the network.

The HTML tests read the built site in _build/html (set API_REFERENCE_SITE to check another build, e.g. a
`make page NB=api/gradient.md` output, as tests/test_api_reference.py does).
"""

import ast
import functools
import os
import re
import socket
from pathlib import Path

import pytest
from sphinx.util.inventory import InventoryFile

from conftest import ROOT, soup

SITE = Path(os.environ.get("API_REFERENCE_SITE", ROOT / "_build" / "html"))
INVENTORIES = ROOT / "docsite" / "inventories"

# (page, autodoc id of the signature, name as shown, the link it must carry)
SIGNATURE_LINKS = [
    ("gradient", "pytensor.gradient.pullback", "Sequence",
     "https://docs.python.org/3/library/collections.abc.html#collections.abc.Sequence"),
    ("gradient", "pytensor.gradient.grad", "Mapping",
     "https://docs.python.org/3/library/collections.abc.html#collections.abc.Mapping"),
    ("opfromgraph", "pytensor.compile.builders.OpFromGraph", "Callable",
     "https://docs.python.org/3/library/collections.abc.html#collections.abc.Callable"),
    ("checking", "pytensor.gradient.verify_grad", "ndarray",
     "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html#numpy.ndarray"),
    # numpy.random._generator.Generator and numpy.random.mtrand.RandomState (the classes' own modules) are in
    # NumPy's inventory, pointing at the public pages.
    ("checking", "pytensor.gradient.verify_grad", "Generator",
     "https://numpy.org/doc/stable/reference/random/generator.html#numpy.random.Generator"),
    ("checking", "pytensor.gradient.verify_grad", "RandomState",
     "https://numpy.org/doc/stable/reference/random/legacy.html#numpy.random.RandomState"),
    ("gradient", "pytensor.gradient.pullback", "Variable",
     "https://pytensor.readthedocs.io/en/latest/library/graph/graph.html#pytensor.graph.basic.Variable"),
]


def conf_setting(name):
    """A literal setting of conf.py, read without running conf.py (which sets up kernels and imports the site)."""
    for node in ast.parse((ROOT / "conf.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"conf.py sets no {name}")


def load_inventory(path, base):
    """{object type: {name: item}}, each item's .uri the full link (base + the inventory's location)."""
    return InventoryFile.loads(Path(path).read_bytes(), uri=base).data


def test_inventories_are_committed_local_files():
    mapping = conf_setting("intersphinx_mapping")
    assert set(mapping) >= {"python", "numpy", "pytensor"}
    readme = (INVENTORIES / "README.md").read_text()
    for name, (target, location) in mapping.items():
        assert target.startswith("https://"), f"{name}: links must go to the published docs, not {target!r}"
        assert isinstance(location, str) and "://" not in location, (
            f"{name}: the inventory must be a local file (the build is offline), not {location!r}")
        path = ROOT / location
        assert path.parent == INVENTORIES and path.is_file(), f"{name}: {location} is not in docsite/inventories/"
        assert path.read_bytes().startswith(b"# Sphinx inventory version 2\n"), f"{location} is not an inventory"
        assert load_inventory(path, target), f"{location} holds no objects"
        assert f"`{path.name}`" in readme, f"docsite/inventories/README.md does not say where {path.name} came from"
    listed = {(ROOT / loc).name for _, loc in mapping.values()}
    on_disk = {p.name for p in INVENTORIES.glob("*.inv")}
    assert on_disk == listed, f"inventories conf.py does not read: {sorted(on_disk - listed)}"


def test_only_python_names_resolve_implicitly():
    """A mistyped {ref} label or {term} must fail the build, not land in Python's glossary or labels."""
    assert "std:*" in conf_setting("intersphinx_disabled_reftypes")


def test_nitpick_ignore_holds_no_name_an_inventory_resolves():
    """An entry kept "because the build is offline" must really be missing from every committed inventory."""
    mapping = conf_setting("intersphinx_mapping")
    known = {}
    for target, location in mapping.values():
        for objtype, entries in load_inventory(ROOT / location, target).items():
            known.setdefault(objtype, set()).update(entries)
    tree = ast.parse((ROOT / "conf.py").read_text())
    ignored = [ast.literal_eval(node.value) for node in tree.body
               if isinstance(node, ast.AugAssign) and getattr(node.target, "id", "") == "nitpick_ignore"]
    roles = {"class": ["py:class", "py:exception"], "func": ["py:function"], "meth": ["py:method"],
             "mod": ["py:module"], "attr": ["py:attribute"], "data": ["py:data"], "obj": ["py:class", "py:function",
                                                                                       "py:data", "py:method"]}
    resolvable = [(role, name) for entries in ignored for role, name in entries
                  if any(name in known.get(t, ()) for t in roles.get(role.split(":")[1], [role]))]
    assert not resolvable, f"nitpick_ignore entries an inventory now resolves (remove them): {resolvable}"


@pytest.fixture(scope="module")
def built_site(request):
    """_build/html must be built from the current sources; a folder named by API_REFERENCE_SITE is taken as is."""
    if "API_REFERENCE_SITE" not in os.environ:
        request.getfixturevalue("site")
    return SITE


@functools.cache
def signature(page, object_id):
    html = soup(SITE / "api" / f"{page}.html")
    dt = html.find("dt", id=object_id)
    assert dt is not None, f"api/{page}.html has no signature with id={object_id!r}"
    return dt


@pytest.mark.parametrize(("page", "object_id", "shown", "href"), SIGNATURE_LINKS,
                         ids=[f"{e[1]}:{e[2]}" for e in SIGNATURE_LINKS])
def test_signature_names_link_to_their_docs(built_site, page, object_id, shown, href):
    links = {a["href"] for a in signature(page, object_id).find_all("a", href=True) if a.get_text() == shown}
    assert links == {href}, f"{shown} in the signature of {object_id} links to {sorted(links)}, not {href}"


def test_docstring_reference_to_pytensor_function_links_to_pytensor_docs(built_site):
    """OpFromGraph's docstring writes :func:`pytensor.function`: PyTensor's inventory resolves it."""
    entry = soup(SITE / "api" / "opfromgraph.html").find("dt", id="pytensor.compile.builders.OpFromGraph").parent
    hrefs = {a["href"] for a in entry.find_all("a", href=True) if a.get_text() == "pytensor.function()"}
    assert hrefs == {"https://pytensor.readthedocs.io/en/latest/library/index.html#pytensor.function"}


def test_every_external_link_in_api_signatures_comes_from_an_inventory(built_site):
    """Each external link in a signature is a committed inventory's entry: its base URL plus the inventory's URI."""
    mapping = conf_setting("intersphinx_mapping")
    uris = set()
    for target, location in mapping.values():
        for entries in load_inventory(ROOT / location, target).values():
            uris.update(item.uri for item in entries.values())
    external = []
    for page in sorted((built_site / "api").glob("*.html")):
        for dt in soup(page).select("dl.py > dt.sig"):
            external += [a["href"] for a in dt.find_all("a", href=True) if re.match(r"https?://", a["href"])]
    assert external, "no signature in api/ links outside the site: intersphinx is not working"
    assert not [h for h in external if h not in uris], "signature links that no committed inventory lists"


def test_a_build_resolves_from_the_inventories_with_the_network_cut(tmp_path, monkeypatch):
    """A one-page Sphinx build with conf.py's mapping resolves Python and NumPy names while every socket
    connection fails: intersphinx reads the committed files, nothing else."""
    from sphinx.application import Sphinx

    def no_network(*args, **kwargs):
        raise OSError("network access during the build")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    mapping = {name: (target, str(ROOT / location))
               for name, (target, location) in conf_setting("intersphinx_mapping").items()}
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("extensions = ['sphinx.ext.intersphinx']\n"
                                 f"intersphinx_mapping = {mapping!r}\n"
                                 f"intersphinx_disabled_reftypes = {conf_setting('intersphinx_disabled_reftypes')!r}\n")
    (src / "index.rst").write_text("Page\n====\n\n:py:class:`numpy.ndarray` and "
                                   ":py:class:`collections.abc.Sequence`\n")
    out = tmp_path / "out"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                 status=None, warning=None, freshenv=True, warningiserror=True, keep_going=False)
    app.build()
    hrefs = {a["href"] for a in soup(out / "index.html").find_all("a", href=True)}
    assert "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html#numpy.ndarray" in hrefs
    assert "https://docs.python.org/3/library/collections.abc.html#collections.abc.Sequence" in hrefs
