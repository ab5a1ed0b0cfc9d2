"""The catalog of autodiff warnings PyTensor 3 emits: the one source of truth.

Four things read it:

- ``guides/deprecations.md`` triggers each warning live and checks the captured text against ``pattern``;
- ``docsite/sphinxext/deprecations_map.py`` writes ``_static/deprecations.json`` into the built site, and renders
  the page's table of warnings (``text_start``, ``category``, ``label``), each entry's trigger code and each
  entry's "What to do" (``action``), so the page cannot drift from the catalog;
- ``docsite/pytensor_patch.py`` writes the upstream patch that makes PyTensor's messages cite this site;
- ``tests/test_deprecations.py`` runs every ``trigger`` against the installed PyTensor and fails when a
  warning appears that no entry matches, or when an entry's pattern no longer matches what it triggers.

Importing this module does not import PyTensor (the Sphinx extension imports it); the triggers are code
strings, executed only by :func:`run_trigger`.

Patterns are written for two regex engines at once, Python's ``re`` and JavaScript's ``RegExp``: no named
groups, no inline flags, only ``\\`` escapes of regex metacharacters. A message matches an entry when the
pattern is found anywhere in it (``re.search``, ``RegExp.test``), so the text PyTensor formats around a
message (``file:line: FutureWarning: ...``) or appends to it (``See <url>``) does not break the lookup.
"""

import ast
import re
import runpy
import warnings
from dataclasses import dataclass
from pathlib import Path

PAGE = "guides/deprecations.html"
MIGRATION_PAGE = "guides/migration.html"
CONF = Path(__file__).resolve().parent.parent / "conf.py"


def _site_base_url():
    """``html_baseurl`` of the site, read from its ``conf.py`` (the one place it is written)."""
    if not CONF.exists():  # a downloaded copy of this file: the URLs come from deprecations.json instead
        return None
    return runpy.run_path(str(CONF))["html_baseurl"]


BASE_URL = _site_base_url()


def url(label, page=PAGE, base_url=None):
    """Absolute URL of a label on a page of the published site."""
    return f"{base_url or BASE_URL}{page}#{label}"


# The characters both engines treat as regex syntax. Escaping anything else is an error in a JavaScript
# RegExp with the `u` flag (re.escape also escapes space, "-", "#", "&", "~").
_META = re.compile(r"([\\^$.|?*+()\[\]{}/])")


def _literal(text):
    """A regex matching `text` exactly, valid in Python and JavaScript, readable in JSON."""
    return _META.sub(r"\\\1", text)


# Shared by the triggers: a one-input Op y = sin(x) whose autodiff method is added by each trigger.
PRELUDE = """
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.gradient import pullback, pushforward

class Sine(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.sin(inputs[0])

x = pt.dvector("x")
v = pt.dvector("v")
"""


@dataclass(frozen=True)
class Entry:
    label: str  # the entry's stable id, and its permanent anchor on guides/deprecations.html
    category: str  # the warning class name, e.g. "FutureWarning"
    pattern: str  # regex found in the message (re.search / RegExp.test); Python and JavaScript syntax
    title: str  # short heading
    # The start of the text as a reader sees it, for the page's table: PyTensor's words, with each part PyTensor
    # fills in written as a <placeholder> (tests/test_deprecations.py checks it against the live text).
    text_start: str
    trigger: str  # code that emits the warning (run after PRELUDE)
    # What to do, in MyST Markdown (roles such as {ref} and {term} resolve on the site): the page renders it
    # with {deprecation-action}. It ends by citing the migration guide's section when `migration` names one.
    action: str
    migration: str | None  # label of the migration guide section that shows the fix (None: this page does)
    since: str  # first PyTensor release whose message this pattern matches (checked in PyTensor's git tags)
    deprecation: bool = True  # False: a UserWarning or error the legacy code paths meet, not a deprecation
    kind: str = "warning"  # "error": the trigger raises `category` instead of warning
    audience: str = "autodiff"  # "op-author": an Op-writing deprecation met in the same migration

    @property
    def id(self):
        return self.label

    @property
    def pytensor(self):
        """The PyTensor versions the entry applies to, as a PEP 440 specifier (open-ended: the tests
        fail on the first release whose text no longer matches)."""
        return f">={self.since}"

    @property
    def url(self):
        return url(self.label)

    @property
    def migration_url(self):
        return url(self.migration, MIGRATION_PAGE) if self.migration else None

    def matches(self, category_name, message):
        """Whether a warning or error (its class name, or None when unknown, and its text) is this entry.

        The text may be the bare message, a message with "See <url>" appended, or a line formatted by
        ``warnings.formatwarning`` ("file:line: FutureWarning: message").
        """
        if category_name is None:
            category_name = _formatted_category(message) or self.category
        return category_name == self.category and re.search(self.pattern, message) is not None


