"""The catalog of autodiff warnings PyTensor 3 emits: the one source of truth.

Three things read it:

- ``guides/deprecations.md`` triggers each warning live and checks the captured text against ``pattern``;
- ``_ext/deprecations_map.py`` writes ``_static/deprecations.json`` into the built site;
- ``tests/test_deprecations.py`` runs every ``trigger`` against the installed PyTensor and fails when a
  warning appears that no entry matches, or when an entry's pattern no longer matches what it triggers.

Importing this module does not import PyTensor (the Sphinx extension imports it); the triggers are code
strings, executed only by :func:`run_trigger`.
"""

import ast
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

BASE_URL = "https://pullback-pushforward.readthedocs.io/en/latest/"
PAGE = "guides/deprecations.html"
MIGRATION_PAGE = "guides/migration.html"


def url(label, page=PAGE):
    """Absolute URL of a label on a page of the published site."""
    return f"{BASE_URL}{page}#{label}"


def _literal(text):
    """A regex matching `text` exactly, readable in JSON: spaces stay unescaped."""
    return re.escape(text).replace("\\ ", " ")


# An Op's class name as PyTensor prints it in these messages: `type(self).__name__`.
_OP = r"(?P<op>\w+)"

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
    label: str  # permanent anchor on guides/deprecations.html
    category: str  # the warning class name, e.g. "FutureWarning"
    pattern: str  # regex for the full message (re.fullmatch)
    title: str  # short heading
    trigger: str  # code that emits the warning (run after PRELUDE)
    action: str  # what to do, one sentence, Markdown
    migration: str  # label of the migration guide section that shows the fix
    deprecation: bool = True  # False: a UserWarning or error the legacy code paths meet, not a deprecation
    kind: str = "warning"  # "error": the trigger raises `category` instead of warning

    @property
    def url(self):
        return url(self.label)

    @property
    def migration_url(self):
        return url(self.migration, MIGRATION_PAGE)

    def matches(self, category_name, message):
        return category_name == self.category and re.fullmatch(self.pattern, message, re.S) is not None


