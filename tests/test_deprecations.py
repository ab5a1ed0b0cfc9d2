"""The deprecation catalog (docsite/catalog.py) against the installed PyTensor.

Fails when a legacy autodiff path emits a warning the catalog does not cover, when a catalog entry's
pattern no longer matches what its trigger emits, or when the pages, the citable-anchor list or the
JSON map drift from the catalog. Needs PyTensor, not the built site.
"""

import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import run_alone
from docsite import ROOT, catalog


def uncovered(caught):
    return [(cls, msg) for cls, msg in caught if not catalog.lookup(cls, msg)]


@pytest.mark.parametrize("entry", catalog.ENTRIES, ids=lambda e: e.label)
def test_warning_entry_matches_what_its_trigger_emits(entry):
    caught, error = catalog.run_trigger(entry)
    assert error is None, f"trigger raised {error}"
    assert any(entry.matches(cls, msg) for cls, msg in caught), (
        f"{entry.label}: no {entry.category} matching {entry.pattern!r}; PyTensor emitted {caught}")
    assert uncovered(caught) == []


@pytest.mark.parametrize("entry", catalog.ERRORS, ids=lambda e: e.label)
def test_error_entry_matches_what_its_trigger_raises(entry):
    caught, error = catalog.run_trigger(entry)
    assert error is not None and entry.matches(*error), f"{entry.label}: expected {entry.pattern!r}, got {error}"
    assert uncovered(caught) == []


# Legacy paths beyond the catalog's one trigger per entry: each must emit only catalogued warnings,
# and the listed ones (label: count) exactly.
LEGACY_PATHS = {
    "L_op-only Op, reverse mode": ("""
class OldLop(Sine):
    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0] * pt.cos(inputs[0])]

pullback(OldLop()(x), x, v)
""", {"deprecation-op-grad-l-op": 1}),
    "grad-only Op, default pushforward (through pullback)": ("""
class OldGrad(Sine):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * pt.cos(inputs[0])]

pushforward(OldGrad()(x), x, v)
""", {"deprecation-op-grad-l-op": 1}),
    "grad-only Op through pytensor.grad and jacobian": ("""
import pytensor
from pytensor.gradient import jacobian

class OldGrad(Sine):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * pt.cos(inputs[0])]

pytensor.grad(OldGrad()(x).sum(), x)
jacobian(OldGrad()(x), x, vectorize=True)
""", {"deprecation-op-grad-l-op": 2}),
    "pytensor.Rop re-export with use_op_rop_implementation on an R_op Op": ("""
import pytensor

class OldRop(Sine):
    def R_op(self, inputs, eval_points):
        return [eval_points[0] * pt.cos(inputs[0])]

pytensor.Rop(OldRop()(x), x, v, use_op_rop_implementation=True)
""", {"deprecation-rop": 1, "deprecation-op-r-op": 1}),
    "pytensor.Lop re-export": ("""
import pytensor
pytensor.Lop(pt.sin(x), x, v)
""", {"deprecation-lop": 1}),
    "OpFromGraph lop_overrides used by pullback": ("""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
op = OpFromGraph([a], [pt.sin(a)], lop_overrides=lambda i, o, c: [c[0] * pt.cos(i[0])])
pullback(op(x), x, v)
""", {"deprecation-lop-overrides": 1}),
    "OpFromGraph rop_overrides used by pushforward(use_op_pushforward=True)": ("""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
op = OpFromGraph([a], [pt.sin(a)], rop_overrides=lambda i, t: [t[0] * pt.cos(i[0])])
pushforward(op(x), x, v, use_op_pushforward=True)
""", {"deprecation-rop-overrides": 1}),
    "OpFromGraph misspelled override and a compile option": ("""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph([a], [pt.sin(a)], pullback_overrides=lambda i, o, c: c)
OpFromGraph([a], [pt.sin(a)], mode="FAST_COMPILE")
""", {"deprecation-compile-kwargs": 2}),
    "legacy ScalarOp.grad: no warning at all": ("""
import pytensor.scalar as ps
from pytensor.tensor.elemwise import Elemwise

class OldScalarSin(ps.UnaryScalarOp):
    def impl(self, x):
        return np.sin(x)

    def grad(self, inputs, output_grads):
        return [output_grads[0] * ps.cos(inputs[0])]

old_sin = Elemwise(OldScalarSin(ps.upgrade_to_float, name="old_sin"))
pullback(old_sin(x), x, v)
pushforward(old_sin(x), x, v)
""", {}),
    "new-style Op: silent in both modes": ("""
class NewSine(Sine):
    def pullback(self, inputs, outputs, cotangents):
        return [cotangents[0] * pt.cos(inputs[0])]

    def pushforward(self, inputs, outputs, tangents):
        return [tangents[0] * pt.cos(inputs[0])]

pullback(NewSine()(x), x, v)
pushforward(NewSine()(x), x, v)
pushforward(NewSine()(x), x, v, use_op_pushforward=True)
""", {}),
}