_FORMATTED = re.compile(r":\d+: (\w+): ")  # "file.py:12: FutureWarning: " as warnings.formatwarning writes


def _formatted_category(text):
    found = _FORMATTED.search(text)
    return found.group(1) if found else None


ENTRIES = (
    Entry(
        label="deprecation-op-grad-l-op",
        category="FutureWarning",
        pattern=r"\w+" + _literal(
            " should implement `pullback` instead of `L_op`/`grad`. Direct `L_op`/`grad` implementations "
            "are deprecated and will stop being called in a future version."
        ),
        title="An Op defines `grad` or `L_op` instead of `pullback`",
        text_start="<Op> should implement `pullback` instead of `L_op`/`grad`.",
        trigger="""
class OldGrad(Sine):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * pt.cos(inputs[0])]

pullback(OldGrad()(x), x, v)
""",
        action="Rename the method `pullback(self, inputs, outputs, cotangents)`. For `grad` you gain the `outputs` "
        "argument, so reuse them instead of recomputing. For `L_op` the signature is unchanged. See "
        "{ref}`migration-op-grad` and {ref}`migration-op-l-op`.",
        migration="migration-op-grad",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-op-r-op",
        category="FutureWarning",
        pattern=r"\w+" + _literal(
            " should implement `pushforward` instead of `R_op`. Direct `R_op` implementations "
            "are deprecated and will stop being called in a future version."
        ),
        title="An Op defines `R_op` instead of `pushforward`",
        text_start="<Op> should implement `pushforward` instead of `R_op`.",
        trigger="""
class OldRop(Sine):
    def R_op(self, inputs, eval_points):
        return [eval_points[0] * pt.cos(inputs[0])]

pushforward(OldRop()(x), x, v, use_op_pushforward=True)
""",
        action="Write `pushforward(self, inputs, outputs, tangents)`. Where `R_op` returned `None` for a "
        "{term}`disconnected` output, return a `DisconnectedType` variable. A {term}`tangent` that was `None` now "
        "arrives as a `DisconnectedType` variable. Write a `pullback` too. See {ref}`migration-op-r-op`.",
        migration="migration-op-r-op",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-lop",
        category="FutureWarning",
        pattern=_literal("Lop is deprecated, use pullback instead."),
        title="`pytensor.gradient.Lop` (or `pytensor.Lop`) is called",
        text_start="Lop is deprecated, use pullback instead.",
        trigger="""
from pytensor.gradient import Lop
Lop(pt.sin(x), x, v)
""",
        action="Call `pullback(f, wrt, cotangents)`: `eval_points=` becomes `cotangents=`, and the other "
        "arguments keep their names. See {ref}`migration-lop-rop`.",
        migration="migration-lop-rop",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-rop",
        category="FutureWarning",
        pattern=_literal("Rop is deprecated, use pushforward instead."),
        title="`pytensor.gradient.Rop` (or `pytensor.Rop`) is called",
        text_start="Rop is deprecated, use pushforward instead.",
        trigger="""
from pytensor.gradient import Rop
Rop(pt.sin(x), x, v)
""",
        action="Call `pushforward(f, wrt, tangents)`: `eval_points=` becomes `tangents=` and "
        "`use_op_rop_implementation=` becomes `use_op_pushforward=`. The new function rejects the old keyword "
        "names (see {ref}`deprecation-old-keywords`). See {ref}`migration-lop-rop`.",
        migration="migration-lop-rop",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-lop-overrides",
        category="FutureWarning",
        pattern=_literal("lop_overrides is deprecated in favor of pullback."),
        title="`OpFromGraph(..., lop_overrides=...)`",
        text_start="lop_overrides is deprecated in favor of pullback.",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph(
    [a],
    [pt.sin(a)],
    lop_overrides=lambda inputs, outputs, cots: [cots[0] * pt.cos(inputs[0])],
)
""",
        action="Pass the same value as `pullback=`. A callable keeps its signature "
        "`(inputs, outputs, cotangents)`. See {ref}`migration-opfromgraph`.",
        migration="migration-opfromgraph",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-rop-overrides",
        category="FutureWarning",
        pattern=_literal("rop_overrides is deprecated in favor of pushforward."),
        title="`OpFromGraph(..., rop_overrides=...)`",
        text_start="rop_overrides is deprecated in favor of pushforward.",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph(
    [a],
    [pt.sin(a)],
    rop_overrides=lambda inputs, tangents: [tangents[0] * pt.cos(inputs[0])],
)
""",
        action="Pass the same value as `pushforward=`. A callable receives `(inputs, tangents)`, with no "
        "outputs. PyTensor uses it only for `pushforward(..., use_op_pushforward=True)` and ignores it otherwise. "
        "See {ref}`migration-opfromgraph`.",
        migration="migration-opfromgraph",
        since="3.0.0",
    ),
    Entry(
        label="deprecation-compile-kwargs",
        category="FutureWarning",
        pattern=_literal(
            "Passing `compile_kwargs` to `OpFromGraph` is deprecated and now ignored: the inner graph "
            "inherits the outer compilation. Ignored: "
        ) + r"\[.*\]\.",
        title="`OpFromGraph` got a keyword it does not know (a removed or misspelled override, or a "
        "compile option)",
        text_start="Passing `compile_kwargs` to `OpFromGraph` is deprecated and now ignored",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph(
    [a],
    [pt.sin(a)],
    grad_overrides=lambda inputs, cots: [cots[0] * pt.cos(inputs[0])],
)
""",
        action="Read the `Ignored: [...]` list. Replace `grad_overrides=lambda inputs, output_grads: ...` with "
        "`pullback=lambda inputs, outputs, cotangents: ...` (`grad_overrides` was removed), fix misspelled "
        "override names, and drop compile options (the inner graph inherits the outer compilation). To make sure "
        "it never happens silently, turn this warning into an error in your tests (see "
        "{ref}`deprecations-as-errors`). See {ref}`migration-grad-overrides`.",
        migration="migration-grad-overrides",
        since="3.1.1",
    ),
    Entry(
        label="deprecation-grad-returned-disconnected",
        category="UserWarning",
        # PyTensor prints the Op with str(op): `Repeat`, or `Repeat{axis=0, n=2}` for an Op with __props__;
        # the pattern starts after it.
        pattern=_literal(".grad returned DisconnectedType for input ") + r"\d+"
        + _literal(". You may want to implement a connection_pattern method for it."),
        title="An Op's pullback returned `DisconnectedType` for an input it did not declare disconnected",
        text_start="<Op>.grad returned DisconnectedType for input <i>.",
        trigger="""
from pytensor.gradient import disconnected_type, grad

class Repeat(Op):
    # y = x * n with an integer n: y does not depend differentiably on n.
    __props__ = ()

    def make_node(self, x, n):
        x, n = pt.as_tensor_variable(x), pt.as_tensor_variable(n)
        return Apply(self, [x, n], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def pullback(self, inputs, outputs, cotangents):
        return [cotangents[0] * inputs[1], disconnected_type()]

grad(Repeat()(x, pt.lscalar("n")).sum(), x)
""",
        action="Add `connection_pattern(self, node)` returning one list per input with one bool per output, "
        "here `[[True], [False]]`. If the Op does define `connection_pattern` and it disagrees, PyTensor raises a "
        "`TypeError` instead. See {ref}`migration-traps-disconnected`.",
        migration="migration-traps-disconnected",
        since="2.8.10",
        deprecation=False,
    ),
    # Op-writing deprecations an Op author meets in the same migration.
    Entry(
        label="deprecation-infer-shape-fgraph",
        category="DeprecationWarning",
        # PyTensor names the method by module and qualified name, e.g. `__main__.make.<locals>.Sq.infer_shape`.
        pattern=_literal(".infer_shape takes a deprecated `fgraph` parameter; drop it from the signature. "
                         "The parameter will be passed as None."),
        title="An Op's `infer_shape` takes the `fgraph` parameter",
        text_start="<module>.<Op>.infer_shape takes a deprecated `fgraph` parameter",
        trigger="""
class OldShape(Sine):
    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes
""",
        action="Drop the parameter: `infer_shape(self, node, input_shapes)`. See "
        "{ref}`migration-other-deprecations`.",
        migration="migration-other-deprecations",
        since="3.1.1",
        audience="op-author",
    ),
    Entry(
        label="deprecation-as-op",
        category="FutureWarning",
        pattern=_literal("pytensor.as_op is deprecated and will be removed in a future release. "
                         "Please use pytensor.wrap_py instead."),
        title="`pytensor.as_op` wraps a Python function as an Op",
        text_start="pytensor.as_op is deprecated and will be removed in a future release.",
        trigger="""
from pytensor.compile.ops import as_op

@as_op(itypes=[pt.dvector], otypes=[pt.dvector])
def numpy_sin(a):
    return np.sin(a)
""",
        action="Use `pytensor.wrap_py`, which takes the same arguments (`itypes`, `otypes`, `infer_shape`) and "
        "does not warn. The Op it builds has no `pullback` of its own: to differentiate through it, write an Op "
        "class with `perform` and `pullback` (see {ref}`migration-op-grad`).",
        migration=None,
        since="2.34.0",
        audience="op-author",
    ),
    Entry(
        label="deprecation-tensortype-broadcastable",
        category="DeprecationWarning",
        pattern=_literal("The `broadcastable` keyword is deprecated; use `shape`."),
        title="`TensorType(..., broadcastable=...)` (or `.clone(broadcastable=...)`), often in `make_node`",
        text_start="The `broadcastable` keyword is deprecated; use `shape`.",
        trigger="""
from pytensor.tensor.type import TensorType
TensorType("float64", broadcastable=(False,))
""",
        action="Pass `shape=` instead: `None` for a length not known in advance, `1` for a broadcastable "
        "dimension. See {ref}`migration-other-deprecations`.",
        migration="migration-other-deprecations",
        since="2.8.10",
        audience="op-author",
    ),
)

# Errors (not warnings) that legacy code meets once it half-migrated: the old keyword on a new function,
# an Op with only R_op, old and new overrides together. Their text is what a user searches for.
ERRORS = (
    Entry(
        label="deprecation-old-keywords",
        category="TypeError",
        pattern=r"(?:pullback|pushforward)\(\) got an unexpected keyword argument "
        r"'(?:eval_points|use_op_rop_implementation)'",
        title="`pullback`/`pushforward` called with the keywords of `Lop`/`Rop`",
        text_start="pushforward() got an unexpected keyword argument 'eval_points'",
        trigger="""
pushforward(pt.sin(x), x, eval_points=v)
""",
        action="`eval_points=` becomes `cotangents=` (`pullback`) or `tangents=` (`pushforward`), and "
        "`use_op_rop_implementation=` becomes `use_op_pushforward=`. See {ref}`migration-lop-rop`.",
        migration="migration-lop-rop",
        since="3.0.0",
        deprecation=False,
        kind="error",
    ),
    Entry(
        label="deprecation-not-implemented",
        category="NotImplementedError",
        pattern=r"(?:pullback|pushforward) not implemented for .",
        title="`pullback not implemented for <Op>` (or `pushforward ...`)",
        text_start="pullback not implemented for <Op>",
        trigger="""
class OnlyRop(Sine):
    def R_op(self, inputs, eval_points):
        return [eval_points[0] * pt.cos(inputs[0])]

pushforward(OnlyRop()(x), x, v)  # the default pushforward goes through pullback
""",
        action="Write the missing method: `pullback` for an Op that has only `R_op` (or only `pushforward`); "
        "with `use_op_pushforward=True`, `pushforward` on every Op between `wrt` and `f`. See "
        "{ref}`migration-traps-r-op-only` and {ref}`migration-traps-use-op-pushforward`.",
        migration="migration-traps-r-op-only",
        since="3.0.0",
        deprecation=False,
        kind="error",
    ),
    Entry(
        label="deprecation-overrides-exclusive",
        category="ValueError",
        pattern=r"(?:lop_overrides|rop_overrides) and (?:pullback|pushforward) are mutually exclusive",
        title="`OpFromGraph` got an old and a new override keyword together",
        text_start="lop_overrides and pullback are mutually exclusive",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
override = lambda inputs, outputs, cots: [cots[0] * pt.cos(inputs[0])]
OpFromGraph([a], [pt.sin(a)], pullback=override, lop_overrides=override)
""",
        action="Keep only `pullback=` (or `pushforward=`). See {ref}`migration-opfromgraph`.",
        migration="migration-opfromgraph",
        since="3.0.0",
        deprecation=False,
        kind="error",
    ),
    Entry(
        label="deprecation-grad-not-implemented",
        category="NotImplementedError",
        pattern=_literal("grad not implemented for Op "),
        title="`grad not implemented for Op <Op>`: code calls `op.grad(...)` directly",
        text_start="grad not implemented for Op <Op>",
        trigger="""
class NewSine(Sine):
    def pullback(self, inputs, outputs, cotangents):
        return [cotangents[0] * pt.cos(inputs[0])]

NewSine().grad([x], [v])  # Op.grad does not forward to pullback (Op.L_op does)
""",
        action="Call `op.pullback(inputs, outputs, cotangents)` instead of `op.grad(inputs, output_grads)`. "
        "See {ref}`migration-traps-direct-calls`.",
        migration="migration-traps-direct-calls",
        since="2.30.0",
        deprecation=False,
        kind="error",
    ),
)

BY_LABEL = {e.label: e for e in ENTRIES + ERRORS}


def lookup(category_name, message):
    """The entries matching a warning or error: its class name (None if unknown) and its text.

    A search, not a full match: ``message`` may carry text around PyTensor's message (see the module
    docstring). At most one entry matches any message PyTensor emits (the tests check it).
    """
    return [e for e in ENTRIES + ERRORS if e.matches(category_name, message)]


def run_trigger(entry):
    """Execute an entry's trigger against the installed PyTensor.

    Returns ``(warnings, error)``: every warning as ``(class name, message)`` (``simplefilter("always")``,
    so a new one the catalog misses shows up), and the exception raised as ``(class name, message)`` or
    ``None``.
    """
    namespace = {"__name__": "__main__"}  # the code runs as a reader's script would
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(compile(PRELUDE + entry.trigger, f"<trigger {entry.label}>", "exec"), namespace)
        except Exception as err:  # noqa: BLE001 - the error is the result for kind="error"
            error = (type(err).__name__, str(err))
    return [(w.category.__name__, str(w.message)) for w in caught], error


# --- PyTensor's own source: every deprecation warn() in its autodiff code -------------------------------
DEPRECATION_CLASSES = {"FutureWarning", "DeprecationWarning", "PendingDeprecationWarning"}


def _message_fragments(call):
    """The literal text of a warnings.warn(...) message, as a list of fragments (f-string holes split it)."""
    msg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "message"), None)
    if isinstance(msg, ast.Constant) and isinstance(msg.value, str):
        return [msg.value]
    if isinstance(msg, ast.JoinedStr):
        return [v.value for v in msg.values if isinstance(v, ast.Constant)]
    return None


