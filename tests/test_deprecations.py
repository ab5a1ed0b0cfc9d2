"""The deprecation catalog (tools/deprecations_catalog.py) against the installed PyTensor.

Fails when a legacy autodiff path emits a warning the catalog does not cover, when a catalog entry's
pattern no longer matches what its trigger emits, or when the pages, the citable-anchor list or the
JSON map drift from the catalog. Needs PyTensor, not the built site.
"""

import json
import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import deprecations_catalog as catalog  # noqa: E402

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
    entry = catalog.Entry(label=name, category="", pattern="", title="", trigger=code, action="", migration="")
    caught, error = catalog.run_trigger(entry)
    assert error is None, error
    assert uncovered(caught) == [], "not in the catalog: add an entry to tools/deprecations_catalog.py"
    counts = {}
    for cls, msg in caught:
        for e in catalog.lookup(cls, msg):
            counts[e.label] = counts.get(e.label, 0) + 1
    assert counts == expected


def test_every_deprecation_in_pytensor_autodiff_source_is_catalogued():
    """A new deprecation added to PyTensor's autodiff code fails here even before anyone triggers it."""
    found = catalog.source_deprecations()
    assert len(found) >= 7, found  # the seven deprecations of PyTensor 3.3
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
        assert e.migration in on_migration_page, (e.label, e.migration)


def test_catalog_labels_are_citable():
    """The JSON map publishes these URLs: they must be in the permanent list."""
    citable = set((ROOT / "tests" / "citable-anchors.txt").read_text().split())
    for e in catalog.ENTRIES + catalog.ERRORS:
        assert f"{catalog.PAGE}#{e.label}" in citable, e.label
        assert f"{catalog.MIGRATION_PAGE}#{e.migration}" in citable, e.migration


def test_json_map_written_by_the_extension(tmp_path):
    import deprecations_map

    target = deprecations_map.write_map(catalog, tmp_path)
    assert target == tmp_path / "_static" / "deprecations.json"
    data = json.loads(target.read_text())
    assert len(data["warnings"]) == len(catalog.ENTRIES) and len(data["errors"]) == len(catalog.ERRORS)
    # A library's use of the map: find the URL for a warning it caught.
    entry = catalog.BY_LABEL["deprecation-rop"]
    [(cls, msg)], _ = catalog.run_trigger(entry)
    urls = [v["url"] for pattern, v in data["warnings"].items() if v["category"] == cls and re.fullmatch(pattern, msg)]
    assert urls == [catalog.BASE_URL + "guides/deprecations.html#deprecation-rop"]


def test_run_trigger_leaves_warning_filters_alone():
    before = list(warnings.filters)
    catalog.run_trigger(catalog.ENTRIES[0])
    assert warnings.filters == before