@pytest.mark.parametrize("name", LEGACY_PATHS)
def test_legacy_path_emits_only_catalogued_warnings(name):
    code, expected = LEGACY_PATHS[name]
    entry = catalog.Entry(label=name, category="", pattern="", title="", text_start="", trigger=code, action="",
                          migration="", since="")
    caught, error = catalog.run_trigger(entry)
    assert error is None, error
    assert uncovered(caught) == [], "not in the catalog: add an entry to docsite/catalog.py"
    counts = {}
    for cls, msg in caught:
        for e in catalog.lookup(cls, msg):
            counts[e.label] = counts.get(e.label, 0) + 1
    assert counts == expected


def test_every_deprecation_in_pytensor_autodiff_source_is_catalogued():
    """A new deprecation added to PyTensor's autodiff code fails here even before anyone triggers it."""
    found = catalog.source_deprecations()
    assert len(found) >= 11, found  # PyTensor 3.3: seven autodiff deprecations, four Op-writing calls (three entries)
    for rel, line, category, fragments in found:
        assert fragments is not None, f"{rel}:{line}: message not a literal; check it by hand"
        assert catalog.covering(category, fragments), f"{rel}:{line}: {category} {fragments!r} is not in the catalog"


def test_catalog_labels_are_unique_and_patterns_compile():
    labels = [e.label for e in catalog.ENTRIES + catalog.ERRORS]
    assert len(labels) == len(set(labels))
    for e in catalog.ENTRIES + catalog.ERRORS:
        re.compile(e.pattern)
        assert e.label.startswith("deprecation-")


def _labels_in(page):
    return set(re.findall(r"^\(([\w-]+)\)=$", (ROOT / page).read_text(), re.M)) | set(
        re.findall(r"\{anchor\}`[^`<]*<([\w-]+)>`", (ROOT / page).read_text()))


def test_pages_define_every_catalog_label():
    on_catalog_page = _labels_in("guides/deprecations.md")
    on_migration_page = _labels_in("guides/migration.md")
    for e in catalog.ENTRIES + catalog.ERRORS:
        assert e.label in on_catalog_page, e.label
        assert e.migration is None or e.migration in on_migration_page, (e.label, e.migration)


def test_catalog_labels_are_citable():
    """The JSON map publishes these URLs: they must be in the permanent list."""
    citable = set((ROOT / "tests" / "citable-anchors.txt").read_text().split())
    for e in catalog.ENTRIES + catalog.ERRORS:
        assert f"{catalog.PAGE}#{e.label}" in citable, e.label
        assert e.migration is None or f"{catalog.MIGRATION_PAGE}#{e.migration}" in citable, e.migration