def _category(call):
    node = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "category"), None)
    return getattr(node, "id", getattr(node, "attr", "UserWarning")) if node is not None else "UserWarning"


# Where PyTensor's autodiff lives; in the other files only these functions are autodiff code.
AUTODIFF_FILES = {"gradient.py", "compile/builders.py"}
AUTODIFF_FUNCTIONS = {"pullback", "pushforward", "grad", "L_op", "R_op", "Lop", "Rop", "jacobian", "hessian"}
# The Op-writing deprecations the catalog covers too (audience="op-author"): file -> functions.
OP_AUTHOR_FUNCTIONS = {
    "graph/op.py": {"__init_subclass__"},
    "compile/ops.py": {"as_op"},
    "tensor/type.py": {"__init__", "clone"},  # TensorType
}


def source_deprecations(package=None):
    """(file, line, category, fragments) of every deprecation warn() in PyTensor's autodiff code.

    ``package`` is a PyTensor source directory (the one holding ``gradient.py``); default: the installed one.
    """
    if package is None:
        import pytensor

        package = Path(pytensor.__file__).parent
    package = Path(package)
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.startswith("tests/"):
            continue
        source = path.read_bytes()
        if b"Warning" not in source:  # no warning category named: nothing to parse
            continue
        tree = ast.parse(source)
        scopes = [(tree, rel in AUTODIFF_FILES)]
        functions = AUTODIFF_FUNCTIONS | OP_AUTHOR_FUNCTIONS.get(rel, set())
        while scopes:
            node, autodiff = scopes.pop()
            for child in ast.iter_child_nodes(node):
                inside = autodiff or (isinstance(child, ast.FunctionDef) and child.name in functions)
                if (inside and isinstance(child, ast.Call) and getattr(child.func, "attr", None) == "warn"
                        and _category(child) in DEPRECATION_CLASSES):
                    found.append((rel, child.lineno, _category(child), _message_fragments(child)))
                scopes.append((child, inside))
    return sorted(found)