ENTRIES = (
    Entry(
        label="deprecation-op-grad-l-op",
        category="FutureWarning",
        pattern=_OP + _literal(
            " should implement `pullback` instead of `L_op`/`grad`. Direct `L_op`/`grad` implementations "
            "are deprecated and will stop being called in a future version."
        ),
        title="An Op defines `grad` or `L_op` instead of `pullback`",
        trigger="""
class OldGrad(Sine):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * pt.cos(inputs[0])]

pullback(OldGrad()(x), x, v)
""",
        action="Rename the method to `pullback(self, inputs, outputs, cotangents)`; "
        "reuse `outputs` instead of recomputing them.",
        migration="migration-op-grad",
    ),
    Entry(
        label="deprecation-op-r-op",
        category="FutureWarning",
        pattern=_OP + _literal(
            " should implement `pushforward` instead of `R_op`. Direct `R_op` implementations "
            "are deprecated and will stop being called in a future version."
        ),
        title="An Op defines `R_op` instead of `pushforward`",
        trigger="""
class OldRop(Sine):
    def R_op(self, inputs, eval_points):
        return [eval_points[0] * pt.cos(inputs[0])]

pushforward(OldRop()(x), x, v, use_op_pushforward=True)
""",
        action="Rename the method to `pushforward(self, inputs, outputs, tangents)`, return a "
        "`DisconnectedType` variable where `R_op` returned `None`, and also write `pullback`.",
        migration="migration-op-r-op",
    ),
    Entry(
        label="deprecation-lop",
        category="FutureWarning",
        pattern=_literal("Lop is deprecated, use pullback instead."),
        title="`pytensor.gradient.Lop` (or `pytensor.Lop`) is called",
        trigger="""
from pytensor.gradient import Lop
Lop(pt.sin(x), x, v)
""",
        action="Call `pullback(f, wrt, cotangents)`; `eval_points=` becomes `cotangents=`.",
        migration="migration-lop-rop",
    ),
    Entry(
        label="deprecation-rop",
        category="FutureWarning",
        pattern=_literal("Rop is deprecated, use pushforward instead."),
        title="`pytensor.gradient.Rop` (or `pytensor.Rop`) is called",
        trigger="""
from pytensor.gradient import Rop
Rop(pt.sin(x), x, v)
""",
        action="Call `pushforward(f, wrt, tangents)`; `eval_points=` becomes `tangents=` and "
        "`use_op_rop_implementation=` becomes `use_op_pushforward=`.",
        migration="migration-lop-rop",
    ),
    Entry(
        label="deprecation-lop-overrides",
        category="FutureWarning",
        pattern=_literal("lop_overrides is deprecated in favor of pullback."),
        title="`OpFromGraph(..., lop_overrides=...)`",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph([a], [pt.sin(a)], lop_overrides=lambda inputs, outputs, cots: [cots[0] * pt.cos(inputs[0])])
""",
        action="Pass the same callable as `pullback=`; its signature `(inputs, outputs, cotangents)` "
        "is unchanged.",
        migration="migration-opfromgraph",
    ),
    Entry(
        label="deprecation-rop-overrides",
        category="FutureWarning",
        pattern=_literal("rop_overrides is deprecated in favor of pushforward."),
        title="`OpFromGraph(..., rop_overrides=...)`",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph([a], [pt.sin(a)], rop_overrides=lambda inputs, tangents: [tangents[0] * pt.cos(inputs[0])])
""",
        action="Pass the same callable as `pushforward=`; it receives `(inputs, tangents)` and is used "
        "only by `pushforward(..., use_op_pushforward=True)`.",
        migration="migration-opfromgraph",
    ),
    Entry(
        label="deprecation-compile-kwargs",
        category="FutureWarning",
        pattern=_literal(
            "Passing `compile_kwargs` to `OpFromGraph` is deprecated and now ignored: the inner graph "
            "inherits the outer compilation. Ignored: "
        ) + r"(?P<ignored>\[.*\])\.",
        title="`OpFromGraph` got a keyword it does not know (a removed or misspelled override, or a "
        "compile option)",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
OpFromGraph([a], [pt.sin(a)], grad_overrides=lambda inputs, cots: [cots[0] * pt.cos(inputs[0])])
""",
        action="Read the `Ignored: [...]` list. `grad_overrides` was removed: pass "
        "`pullback=lambda inputs, outputs, cotangents: ...`. Fix a misspelled override name. "
        "Drop compile options: the inner graph inherits the outer compilation.",
        migration="migration-grad-overrides",
    ),
    Entry(
        label="deprecation-grad-returned-disconnected",
        category="UserWarning",
        pattern=_OP + _literal(".grad returned DisconnectedType for input ") + r"(?P<input>\d+)"
        + _literal(". You may want to implement a connection_pattern method for it."),
        title="An Op's pullback returned `DisconnectedType` for an input it did not declare disconnected",
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
        action="Add `connection_pattern(self, node)` returning `[[True], [False]]` (one list per input, "
        "one bool per output). The text still says `.grad` for a `pullback`.",
        migration="migration-traps-disconnected",
        deprecation=False,
    ),
)

# Errors (not warnings) that legacy code meets once it half-migrated: the old keyword on a new function,
# an Op with only R_op, old and new overrides together. Their text is what a user searches for.
ERRORS = (
    Entry(
        label="deprecation-old-keywords",
        category="TypeError",
        pattern=r"(?P<function>pullback|pushforward)\(\) got an unexpected keyword argument "
        r"'(?P<keyword>eval_points|use_op_rop_implementation)'",
        title="`pullback`/`pushforward` called with the keywords of `Lop`/`Rop`",
        trigger="""
pushforward(pt.sin(x), x, eval_points=v)
""",
        action="`eval_points=` becomes `cotangents=` (pullback) or `tangents=` (pushforward); "
        "`use_op_rop_implementation=` becomes `use_op_pushforward=`.",
        migration="migration-lop-rop",
        deprecation=False,
        kind="error",
    ),
    Entry(
        label="deprecation-not-implemented",
        category="NotImplementedError",
        pattern=r"(?P<method>pullback|pushforward) not implemented for (?P<op>.+)",
        title="`pullback not implemented for <Op>` (or `pushforward ...`)",
        trigger="""
class OnlyRop(Sine):
    def R_op(self, inputs, eval_points):
        return [eval_points[0] * pt.cos(inputs[0])]

pushforward(OnlyRop()(x), x, v)  # the default pushforward goes through pullback
""",
        action="The Op has no `pullback` (an Op with only `R_op`, or only `pushforward`): write "
        "`pullback`. With `use_op_pushforward=True`, every Op in the graph needs `pushforward`.",
        migration="migration-traps-r-op-only",
        deprecation=False,
        kind="error",
    ),
    Entry(
        label="deprecation-overrides-exclusive",
        category="ValueError",
        pattern=r"(?P<old>lop_overrides|rop_overrides) and (?P<new>pullback|pushforward) are mutually exclusive",
        title="`OpFromGraph` got an old and a new override keyword together",
        trigger="""
from pytensor.compile.builders import OpFromGraph
a = pt.dvector("a")
override = lambda inputs, outputs, cots: [cots[0] * pt.cos(inputs[0])]
OpFromGraph([a], [pt.sin(a)], pullback=override, lop_overrides=override)
""",
        action="Keep only `pullback=` (or `pushforward=`).",
        migration="migration-opfromgraph",
        deprecation=False,
        kind="error",
    ),
)

BY_LABEL = {e.label: e for e in ENTRIES + ERRORS}


def lookup(category_name, message):
    """The entries matching a warning or error (class name and message text)."""
    return [e for e in ENTRIES + ERRORS if e.matches(category_name, message)]


def run_trigger(entry):
    """Execute an entry's trigger against the installed PyTensor.

    Returns ``(warnings, error)``: every warning as ``(class name, message)`` (``simplefilter("always")``,
    so a new one the catalog misses shows up), and the exception raised as ``(class name, message)`` or
    ``None``.
    """
    namespace = {}
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


def source_deprecations():
    """(file, line, category, fragments) of every deprecation warn() in PyTensor's autodiff code."""
    import pytensor

    package = Path(pytensor.__file__).parent
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
        while scopes:
            node, autodiff = scopes.pop()
            for child in ast.iter_child_nodes(node):
                inside = autodiff or (isinstance(child, ast.FunctionDef) and child.name in AUTODIFF_FUNCTIONS)
                if (inside and isinstance(child, ast.Call) and getattr(child.func, "attr", None) == "warn"
                        and _category(child) in DEPRECATION_CLASSES):
                    found.append((rel, child.lineno, _category(child), _message_fragments(child)))
                scopes.append((child, inside))
    return sorted(found)


def covering(category, fragments):
    """Entries whose pattern contains the longest literal fragment of a source message."""
    longest = _literal(max(fragments, key=len))
    return [e for e in ENTRIES if e.category == category and longest in e.pattern]


def as_map(pytensor_version=None):
    """The machine-readable map written to ``_static/deprecations.json``."""
    return {
        "description": "Autodiff warnings emitted by PyTensor 3, each with the page that explains it. "
        "Match a warning with re.fullmatch(pattern, str(message)) and compare its class name.",
        "base_url": BASE_URL,
        "pytensor_version": pytensor_version,
        "warnings": {
            e.pattern: {
                "category": e.category,
                "label": e.label,
                "url": e.url,
                "path": f"{PAGE}#{e.label}",
                "migration_url": e.migration_url,
                "title": e.title,
                "deprecation": e.deprecation,
            }
            for e in ENTRIES
        },
        "errors": {
            e.pattern: {
                "category": e.category,
                "label": e.label,
                "url": e.url,
                "path": f"{PAGE}#{e.label}",
                "migration_url": e.migration_url,
                "title": e.title,
            }
            for e in ERRORS
        },
    }