def test_json_map_written_by_the_extension(tmp_path):
    from docsite.sphinxext import deprecations_map

    target = deprecations_map.write_map(catalog, tmp_path, "https://example.org/docs/")
    assert target == tmp_path / "_static" / "deprecations.json"
    data = json.loads(target.read_text())
    assert [e["id"] for e in data["entries"]] == [e.label for e in catalog.ENTRIES + catalog.ERRORS]
    assert all(e["url"].startswith("https://example.org/docs/guides/deprecations.html#") for e in data["entries"])
    assert all(re.fullmatch(r">=\d+\.\d+\.\d+", e["pytensor"]) for e in data["entries"])
    # A library's use of the map: find the URL for a warning it caught.
    [(cls, msg)], _ = catalog.run_trigger(catalog.BY_LABEL["deprecation-rop"])
    urls = [e["url"] for e in data["entries"] if e["category"] == cls and re.search(e["pattern"], msg)]
    assert urls == ["https://example.org/docs/guides/deprecations.html#deprecation-rop"]


# --- The page's catalog-derived parts: the table and each "What to do" -------------------------------------

PAGE_SOURCE = ROOT / "guides" / "deprecations.md"


def _start_regex(text_start):
    """text_start as a regex for the start of a live message: each <placeholder> stands for what PyTensor fills in."""
    parts = re.split(r"<[^<>]+>", text_start)
    return ".+?".join(re.escape(part) for part in parts)


def test_text_start_is_how_the_live_text_starts():
    """The table's "Warning (start of the text)" column is PyTensor's own text: each entry's text_start begins what
    its trigger emits or raises on the installed PyTensor (placeholders aside)."""
    seen = set()
    for entry, cls, msg in _live_messages():
        if entry.matches(cls, msg):
            assert re.match(_start_regex(entry.text_start), msg), (entry.label, entry.text_start, msg)
            seen.add(entry.label)
    assert seen == set(catalog.BY_LABEL)


def test_action_cites_the_migration_section():
    """Each "What to do" links the migration guide's section that shows the fix, when there is one."""
    for e in catalog.ENTRIES + catalog.ERRORS:
        assert e.action.strip(), e.label
        assert e.migration is None or f"{{ref}}`{e.migration}`" in e.action, (e.label, e.migration)


def test_page_types_no_table_and_no_action_by_hand():
    """The page takes its table and every "What to do" from the catalog, one directive each, once per entry."""
    from docsite.sphinxext import deprecations_map

    text = PAGE_SOURCE.read_text()
    assert text.count(":::{deprecations-table}\n") == 1
    assert "| Warning (start of the text) |" not in text, "a hand-typed copy of the table"
    assert "**What to do.**" not in text, "a hand-typed What to do: put it in the entry's action"
    actions = re.findall(r"^:::\{deprecation-action\} ([\w-]+)$", text, re.M)
    assert sorted(actions) == sorted(catalog.BY_LABEL), actions
    # Each action sits in its entry's section, and the table lists the entries in the order of their sections.
    sections = re.findall(r"^\((deprecation-[\w-]+)\)=$", text, re.M)
    assert sections == [e.label for e in deprecations_map.page_order(catalog.ENTRIES + catalog.ERRORS)]
    assert actions == sections


def test_page_states_each_entry_class_as_the_catalog_does():
    """The hand-written "**Class** `X`" of each section is the entry's category (the one fact both say)."""
    text = PAGE_SOURCE.read_text()
    for e in catalog.ENTRIES + catalog.ERRORS:
        section = text[text.index(f"({e.label})="):]
        assert re.search(r"\*\*Class\*\* `(\w+)`", section)[1] == e.category, e.label


def test_table_markdown_shows_each_text_verbatim():
    from docsite.sphinxext import deprecations_map

    rows = deprecations_map.table_markdown().splitlines()[2:]
    assert len(rows) == len(catalog.BY_LABEL)
    assert rows[0] == ("| ``<Op> should implement `pullback` instead of `L_op`/`grad`.`` | `FutureWarning` | "
                       "{ref}`deprecation-op-grad-l-op` |")
    assert deprecations_map.code_span("`a`") == "`` `a` ``"  # CommonMark strips the padding spaces