def covering(category, fragments):
    """Entries whose pattern contains the longest literal fragment of a source message."""
    longest = _literal(max(fragments, key=len))
    return [e for e in ENTRIES if e.category == category and longest in e.pattern]


LOOKUP = (
    "An entry matches a warning or error when its class name equals `category` and `pattern` is found "
    "anywhere in the text (a search, not a full match: Python re.search(pattern, text), JavaScript "
    "new RegExp(pattern).test(text), no flags). The text may be the bare message, the message with "
    "'See <url>' appended, or a line such as 'file.py:12: FutureWarning: <message>'. At most one entry "
    "matches. `id` is stable: it is also the URL's #anchor, and never changes or disappears."
)


def as_map(pytensor_version=None, base_url=None):
    """The machine-readable map written to ``_static/deprecations.json``."""
    base_url = base_url or BASE_URL
    return {
        "description": "Autodiff warnings and errors emitted by PyTensor, each with the page that explains it.",
        "lookup": LOOKUP,
        "format": 2,
        "base_url": base_url,
        "checked_with": {"pytensor": pytensor_version},
        "entries": [
            {
                "id": e.id,
                "kind": e.kind,
                "category": e.category,
                "pattern": e.pattern,
                "pytensor": e.pytensor,
                "url": url(e.label, base_url=base_url),
                "path": f"{PAGE}#{e.label}",
                "migration_url": url(e.migration, MIGRATION_PAGE, base_url) if e.migration else None,
                "title": e.title,
                "deprecation": e.deprecation,
                "audience": e.audience,
            }
            for e in ENTRIES + ERRORS
        ],
    }