@pytest.mark.slow  # builds a small Sphinx project
def test_directives_render_the_catalog_in_a_strict_build(tmp_path):
    """{deprecations-table} and {deprecation-action} in a small MyST project built with -W: one table row and one
    "What to do" per entry, rendered from the catalog, with every reference in the actions resolved."""
    from bs4 import BeautifulSoup

    entries = catalog.ENTRIES + catalog.ERRORS
    actions = " ".join(e.action for e in entries)
    refs = set(re.findall(r"\{ref\}`([\w-]+)`", actions)) | {e.migration for e in entries if e.migration}
    terms = set(re.findall(r"\{term\}`([^`<]+)`", actions))
    src = tmp_path / "src"
    (src / "guides").mkdir(parents=True)
    (src / "conf.py").write_text('extensions = ["myst_parser", "docsite.sphinxext.deprecations_map"]\n'
                                 'myst_enable_extensions = ["colon_fence"]\n'
                                 'html_baseurl = "https://example.org/site/"\n')
    glossary = "".join(f"{term}\n  A word the actions link.\n\n" for term in sorted(terms))
    (src / "index.md").write_text("# Fixture\n\n```{toctree}\nguides/deprecations\nguides/migration\n```\n\n"
                                  f"```{{glossary}}\n{glossary}```\n")
    page = "# Deprecations\n\n:::{deprecations-table}\n:::\n\n"
    page += "".join(f"({e.label})=\n## {e.label}\n\n:::{{deprecation-action}} {e.label}\n:::\n\n" for e in entries)
    others = sorted(refs - set(catalog.BY_LABEL))
    page += "".join(f"({label})=\n## {label}\n\n" for label in others if not label.startswith("migration-"))
    (src / "guides" / "deprecations.md").write_text(page)
    (src / "guides" / "migration.md").write_text("# Migration\n\n" + "".join(
        f"({label})=\n## {label}\n\n" for label in others if label.startswith("migration-")))
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    html = BeautifulSoup((tmp_path / "out" / "guides" / "deprecations.html").read_text(), "html.parser")
    [table] = html.select("table")
    rows = table.select("tbody tr")
    assert [row.select("td")[0].get_text() for row in rows] == [
        e.text_start for e in deprecations_map_order(entries)]
    assert [row.select("td")[1].get_text() for row in rows] == [e.category for e in deprecations_map_order(entries)]
    assert [row.select_one("td a")["href"] for row in rows] == [f"#{e.label}" for e in deprecations_map_order(entries)]
    for e in entries:
        section = html.find(id=e.label)
        [what] = [p for p in section.find_all("p") if p.get_text().startswith("What to do.")]
        assert what.strong.get_text() == "What to do."
        links = {a["href"].split("#")[-1] for a in what.select("a")}
        assert e.migration is None or e.migration in links, (e.label, links)
        assert "{ref}" not in what.get_text() and "`" not in what.get_text(), what.get_text()  # rendered, not raw


def deprecations_map_order(entries):
    from docsite.sphinxext import deprecations_map

    return deprecations_map.page_order(entries)


def test_base_url_is_conf_py_html_baseurl():
    """One place for the site's URL: conf.py (the JSON map, the checker and the upstream patch use it)."""
    import runpy

    assert catalog.BASE_URL == runpy.run_path(str(ROOT / "conf.py"))["html_baseurl"]


# --- The citation map as the programs that use it will use it ------------------------------------------

def _live_messages():
    """(entry, category, message) for what every trigger emits or raises on the installed PyTensor."""
    found = []
    for entry in catalog.ENTRIES + catalog.ERRORS:
        caught, error = catalog.run_trigger(entry)
        for cls, msg in caught + ([error] if error else []):
            found.append((entry, cls, msg))
    return found


LIVE = _live_messages()

# Variants of the UserWarning for Ops with __props__: PyTensor prints them as `Repeat{axis=0}`.
PROPS_TRIGGER = """
from pytensor.gradient import disconnected_type, grad

class Repeat(Op):
    __props__ = PROPS

    def __init__(self, axis=0, scale=2.0):
        self.axis, self.scale = axis, scale

    def make_node(self, x, n):
        x, n = pt.as_tensor_variable(x), pt.as_tensor_variable(n)
        return Apply(self, [x, n], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def pullback(self, inputs, outputs, cotangents):
        return [cotangents[0] * inputs[1], disconnected_type()]

grad(Repeat()(x, pt.lscalar("n")).sum(), x)
"""


@pytest.mark.parametrize("props, printed", [(("axis",), "Repeat{axis=0}"),
                                            (("axis", "scale"), "Repeat{axis=0, scale=2.0}")])
def test_user_warning_pattern_matches_ops_with_props(props, printed):
    code = PROPS_TRIGGER.replace("PROPS", repr(props))
    entry = catalog.Entry(label="props", category="", pattern="", title="", text_start="", trigger=code, action="",
                          migration=None, since="")
    [(cls, msg)], error = catalog.run_trigger(entry)
    assert error is None and msg.startswith(printed + ".grad returned"), msg
    assert [e.label for e in catalog.lookup(cls, msg)] == ["deprecation-grad-returned-disconnected"]


def _formatted(cls, msg):
    """The line Python prints for a warning (warnings.formatwarning), source line included."""
    category = {"FutureWarning": FutureWarning, "DeprecationWarning": DeprecationWarning}.get(cls, UserWarning)
    return warnings.formatwarning(msg, category, "/site-packages/pytensor/graph/op.py", 298,
                                  "    warnings.warn(")


def _variants(entry, cls, msg):
    """A message the way programs meet it: bare, with a URL appended (the upstream patch, or the page's
    one-liner), and as a formatted warning line."""
    cited = f"{msg} See {entry.url}"
    variants = {"bare": (cls, msg), "cited": (cls, cited)}
    if entry.kind == "warning":
        variants["formatted"] = (None, _formatted(cls, msg))
        variants["formatted cited"] = (None, _formatted(cls, cited))
    else:
        variants["traceback line"] = (None, f"{cls}: {msg}")
    return variants


@pytest.mark.parametrize("entry, cls, msg", LIVE, ids=[f"{e.label}:{c}" for e, c, _ in LIVE])
def test_lookup_finds_exactly_one_entry_in_every_form(entry, cls, msg):
    for name, (category, text) in _variants(entry, cls, msg).items():
        if category is None and entry.kind == "error":
            category = cls  # a traceback line names the class before the colon; callers pass it
        assert [e.label for e in catalog.lookup(category, text)] == [entry.label], (name, text)
    assert catalog.lookup("UserWarning" if cls != "UserWarning" else "FutureWarning", msg) == []


def test_patterns_use_only_syntax_python_and_javascript_share():
    for e in catalog.ENTRIES + catalog.ERRORS:
        re.compile(e.pattern)
        assert "(?P" not in e.pattern and not re.search(r"\(\?[aiLmsux]", e.pattern), e.label
        # Escapes only of metacharacters, classes \d \w \s: JavaScript's `u` mode rejects any other.
        assert set(re.findall(r"\\(.)", e.pattern)) <= set("\\^$.|?*+()[]{}/dws"), e.label


JS_LOOKUP = """
(input) => input.texts.map(([category, text]) => {
  const found = {};
  for (const flags of ["", "u"]) {
    found[flags || "plain"] = input.map.entries
      .filter(e => (category === null || e.category === category) && new RegExp(e.pattern, flags).test(text))
      .map(e => e.id);
  }
  return found;
})
"""


def _run_javascript(function, argument):
    """Run a JavaScript function on a JSON argument: with Node when installed, else in headless Chromium."""
    node = shutil.which("node")
    if node:
        script = f"const f = {function};\nprocess.stdout.write(JSON.stringify(f(JSON.parse(require('fs')" \
                 ".readFileSync(0, 'utf8')))));"
        done = subprocess.run([node, "-e", script], input=json.dumps(argument), capture_output=True, text=True,
                              check=True)
        return json.loads(done.stdout)
    from conftest import CHROMIUM_ARGS, SYSTEM_CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=SYSTEM_CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return browser.new_page().evaluate(function, argument)
        finally:
            browser.close()


def test_javascript_lookup_agrees_with_python():
    """The JSON map's patterns, compiled by JavaScript's RegExp (with and without `u`), find the same entry
    as Python for every live message in every form."""
    site_map = catalog.as_map("test")
    texts, expected = [], []
    for entry, cls, msg in LIVE:
        for category, text in _variants(entry, cls, msg).values():
            texts.append([category, text])  # category None: the pattern alone must single the entry out
            expected.append([entry.label])
    found = _run_javascript(JS_LOOKUP, {"map": site_map, "texts": texts})
    for (category, text), want, got in zip(texts, expected, found, strict=True):
        assert got == {"plain": want, "u": want}, (text, got)


def test_run_trigger_leaves_warning_filters_alone():
    before = list(warnings.filters)
    catalog.run_trigger(catalog.ENTRIES[0])
    assert warnings.filters == before


def _page_cell_defining(name):
    """The source of the deprecations page's code cell that defines `name`."""
    text = (ROOT / "guides" / "deprecations.md").read_text()
    cells = re.findall(r"^```\{code-cell\} python\n(.*?)^```$", text, re.M | re.S)
    [cell] = [c for c in cells if f"\ndef {name}(" in c]
    return cell


def test_one_liner_works_for_a_reader_without_this_repository(tmp_path):
    """The page's cite_pytensor_docs cell, copied into an empty folder next to the published deprecations.json,
    makes PyTensor's printed warnings end with their URL: no repository, no network."""
    from docsite.sphinxext import deprecations_map

    reader = tmp_path / "reader"
    reader.mkdir()
    shutil.copy(deprecations_map.write_map(catalog, tmp_path / "site"), reader / "deprecations.json")
    script = _page_cell_defining("cite_pytensor_docs") + """
cite_pytensor_docs(json.loads(pathlib.Path("deprecations.json").read_text()))

import warnings
import pytensor.tensor as pt
from pytensor.gradient import Lop

warnings.simplefilter("always")
x = pt.dvector("x")
Lop(pt.sin(x), x, x)
Lop(pt.sin(x), x, x)  # printed twice, cited each time, never twice in one message
"""
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run([sys.executable, "-c", script], cwd=reader, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    url = catalog.url("deprecation-lop")
    assert done.stderr.count(f"FutureWarning: Lop is deprecated, use pullback instead. See {url}\n") == 2, done.stderr
    assert done.stderr.count(url) == 2


def _run_page_alone(python, folder):
    page = folder / "deprecations.md"
    shutil.copy(ROOT / "guides" / "deprecations.md", page)
    return run_alone(python, page, folder, timeout=600)


def test_page_runs_alone_with_the_published_catalog_next_to_it(tmp_path, reader_python):
    """A reader's empty folder: the downloaded notebook and the catalog the site publishes in _static/."""
    from docsite.sphinxext import deprecations_map

    reader = tmp_path / "reader"
    reader.mkdir()
    published = deprecations_map.write_catalog_copy(tmp_path / "site", "https://example.org/site/")
    assert "runpy.run_path" in published.read_text()  # the same code, only BASE_URL is written in
    shutil.copy(published, reader)
    done = _run_page_alone(reader_python, reader)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 problem(s)" in done.stdout


def test_page_alone_without_the_catalog_says_what_to_download(tmp_path, reader_python):
    done = _run_page_alone(reader_python, tmp_path)
    assert done.returncode != 0
    assert "Download deprecations_catalog.py from this page's site (_static/)" in done.stdout + done.stderr
