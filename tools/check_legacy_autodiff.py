#!/usr/bin/env python3
"""Find, and fix, legacy PyTensor autodiff code: Op.grad/L_op/R_op, Lop/Rop, old keywords, old Op signatures.

    python check_legacy_autodiff.py [options] [PATH ...]          report (PATH defaults to ".")
    python check_legacy_autodiff.py --diff PATH ...               show what --fix would change
    python check_legacy_autodiff.py --fix PATH ...                rewrite the mechanical cases in place

PATH is a file or a directory, searched recursively for *.py, *.pyi, *.ipynb and MyST *.md notebooks (their
code cells). Files are parsed with Python's ``ast``; nothing is imported or run. Every finding has a rule code
(LAD101...) and the URL of the page that explains it.

Standalone: the standard library only, Python >= 3.9. Documentation, rule list and download:
https://pullback-pushforward.readthedocs.io/en/latest/guides/checker.html
"""

import argparse
import ast
import difflib
import fnmatch
import io
import json
import os
import re
import stat
import sys
import tokenize
from collections import Counter

__version__ = "2.0"

TOOL = "check-legacy-autodiff"
BASE_URL = "https://pullback-pushforward.readthedocs.io/en/latest/"  # html_baseurl in the site's conf.py
PAGE = "guides/checker.html"
LIBRARIES = ("pytensor", "aesara", "theano")

# Directories never entered while walking a tree (a PATH given explicitly is always read).
DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".venv", "venv", "env", ".tox", ".nox", "build", "dist",
                    "node_modules", "site-packages", "__pycache__", ".ipynb_checkpoints", ".mypy_cache",
                    ".pytest_cache", ".ruff_cache")

QUIET_EXCLUDES = {"__pycache__", ".ipynb_checkpoints", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".git", ".hg",
                  ".svn"}  # never hold project sources: skipped without a mention
MARKER = re.compile(r"#\s*legacy-autodiff:\s*ok(?:\[(?P<codes>[^\]]*)\])?")
SKIP_FILE = re.compile(r"#\s*legacy-autodiff:\s*skip-file\b")


class Rule:
    def __init__(self, code, name, summary, note=False):
        self.code, self.name, self.summary, self.note = code, name, summary, note

    @property
    def label(self):
        """The permanent anchor of this rule on the checker page."""
        return "checker-" + self.code.lower()

    def url(self, base_url=BASE_URL):
        return f"{base_url}{PAGE}#{self.label}"


RULES = {r.code: r for r in [
    Rule("LAD101", "op-grad", "Op defines legacy `grad`: rename it `pullback(self, inputs, outputs, output_grads)`"),
    Rule("LAD102", "op-l-op", "Op defines legacy `L_op`: rename it `pullback`"),
    Rule("LAD103", "op-r-op", "Op defines legacy `R_op`: rename it `pushforward(self, inputs, outputs, eval_points)`"),
    Rule("LAD201", "lop", "`Lop` is deprecated: use `pullback`"),
    Rule("LAD202", "rop", "`Rop` is deprecated: use `pushforward`"),
    Rule("LAD203", "call-grad", "direct call of an Op's `grad`: Ops written for PyTensor 3 have none; "
                                "call `op.pullback(inputs, outputs, cotangents)`"),
    Rule("LAD204", "call-l-op", "direct call of legacy `L_op`: call `.pullback` (same arguments)"),
    Rule("LAD205", "call-r-op", "direct call of legacy `R_op`: call `.pushforward(inputs, outputs, tangents)`"),
    Rule("LAD301", "eval-points", "keyword `eval_points=`: `cotangents=` for pullback, `tangents=` for pushforward"),
    Rule("LAD302", "use-op-rop-implementation", "keyword `use_op_rop_implementation=`: now `use_op_pushforward=`"),
    Rule("LAD303", "lop-overrides", "keyword `lop_overrides=`: now `pullback=`"),
    Rule("LAD304", "rop-overrides", "keyword `rop_overrides=`: now `pushforward=`"),
    Rule("LAD305", "grad-overrides", "keyword `grad_overrides=` was removed and is silently ignored: pass "
                                     "`pullback=lambda inputs, outputs, cotangents: ...` (new signature)"),
    Rule("LAD306", "unknown-override", "keyword `{name}=` is not an OpFromGraph argument and is silently ignored: "
                                       "did you mean `{fix}=`?"),
    Rule("LAD401", "infer-shape-fgraph", "`infer_shape(self, fgraph, node, shapes)`: the `fgraph` parameter is "
                                         "deprecated (PyTensor passes None); drop it"),
    Rule("LAD402", "tensor-type-broadcastable", "`TensorType(broadcastable=...)` is deprecated: pass `shape=` "
                                                "(True becomes 1, False becomes None)"),
    Rule("LAD900", "kept-for-pytensor-2", "legacy `{name}` kept next to `{new}` on the same class: kept for "
                                          "PyTensor < 3, not work to do", note=True),
]}
BY_NAME = {r.name: r.code for r in RULES.values()}

# Keyword arguments: rule code, and the new name per callee kind ("*": any callee).
KEYWORDS = {
    "eval_points": ("LAD301", {"lop": "cotangents", "pullback": "cotangents", "rop": "tangents",
                               "pushforward": "tangents"}),
    "use_op_rop_implementation": ("LAD302", {"rop": "use_op_pushforward", "pushforward": "use_op_pushforward"}),
    "lop_overrides": ("LAD303", {"ofg": "pullback"}),
    "rop_overrides": ("LAD304", {"ofg": "pushforward"}),
    "grad_overrides": ("LAD305", {}),
}
REPORT_ONLY_FOR = {"eval_points"}  # reported only on PyTensor's functions (a common name elsewhere)
MISSPELLED_OVERRIDES = {"pullback_overrides": "pullback", "pushforward_overrides": "pushforward"}
NEW_NAMES = {"Lop": "pullback", "Rop": "pushforward"}
GRADIENT_MODULES = {"pytensor.gradient"}

# A class is an Op when a base is one (a name ending in "Op", one below, or an Op class of the scanned tree),
# or when it defines one of these methods.
OP_METHODS = {"make_node", "perform", "impl", "c_code", "pullback", "pushforward", "L_op", "R_op", "infer_shape"}
SCALAR_BASES = {"ScalarOp", "UnaryScalarOp", "BinaryScalarOp"}
KNOWN_OP_BASES = set("""
Elemwise CAReduce Sum Prod ProdWithoutZeros Max Min All Any Argmax MaxAndArgmax CAReduceDtype DimShuffle
Blockwise OpFromGraph Scan Subtensor IncSubtensor AdvancedSubtensor AdvancedSubtensor1 AdvancedIncSubtensor
AdvancedIncSubtensor1 Reshape Join Split Alloc AllocEmpty Dot Dot22 Gemm Gemv Ger GemmRelated BaseBLAS
BatchedDot Composite ScalarLoop RandomVariable ScipyRandomVariable Solve SolveBase SolveTriangular Cholesky
MatrixInverse MatrixPinv Eig Eigh Eigvalsh SVD Det SLogDet QR LU Expm Softmax LogSoftmax SoftmaxGrad
Repeat Unique Shape Shape_i SpecifyShape Assert CheckAndRaise IfElse Print Switch Second Cast Identity
FillDiagonal ExtractDiag AllocDiag Eye Tri Nonzero Sort ArgSort TopK Einsum Convolve1d StructuredDot
""".split())


# ---------------------------------------------------------------------------------------------------------
# Source texts: positions and edits


class Text:
    """A source text with the line/column arithmetic of ``ast`` (1-based lines, UTF-8 byte columns)."""

    def __init__(self, text):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def line(self, lineno):
        if not 1 <= lineno <= len(self.starts):
            return ""
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.text)
        return self.text[self.starts[lineno - 1]:end]

    def offset(self, lineno, col):
        line = self.line(lineno)
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return self.starts[lineno - 1] + col

    def start(self, node):
        return self.offset(node.lineno, node.col_offset)

    def position(self, offset):
        """(line, character column) of an offset."""
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo]

    def char_offset(self, lineno, col):
        if lineno > len(self.starts):
            return len(self.text)
        return min(self.starts[lineno - 1] + col, len(self.text))

    def end(self, node):
        return self.offset(node.end_lineno, node.end_col_offset)


def apply_edits(text, edits):
    """Apply (start, end, replacement) edits; overlapping ones after the first are dropped."""
    out, pos = [], 0
    for start, end, new in sorted(set(edits)):
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------
# The analysis of one module


def _name(node):
    """`Op` for both `Op` and `pytensor.graph.op.Op`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    if isinstance(node, ast.Call):
        return _name(node.func)
    return ""


def _is_super_call(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _positional(func):
    a = func.args
    return list(getattr(a, "posonlyargs", [])) + list(a.args)


def _plain_signature(func, n):
    """True when `func` takes exactly n plain positional parameters (no defaults, *args, keyword-only)."""
    a = func.args
    return (not getattr(a, "posonlyargs", []) and len(a.args) == n and not a.vararg and not a.kwonlyargs
            and not a.kwarg and not a.defaults)


def _names_in(node):
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.arg):
            names.add(sub.arg)
    return names


def _mentions_none(func):
    return any(isinstance(sub, ast.Constant) and sub.value is None for sub in ast.walk(func))


def self_calls(cls, name):
    """True when a method of `cls` calls `self.<name>(...)` (renaming the method would break that call)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" for n in ast.walk(cls))


def class_table(tree):
    """(class name, base names, method names) for every class of a module."""
    return [(node.name, [_name(b) for b in node.bases],
             {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))})
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]


def op_classes(tables):
    """Names of Op classes across modules: bases followed to a fixed point."""
    found = set()
    classes = [c for table in tables for c in table]
    changed = True
    while changed:
        changed = False
        for name, bases, methods in classes:
            if name in found:
                continue
            if (any(b.endswith("Op") or b in KNOWN_OP_BASES or b in found for b in bases)
                    or OP_METHODS & methods):
                found.add(name)
                changed = True
    return found


def module_libraries(tree):
    libs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            libs |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            libs.add(node.module.split(".")[0])
    return [lib for lib in LIBRARIES if lib in libs]


class Finding:
    def __init__(self, line, col, code, message, edits=(), fixable=False):
        self.line, self.col, self.code, self.message = line, col, code, message
        self.edits, self.fixable = list(edits), fixable
        self.path = self.cell = self.library = None

    def as_dict(self, base_url=BASE_URL):
        rule = RULES[self.code]
        return {"path": self.path, "cell": self.cell, "line": self.line, "column": self.col, "code": self.code,
                "name": rule.name, "message": self.message, "url": rule.url(base_url), "fixable": self.fixable,
                "note": rule.note, "library": self.library}


class Analyzer:
    """Findings of one module, each with the edits that fix it (empty when the fix is not mechanical)."""

    def __init__(self, tree, text, op_names, libraries):
        self.tree, self.src, self.op_names = tree, text, op_names
        self.fix_ok = not libraries or "pytensor" in libraries  # never rewrite Aesara/Theano code to PyTensor 3
        self.library_note = "" if self.fix_ok else f" [{libraries[0].capitalize()} code: port it to PyTensor first]"
        self.found = []
        self.classes = []  # stack of (ClassDef, is Op, {method: fix context})
        self.methods = []  # stack of per-function context dicts
        self.imports, self.modules, self.star_gradient = {}, {}, False
        self.confident = True  # False while planning a class that is an Op only by its method names
        self.pytensor_module = "pytensor" in libraries
        self._read_imports()
        self.bound = self._bound_names()

    # -- bookkeeping --------------------------------------------------------------------------------------
    def add(self, node, code, message=None, edits=(), line=None, col=None, **fmt):
        rule = RULES[code]
        text = (message or rule.summary).format(**fmt)
        edits = list(edits) if self.fix_ok and self.confident else []
        line = line or node.lineno
        col = col if col is not None else node.col_offset
        col = self.src.offset(line, col) - self.src.starts[line - 1]  # UTF-8 bytes to characters
        self.found.append(Finding(line, col + 1, code, text + ("" if rule.note else self.library_note), edits,
                                  bool(edits)))

    def _read_imports(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.modules[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.modules[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name == "*":
                        self.star_gradient |= node.module in GRADIENT_MODULES
                        continue
                    local = a.asname or a.name
                    if node.module.split(".")[0] in LIBRARIES:
                        self.imports[local] = (node.module, a.name)
                        self.modules[local] = f"{node.module}.{a.name}"

    def _bound_names(self):
        """Names a module binds other than by importing them from PyTensor (methods of classes excluded)."""
        bound = set()

        stack = [(self.tree, False)]  # iterative: a generated formula can be thousands of levels deep
        while stack:
            node, in_class = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not in_class:
                    bound.add(child.name)
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    bound.add(child.id)
                elif isinstance(child, ast.arg):
                    bound.add(child.arg)
                elif isinstance(child, (ast.Import, ast.ImportFrom)):
                    for a in child.names:
                        if isinstance(child, ast.ImportFrom) and child.module in GRADIENT_MODULES:
                            continue
                        bound.add((a.asname or a.name).split(".")[0])
                stack.append((child, isinstance(child, ast.ClassDef)))
        return bound

    def qualified(self, node):
        """Dotted name of an expression through the module's imports, e.g. `pytensor.gradient.Lop`."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else ""
        return ""

    def finish(self):
        """Findings not suppressed by a marker. A legacy name still used on a kept line keeps its import; the
        fixed uses then get the new name added to that import."""
        kept = [f for f in self.found if suppressed(self.src, f)]
        found = [f for f in self.found if f not in kept]
        for legacy, new in NEW_NAMES.items():
            uses = [f for f in self.found if getattr(f, "use_of", None) == legacy]
            imports = [f for f in found if getattr(f, "import_of", None) == legacy]
            if imports and not uses:  # a re-export (or a dead import): renaming it would change an API
                for imp in imports:
                    imp.edits, imp.fixable = [], False
                    imp.message += (f"; not fixed: `{legacy}` is not used in this module (a re-export? "
                                    f"rename or drop it by hand)")
                continue
            if not imports or all(u.fixable and u not in kept for u in uses):
                continue
            where = ", ".join(str(u.line) for u in uses if u in kept or not u.fixable)
            for imp in imports:
                imp.edits, imp.fixable = [], False
                imp.message += f"; not fixed: still used as legacy on line(s) {where}"
            first_fixed = next((u for u in uses if u.fixable and u not in kept), None)
            imported = any(m in GRADIENT_MODULES and o == new and n == new for n, (m, o) in self.imports.items())
            if first_fixed is not None and not imported and imports[0].token_end is not None:
                first_fixed.edits.append((imports[0].token_end,) * 2 + (f", {new}",))
        return found

    # -- token positions ----------------------------------------------------------------------------------
    def def_name_span(self, func):
        start = self.src.offset(func.lineno, func.col_offset)
        m = re.compile(r"(?:async\s+)?def\s+").match(self.src.text, start)
        return (m.end(), m.end() + len(func.name)) if m else None

    def attr_span(self, node):
        m = re.compile(r"(?:\s|\\\r?\n)*\.(?:\s|\\\r?\n)*").match(self.src.text, self.src.end(node.value))
        if m and self.src.text.startswith(node.attr, m.end()):
            return m.end(), m.end() + len(node.attr)
        return None

    def rename(self, span, new):
        return [(span[0], span[1], new)] if span else []

    def delete_item(self, items, i):
        """Edits deleting items[i] (not the last) of an argument or parameter list, with its comma."""
        s, nxt = self.src, items[i + 1]
        start, stop = s.start(items[i]), s.start(nxt)
        line_start = s.starts[items[i].lineno - 1]
        if items[i].lineno != nxt.lineno and not s.text[line_start:start].strip():
            start, stop = line_start, s.starts[nxt.lineno - 1]  # the item alone on its line: drop the line
        return [(start, stop, "")]

    # -- classes and methods ------------------------------------------------------------------------------
    def is_op(self, node):
        bases = [_name(b) for b in node.bases]
        methods = {i.name for i in node.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return (node.name in self.op_names or bool(OP_METHODS & methods)
                or any(b.endswith("Op") or b in KNOWN_OP_BASES or b in self.op_names for b in bases))

    def run(self):
        """Visit every node, depth first, without recursion (a long generated formula is a very deep tree)."""
        stack = [(self.tree, False)]
        while stack:
            node, leaving = stack.pop()
            if leaving:
                if isinstance(node, ast.ClassDef):
                    self.classes.pop()
                else:
                    self.methods.pop()
                continue
            enter = getattr(self, "enter_" + type(node).__name__, None)
            if enter is not None:
                enter(node)
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                stack.append((node, True))
            stack.extend((child, False) for child in reversed(list(ast.iter_child_nodes(node))))

    def enter_ClassDef(self, node):
        is_op = self.is_op(node)
        plans = {}
        if is_op:
            # An Op by its bases, or in a module that imports PyTensor: fix it. Only by its method names (a
            # `perform` and a `grad`) in a module that does not import PyTensor: report it, but rewrite nothing.
            bases = [_name(b) for b in node.bases]
            self.confident = self.pytensor_module or any(
                b.endswith("Op") or b in KNOWN_OP_BASES or b in self.op_names for b in bases)
            plans = self.plan_class(node)
            if not self.confident:
                plans = {}
                for f in self.found:
                    if node.lineno <= f.line <= node.end_lineno and f.code[:4] in ("LAD1", "LAD4"):
                        f.message += ("; not fixed: not sure this class is a PyTensor Op (its module does not "
                                      "import PyTensor)")
            self.confident = True
        self.classes.append((node, is_op, plans))

    def plan_class(self, node):
        """Report the class's legacy methods; return {method node: context} for the methods being fixed."""
        defs = {i.name: i for i in node.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assigned = {}
        for item in node.body:
            if isinstance(item, ast.Assign):
                for target in item.targets:
                    if isinstance(target, ast.Name):
                        assigned[target.id] = target
        has = set(defs) | set(assigned)
        scalar = " (a ScalarOp subclass: PyTensor gives no warning for it)" if {
            _name(b) for b in node.bases} & SCALAR_BASES else ""
        plans = {}

        def kept(name, new):
            where = defs.get(name) or assigned[name]
            self.add(where, "LAD900", name=name, new=new)

        # grad(self, inputs, output_grads)
        if "grad" in has:
            func = defs.get("grad")
            if "pullback" in has:
                if func is None or len(_positional(func)) >= 3 or func.args.vararg:
                    kept("grad", "pullback")
            elif func is None:
                self.add(assigned["grad"], "LAD101", "`grad = ...` in an Op's class body: write a method "
                         "`pullback(self, inputs, outputs, cotangents)` (the signature changed)" + scalar)
            elif len(_positional(func)) >= 3 or func.args.vararg:
                if _plain_signature(func, 3) and "L_op" not in has and not self_calls(node, "grad"):
                    out = self.fresh_name(func)
                    edits = self.rename(self.def_name_span(func), "pullback")
                    edits += [(self.src.start(func.args.args[2]),) * 2 + (f"{out}, ",)]
                    plans[func] = {"kind": "grad", "outputs": out}
                    self.add(func, "LAD101", RULES["LAD101"].summary.replace("outputs", out) + scalar, edits)
                else:
                    why = ("also defines `L_op`" if "L_op" in has else "the class calls `self.grad(...)`"
                           if self_calls(node, "grad") else "its signature is not (self, inputs, output_grads)")
                    self.add(func, "LAD101", RULES["LAD101"].summary + scalar + f"; not fixed: {why}")
        # L_op(self, inputs, outputs, output_grads)
        if "L_op" in has:
            where = defs.get("L_op") or assigned["L_op"]
            if "pullback" in has:
                kept("L_op", "pullback")
            else:
                span = self.def_name_span(where) if isinstance(where, ast.FunctionDef) else (
                    self.src.start(where), self.src.end(where))
                if isinstance(where, ast.FunctionDef):
                    plans[where] = {"kind": "L_op"}
                self.add(where, "LAD102", RULES["LAD102"].summary + scalar, self.rename(span, "pullback"))
        # R_op(self, inputs, eval_points)
        if "R_op" in has:
            func = defs.get("R_op")
            if "pushforward" in has:
                kept("R_op", "pushforward")
            elif func is None:
                self.add(assigned["R_op"], "LAD103", "`R_op = ...` in an Op's class body: write a method "
                         "`pushforward(self, inputs, outputs, tangents)` (the signature changed)")
            elif _plain_signature(func, 3) and not _mentions_none(func) and not self_calls(node, "R_op"):
                out = self.fresh_name(func)
                edits = self.rename(self.def_name_span(func), "pushforward")
                edits += [(self.src.start(func.args.args[2]),) * 2 + (f"{out}, ",)]
                plans[func] = {"kind": "R_op", "outputs": out}
                self.add(func, "LAD103", RULES["LAD103"].summary.replace("outputs", out), edits)
            else:
                why = ("it uses `None`, and pushforward gets `DisconnectedType` variables instead of `None` "
                       "(and returns them)") if _mentions_none(func) else (
                    "the class calls `self.R_op(...)`" if self_calls(node, "R_op")
                    else "its signature is not (self, inputs, eval_points)")
                self.add(func, "LAD103", RULES["LAD103"].summary + f"; not fixed: {why}")
        # infer_shape(self, fgraph, node, shapes): PyTensor warns when the signature has four parameters.
        func = defs.get("infer_shape")
        if func is not None:
            a = func.args
            count = (len(getattr(a, "posonlyargs", [])) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg)
                     + bool(a.kwarg))
            if count == 4:
                fixable = _plain_signature(func, 4)
                calls = []
                if fixable:
                    fgraph = a.args[1].arg
                    uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == fgraph]
                    for call in ast.walk(func):
                        if (isinstance(call, ast.Call) and _name(call.func) == "infer_shape"
                                and isinstance(call.func, ast.Attribute)):
                            for i, arg in enumerate(call.args[:-1]):
                                if isinstance(arg, ast.Name) and arg.id == fgraph:
                                    calls.append((call.args, i))
                    fixable = len(uses) == len(calls)
                if fixable:
                    edits = self.delete_item(a.args, 1)
                    for args, i in calls:
                        edits += self.delete_item(args, i)
                    self.add(func, "LAD401", edits=edits)
                else:
                    self.add(func, "LAD401", RULES["LAD401"].summary + "; not fixed: the method uses the "
                             "parameter, or its signature is not (self, fgraph, node, shapes)")
        return plans

    def fresh_name(self, func):
        used = _names_in(func)
        return next(n for n in ("outputs", "outs", "node_outputs", "outputs_", "outputs__") if n not in used)

    def enter_FunctionDef(self, node):
        plans = self.classes[-1][2] if self.classes and self.classes[-1][0].body.count(node) else {}
        self.methods.append(dict(plans.get(node, {}), name=node.name))

    enter_AsyncFunctionDef = enter_FunctionDef

    # -- names: Lop / Rop ---------------------------------------------------------------------------------
    def lop_rop(self, node):
        """'Lop'/'Rop' when a Name or Attribute refers to the legacy function, else None."""
        if isinstance(node, ast.Name):
            if node.id in self.imports and self.imports[node.id][1] in NEW_NAMES:
                return self.imports[node.id][1]
            return node.id if node.id in NEW_NAMES else None
        if isinstance(node, ast.Attribute) and node.attr in NEW_NAMES:
            return node.attr
        return None

    def enter_ImportFrom(self, node):
        if node.module and node.module.split(".")[0] in LIBRARIES:
            legacy = [a for a in node.names if a.name in NEW_NAMES]
            for a in legacy:
                edits = []
                if node.module in GRADIENT_MODULES and (a.asname or NEW_NAMES[a.name] not in self.bound):
                    edits = self.import_edits(node, a)
                self.add(node, f"LAD20{1 if a.name == 'Lop' else 2}",
                         f"`{a.name}` is deprecated: import `{NEW_NAMES[a.name]}`" + self.clash(a), edits)
                if not a.asname and edits:
                    self.found[-1].import_of = a.name
                    # the end of the renamed token (None when the name is dropped: the new one is imported)
                    self.found[-1].token_end = edits[0][1] if edits[0][2] else None

    def clash(self, alias):
        if alias.asname or NEW_NAMES[alias.name] not in self.bound:
            return ""
        return f"; not fixed: the module already uses the name `{NEW_NAMES[alias.name]}`"

    def import_edits(self, node, alias):
        """Rename (or drop, if already imported) one name of a `from ... import` statement."""
        s = self.src
        start, stop = s.start(node), s.end(node)
        tokens = list(tokenize.generate_tokens(io.StringIO(s.text[start:stop]).readline))
        names = []  # (token, next token) for the imported names, not their aliases
        seen_import = False
        for i, tok in enumerate(tokens):
            if tok.type == tokenize.NAME and tok.string == "import":
                seen_import = True
            elif seen_import and tok.type == tokenize.NAME and tokens[i - 1].string != "as":
                names.append(i)
        new = NEW_NAMES[alias.name]
        already = {a.name for a in node.names if not a.asname}
        lines = s.text[start:stop]
        line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", lines)]

        def pos(tok_pos):
            return start + line_starts[tok_pos[0] - 1] + tok_pos[1]

        for i in names:
            if tokens[i].string != alias.name:
                continue
            nxt = tokens[i + 1].string if i + 1 < len(tokens) else ""
            if nxt == "as" or new not in already:
                return [(pos(tokens[i].start), pos(tokens[i].end), new)]
            # `from pytensor.gradient import Lop, pullback`: drop `Lop, `
            if tokens[i + 1].string == ",":
                j = i + 2
                while tokens[j].type in (tokenize.NL, tokenize.COMMENT):
                    j += 1
                return [(pos(tokens[i].start), pos(tokens[j].start), "")]
            k = i - 1  # the last name: drop `, Lop`
            while tokens[k].string != ",":
                k -= 1
            return [(pos(tokens[k].start), pos(tokens[i].end), "")]
        return []

    def enter_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in self.imports:
            module, original = self.imports[node.id]
            if original not in NEW_NAMES or node.id != original:
                return  # an aliased import is reported (and fixed) at the import; its uses need no change
            from_gradient = module in GRADIENT_MODULES
        elif node.id in NEW_NAMES:
            from_gradient = self.star_gradient
        else:
            return
        new = NEW_NAMES[node.id]
        edits = [(self.src.start(node), self.src.end(node), new)] if from_gradient and new not in self.bound else []
        self.add(node, f"LAD20{1 if node.id == 'Lop' else 2}", f"`{node.id}` is deprecated: use `{new}`", edits)
        self.found[-1].use_of = node.id

    def enter_Attribute(self, node):
        if node.attr in NEW_NAMES and isinstance(node.ctx, ast.Load):
            base = self.qualified(node.value)
            edits = self.rename(self.attr_span(node), NEW_NAMES[node.attr]) if base in GRADIENT_MODULES else []
            self.add(node, f"LAD20{1 if node.attr == 'Lop' else 2}",
                     f"`{node.attr}` is deprecated: use `{NEW_NAMES[node.attr]}`", edits,
                     line=node.end_lineno, col=node.end_col_offset - len(node.attr))

    # -- calls ----------------------------------------------------------------------------------------------
    def callee_kind(self, func, call=None):
        if call is not None and _name(func) == "partial" and call.args:  # partial(Rop, ..., eval_points=v)
            return self.callee_kind(call.args[0])
        legacy = self.lop_rop(func)
        if legacy:
            return legacy.lower()
        name = _name(func)
        if name.endswith("OpFromGraph"):
            return "ofg"
        if isinstance(func, ast.Attribute) and _is_super_call(func.value) and name == "__init__":
            if self.classes and any(_name(b).endswith("OpFromGraph") for b in self.classes[-1][0].bases):
                return "ofg"
        if name in ("pullback", "pushforward"):
            q = self.qualified(func)
            if isinstance(func, ast.Name):
                module = self.imports.get(func.id, ("",))[0]
                if module in GRADIENT_MODULES or (func.id not in self.imports and self.star_gradient):
                    return name
            elif q.rsplit(".", 1)[0] in GRADIENT_MODULES:
                return name
        return None

    def enter_Call(self, node):
        kind = self.callee_kind(node.func, node)
        names = {kw.arg for kw in node.keywords if kw.arg}
        for kw in node.keywords:
            if kw.arg in KEYWORDS:
                self.keyword(kw, kw.arg, kind, names, (self.src.offset(kw.lineno, kw.col_offset),) * 2)
            elif kw.arg in MISSPELLED_OVERRIDES and kind == "ofg":
                self.add(kw, "LAD306", name=kw.arg, fix=MISSPELLED_OVERRIDES[kw.arg])
            elif kw.arg is None and isinstance(kw.value, ast.Dict):  # **{"lop_overrides": f}
                for key in kw.value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        if key.value in KEYWORDS:
                            start = self.src.start(key) + 1  # inside the quote
                            self.keyword(key, key.value, kind, names, (start, start))
                        elif key.value in MISSPELLED_OVERRIDES and kind == "ofg":
                            self.add(key, "LAD306", name=key.value, fix=MISSPELLED_OVERRIDES[key.value])
            elif kw.arg == "broadcastable" and _name(node.func) in ("TensorType", "clone"):
                self.add(kw, "LAD402")
        if isinstance(node.func, ast.Attribute):
            self.method_call(node)

    def keyword(self, where, name, kind, present, at):
        code, targets = KEYWORDS[name]
        if name in REPORT_ONLY_FOR and kind not in targets:
            return  # `eval_points=` of some other library's function
        new = targets.get(kind)
        edits = []
        if new and new not in present:
            text = self.src.text
            edits = [(at[0], at[0] + len(name), new)] if text.startswith(name, at[0]) else []
        self.add(where, code, edits=edits)

    def method_call(self, node):
        attr, value = node.func.attr, node.func.value
        context = self.methods[-1] if self.methods else {}
        if attr == "L_op":
            # self.L_op(...) inside a pullback (a compatibility shim) would become a call of itself
            on_self = (isinstance(value, ast.Name) and value.id == "self") or (
                isinstance(value, ast.Call) and _name(value.func) == "type")
            shim = on_self and (context.get("name") == "pullback" or (
                self.classes and "pullback" in {i.name for i in self.classes[-1][0].body
                                                 if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))}))
            edits = [] if shim else self.rename(self.attr_span(node.func), "pullback")
            self.add(node, "LAD204", RULES["LAD204"].summary + ("; not fixed: it is the compatibility call of a "
                     "`pullback` (renaming it would make `pullback` call itself)" if shim else ""), edits=edits,
                     line=node.func.end_lineno, col=node.func.end_col_offset - len(attr))
        elif attr in ("R_op", "grad"):
            if attr == "grad" and not (len(node.args) == 2 and not node.keywords and self.op_like_receiver(value)):
                return
            code = "LAD205" if attr == "R_op" else "LAD203"
            edits = []
            # super().grad(inputs, g) in a grad being renamed: super().pullback(inputs, outputs, g)
            if (_is_super_call(value) and len(node.args) == 2 and "outputs" in context
                    and context["kind"] == ("R_op" if attr == "R_op" else "grad")):
                edits = self.rename(self.attr_span(node.func), "pushforward" if attr == "R_op" else "pullback")
                edits += [(self.src.start(node.args[1]),) * 2 + (f"{context['outputs']}, ",)]
            self.add(node, code, edits=edits, line=node.func.end_lineno,
                     col=node.func.end_col_offset - len(attr))

    def op_like_receiver(self, value):
        """`self`/`super()` in an Op, `node.op`, `op`, `my_op`: an Op, not an optimizer or a module."""
        if isinstance(value, ast.Name):
            if value.id == "self":
                return bool(self.classes and self.classes[-1][1])
            return value.id == "op" or value.id.endswith("_op") or value.id in self.op_names
        if _is_super_call(value):
            return bool(self.classes and self.classes[-1][1])
        if isinstance(value, ast.Attribute):
            return value.attr == "op" or value.attr.endswith("_op")
        if isinstance(value, ast.Call):
            return _name(value.func) in self.op_names or _name(value.func).endswith("Op")
        return False


# ---------------------------------------------------------------------------------------------------------
# Files: Python modules and notebooks


class Unit:
    """One Python text to analyse: a module, or a notebook's code cells (non-code lines blanked)."""

    def __init__(self, text, cells=None):
        self.text = text
        self.cells = cells  # .ipynb: [(cell index, first line in `text`, number of lines)]

    def where(self, line):
        """(cell number or None, line within the cell)."""
        if self.cells is None:
            return None, line
        for index, first, count in self.cells:
            if first <= line < first + count:
                return index, line - first + 1
        return None, line


MAGIC = re.compile(r"^\s*[%!]|\?\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*\{code-cell\}\s*(?P<lang>\S*)")


def _blank_magics(lines):
    if lines and lines[0].lstrip().startswith("%%"):
        return ["" for _ in lines]
    return ["" if MAGIC.search(line) else line for line in lines]


def markdown_unit(text):
    """The code cells of a MyST notebook as one Python text, other lines blanked (line numbers kept)."""
    lines = re.split(r"\r\n|\r|\n", text)
    out = [""] * len(lines)
    i, found = 0, False
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or m["lang"] not in ("", "python", "python3", "ipython", "ipython3"):
            i += 1
            continue
        fence = m["fence"]
        j = i + 1
        body = []
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and not lines[j].strip().strip(fence[0])):
            body.append(lines[j])
            j += 1
        k = 0  # skip the cell's options: `:key: value` lines or a `---` YAML block
        if body and body[0].strip() == "---":
            k = next((n for n in range(1, len(body)) if body[n].strip() == "---"), -1) + 1
        else:
            while k < len(body) and re.match(r"^:\w[\w-]*:", body[k]):
                k += 1
        code = _blank_magics(body[k:])
        out[i + 1 + k:i + 1 + k + len(code)] = code
        found = True
        i = j + 1
    return Unit("\n".join(out)) if found else None


def notebook_unit(nb):
    language = (nb.get("metadata", {}).get("kernelspec", {}).get("language")
                or nb.get("metadata", {}).get("language_info", {}).get("name") or "python")
    if language.lower() != "python":
        return None
    lines, cells = [], []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        code = _blank_magics(source.split("\n"))
        cells.append((index + 1, len(lines) + 1, len(code)))
        lines.extend(code)
    return Unit("\n".join(lines), cells)


class Problem(Exception):
    """A file that cannot be checked; the message says why."""


def read_file(path):
    try:
        info = os.stat(path)
    except OSError as err:
        raise Problem(f"cannot read: {err.strerror or err}")
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else (
            "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file")
        raise Problem(f"skipped: {kind}, not a regular file")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as err:
        raise Problem(f"cannot read: {err.strerror or err}")


def decode(path, data):
    """(text, encoding) of a source file; Problem for binary data or an unknown encoding."""
    if b"\0" in data:
        raise Problem("binary file (contains NUL bytes), not Python source: skipped")
    if path.endswith((".py", ".pyi")):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as err:
            raise Problem(f"cannot decode: {err}")
    else:
        encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError) as err:
        raise Problem(f"cannot decode as {encoding}: {err}")


def load(path):
    """(raw text, encoding, Unit or None, notebook JSON or None) of one file."""
    text, encoding = decode(path, read_file(path))
    if path.endswith(".ipynb"):
        try:
            nb = json.loads(text)
        except ValueError as err:
            raise Problem(f"cannot read notebook JSON: {err}")
        return text, encoding, notebook_unit(nb), nb
    if path.endswith(".md"):
        return text, encoding, markdown_unit(text), None
    return text, encoding, Unit(text), None


def parse(unit, path):
    try:
        return ast.parse(unit.text, filename=path)
    except RecursionError:
        raise Problem("skipped: an expression is nested too deeply for Python's parser (RecursionError, as in "
                      "long generated formulas); check this file by hand")
    except SyntaxError as err:
        cell, line = unit.where(err.lineno or 0)
        where = (f"cell {cell}, " if cell else "") + (f"line {line}: " if err.lineno else "")
        raise Problem(f"cannot parse: {where}{err.msg} (not Python 3 source, or newer syntax than this Python "
                      "reads)")
    except (ValueError, MemoryError) as err:
        raise Problem(f"cannot parse: {err}")


def suppressed(text, finding):
    m = MARKER.search(text.line(finding.line))
    if not m:
        return False
    if not m["codes"]:
        return True
    wanted = {c.strip() for c in m["codes"].split(",") if c.strip()}
    return finding.code in wanted or RULES[finding.code].name in wanted


def analyze(unit, tree, op_names):
    libraries = module_libraries(tree)
    text = Text(unit.text)
    try:
        analyzer = Analyzer(tree, text, op_names, libraries)
        analyzer.run()
        findings = analyzer.finish()
    except RecursionError:
        raise Problem("skipped: an expression is nested too deeply to analyse (RecursionError, as in long "
                      "generated formulas); check this file by hand")
    for f in findings:
        f.library = libraries[0] if libraries else None
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    return findings


def check_source(source, filename="<string>", op_names=frozenset()):
    """Findings in one Python source text: [Finding]. Raises Problem when it cannot be checked."""
    if isinstance(source, bytes):
        source, _ = decode(filename if filename.endswith((".py", ".pyi")) else filename + ".py", source)
    unit = Unit(source)
    tree = parse(unit, filename)
    if SKIP_FILE.search(source):
        return []
    names = set(op_names) | op_classes([class_table(tree)])
    return analyze(unit, tree, names)


def remap(edits, source, target, line_map):
    """Edits at offsets of `source` (a Text) moved to `target` (a Text): line_map(source line) -> target line.

    Notebook units blank the lines that are not code; the code lines themselves are identical, so a position
    keeps its column and changes only its line."""
    moved = []
    for start, end, new in edits:
        (l1, c1), (l2, c2) = source.position(start), source.position(end)
        moved.append((target.char_offset(line_map(l1), c1), target.char_offset(line_map(l2), c2), new))
    return moved


NB_STYLES = [dict(indent=1, ensure_ascii=False, sort_keys=True), dict(indent=1, ensure_ascii=False)]


def fixed_text(path, text, unit, nb, findings):
    """The file's new text with every fix applied, or None when it cannot be written back faithfully."""
    edits = [e for f in findings if f.fixable for e in f.edits]
    if not edits:
        return text
    source = Text(unit.text)
    if nb is None:  # .py, and .md whose unit keeps the file's line numbers
        return apply_edits(text, remap(edits, source, Text(text), lambda line: line))
    style = next((st for st in NB_STYLES for end in ("\n", "") if json.dumps(nb, **st) + end == text), None)
    if style is None:
        return None
    code_cells = [c for c in nb["cells"] if c.get("cell_type") == "code"]
    for (index, first, count), cell in zip(unit.cells, code_cells):
        mine = [e for e in edits if first <= source.position(e[0])[0] < first + count]
        if not mine:
            continue
        old = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new = apply_edits(old, remap(mine, source, Text(old), lambda line, first=first: line - first + 1))
        cell["source"] = new.splitlines(True) if isinstance(cell["source"], list) else new
    return json.dumps(nb, **style) + ("\n" if text.endswith("\n") else "")


def reparse(path, new):
    """Parse a fixed text as the checker will read it next time (SyntaxError if the fix broke it)."""
    if path.endswith(".ipynb"):
        unit = notebook_unit(json.loads(new))
    elif path.endswith(".md"):
        unit = markdown_unit(new)
    else:
        unit = Unit(new)
    ast.parse(unit.text if unit else "")


# ---------------------------------------------------------------------------------------------------------
# Configuration: [tool.check-legacy-autodiff] in pyproject.toml


def _toml_section(text, section):
    """The keys of one table of a TOML file; tomllib when there is one (3.11+), else a small reader."""
    try:
        import tomllib
    except ImportError:
        tomllib = None
    if tomllib is not None:
        data = tomllib.loads(text)
        for part in section.split("."):
            data = data.get(part, {}) if isinstance(data, dict) else {}
        return data
    lines, inside = [], False
    for line in text.splitlines():
        if re.match(r"^\s*\[", line) and not (inside and lines and _open_brackets(lines)):
            inside = line.strip() == f"[{section}]"
            continue
        if inside:
            lines.append(line)
    data, key, value = {}, None, ""
    for line in lines + ["__end__ = 0"]:
        m = re.match(r"^\s*([\w-]+|\"[^\"]+\")\s*=\s*(.*)$", line)
        if m and (key is None or not _open_brackets([value])):
            if key is not None:
                data[key] = _toml_value(value)
            key, value = m[1].strip('"'), m[2]
        elif key is not None:
            value += "\n" + line
    return data


def _strip_comment(text):
    out, quote = [], None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out)


def _open_brackets(values):
    text = "".join(_strip_comment(v) for v in "\n".join(values).split("\n"))
    return text.count("[") > text.count("]")


def _toml_value(text):
    text = "\n".join(_strip_comment(line) for line in text.split("\n")).strip()
    text = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", text))
    return ast.literal_eval(text)


def find_config(paths):
    """(path, section) of the nearest pyproject.toml with our section, above the first PATH."""
    start = os.path.abspath(paths[0] if paths else ".")
    directory = start if os.path.isdir(start) else os.path.dirname(start)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            section = read_config(candidate)
            if section:
                return candidate, section
        parent = os.path.dirname(directory)
        if parent == directory:
            return None, {}
        directory = parent


def read_config(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return _toml_section(handle.read(), f"tool.{TOOL}")
    except (OSError, ValueError, SyntaxError) as err:
        raise Problem(f"cannot read configuration: {err}")


def _list(value):
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    return [v.strip() for v in value if v.strip()]


def expand_codes(items, option):
    """Codes from codes, prefixes (LAD1), rule names and ALL; Problem for an unknown one."""
    codes = set()
    for item in items:
        if item in BY_NAME:
            codes.add(BY_NAME[item])
            continue
        key = item.upper()
        matched = set(RULES) if key == "ALL" else {c for c in RULES if key.startswith("LAD") and c.startswith(key)}
        if not matched:
            raise Problem(f"{option}: unknown rule `{item}` (give codes like LAD101, prefixes like LAD1, or "
                          "names like op-grad)")
        codes |= matched
    return codes


# ---------------------------------------------------------------------------------------------------------
# Walking the tree


def excluded(path, patterns, root):
    rel = os.path.relpath(path, root).replace(os.sep, "/") if root else path.replace(os.sep, "/")
    parts = rel.split("/")
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(os.path.basename(path), p)
               or any(fnmatch.fnmatch(part, p) for part in parts if part not in ("..", "."))
               for p in patterns)


SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb", ".md")


def collect(paths, excludes, config_root, default_excludes, problems, skipped_dirs):
    files = []
    for path in paths:
        if os.path.isdir(path):
            def onerror(err, problems=problems):
                problems.append((err.filename or path, f"cannot read directory: {err.strerror or err}"))

            for root, dirs, names in os.walk(path, onerror=onerror):
                keep = []
                for d in sorted(dirs):
                    full = os.path.join(root, d)
                    if default_excludes and (d in DEFAULT_EXCLUDES or d.startswith(".")
                                             or os.path.exists(os.path.join(full, "pyvenv.cfg"))):
                        if d not in QUIET_EXCLUDES:
                            venv = d not in DEFAULT_EXCLUDES and not d.startswith(".")
                            skipped_dirs[d + (" (a virtualenv)" if venv else "")] += 1
                    elif excluded(full, excludes, config_root):
                        pass
                    else:
                        keep.append(d)
                dirs[:] = keep
                for name in sorted(names):
                    full = os.path.join(root, name)
                    if name.endswith(SOURCE_SUFFIXES) and not excluded(full, excludes, config_root):
                        files.append(full)
        elif os.path.lexists(path):
            if not excluded(path, excludes, config_root):
                files.append(path)
        else:
            problems.append((path, "no such file or directory: skipped"))
    return files


# ---------------------------------------------------------------------------------------------------------
# Output


def gh_escape(text, prop=False):
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def where_text(f):
    return f"{f.path}:cell {f.cell}:{f.line}:{f.col}" if f.cell else f"{f.path}:{f.line}:{f.col}"


def main(argv=None):
    try:
        return _main(argv)
    except BrokenPipeError:
        # `... | head`: stop quietly (and keep Python from complaining when it flushes stdout at exit)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


def _main(argv=None):
    # The AST of a long generated formula is deep: room for a few thousand levels (the default is 1000).
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 6000))
    parser = argparse.ArgumentParser(
        prog="check_legacy_autodiff.py",
        description="Report legacy PyTensor autodiff code (Op.grad/L_op/R_op, Lop/Rop, old keywords, "
                    "infer_shape's fgraph, TensorType(broadcastable=)) and fix what is mechanical.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join([
            "skipped while walking a tree (a PATH given explicitly is always read):",
            "  " + ", ".join(DEFAULT_EXCLUDES[:12]) + ",",
            "  " + ", ".join(DEFAULT_EXCLUDES[12:]) + ",",
            "  any hidden directory and any virtualenv (a folder with pyvenv.cfg)",
            "markers:",
            "  # legacy-autodiff: ok                  this line: no rule",
            "  # legacy-autodiff: ok[LAD101,LAD204]   this line: not these rules (codes or names)",
            "  # legacy-autodiff: skip-file           anywhere in a file: skip the file",
            f"configuration: [tool.{TOOL}] in pyproject.toml, keys select, ignore, exclude,",
            "  ignore-library, base-url",
            "exit status: 0 clean; 1 legacy code found (or left after --fix); 2 usage error, or an",
            "  input that could not be read or parsed (named on stderr; the run goes on)",
            f"rules and documentation: {BASE_URL}{PAGE}",
        ]),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    parser.add_argument("--fix", action="store_true", help="rewrite the mechanical cases in place")
    parser.add_argument("--diff", action="store_true", help="print what --fix would change; write nothing")
    parser.add_argument("--select", metavar="CODES",
                        help="only these rules: codes, prefixes (LAD1) or names, comma-separated")
    parser.add_argument("--ignore", metavar="CODES", help="skip these rules (added to the configuration's)")
    parser.add_argument("--exclude", metavar="PATTERNS",
                        help="glob patterns of files or directories to skip, comma-separated")
    parser.add_argument("--no-default-excludes", action="store_true", help="also walk the directories listed below")
    parser.add_argument("--ignore-library", metavar="LIB",
                        help="skip modules that import only this library: theano, aesara")
    parser.add_argument("--output-format", "--format", choices=["text", "json", "github"], default=None,
                        metavar="FORMAT",
                        help="text (default), json, or github (GitHub Actions annotations)")
    parser.add_argument("--statistics", action="store_true", help="print a count per rule instead of findings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when legacy code is found")
    parser.add_argument("--config", metavar="FILE",
                        help="a pyproject.toml to read (default: the nearest above the first PATH)")
    parser.add_argument("--no-config", action="store_true", help="ignore pyproject.toml")
    parser.add_argument("--base-url", metavar="URL", default=None,
                        help=f"site the rule URLs point to (default {BASE_URL})")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    args = parser.parse_args(argv)
    if args.fix and args.diff:
        parser.error("--fix and --diff exclude each other")
    paths = args.paths or ["."]

    try:
        config_path, config = (None, {}) if args.no_config else (
            (args.config, read_config(args.config)) if args.config else find_config(paths))
        unknown = set(config) - {"select", "ignore", "exclude", "ignore-library", "base-url"}
        if unknown:
            raise Problem(f"{config_path}: unknown key(s) in [tool.{TOOL}]: {', '.join(sorted(unknown))}")
        select = expand_codes(_list(args.select if args.select is not None else config.get("select", "ALL")),
                              "--select")
        ignore = expand_codes(_list(config.get("ignore")) + _list(args.ignore), "--ignore")
        ignore_libs = set(_list(config.get("ignore-library")) + _list(args.ignore_library))
        if ignore_libs - set(LIBRARIES):
            raise Problem(f"--ignore-library: unknown library {sorted(ignore_libs - set(LIBRARIES))}")
    except Problem as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    base_url = args.base_url or config.get("base-url") or BASE_URL
    base_url = base_url if base_url.endswith("/") else base_url + "/"
    fmt = args.output_format or "text"
    config_root = os.path.dirname(os.path.abspath(config_path)) if config_path else None
    excludes = _list(config.get("exclude")) + _list(args.exclude)
    wanted = select - ignore

    problems, skipped_dirs = [], Counter()
    files = collect(paths, excludes, config_root, not args.no_default_excludes, problems, skipped_dirs)

    # First pass: parse everything, and learn the tree's Op classes (a base may be defined in another file).
    loaded = []
    for path in files:
        try:
            text, encoding, unit, nb = load(path)
            tree = parse(unit, path) if unit is not None else None
        except Problem as err:
            problems.append((path, str(err)))
            continue
        except Exception as err:  # never a traceback: name the file and go on
            problems.append((path, f"internal error while reading ({type(err).__name__}: {err}); please report"))
            continue
        loaded.append((path, text, encoding, unit, nb, tree))
    tables = [class_table(t) for *_, t in loaded if t is not None]
    # Files given one by one (as pre-commit does): read their siblings' classes too, for bases defined there.
    seen = {os.path.abspath(p) for p in files}
    for directory in sorted({os.path.dirname(os.path.abspath(p)) for p in paths if os.path.isfile(p)}):
        for name in sorted(os.listdir(directory)) if os.access(directory, os.R_OK) else []:
            sibling = os.path.join(directory, name)
            if name.endswith(".py") and sibling not in seen:
                try:
                    tables.append(class_table(parse(Unit(decode(sibling, read_file(sibling))[0]), sibling)))
                except (Problem, OSError):
                    pass
    op_names = op_classes(tables)

    findings, diffs, n_fixed, fixed_files = [], [], 0, 0
    for path, text, encoding, unit, nb, tree in loaded:
        if tree is None or SKIP_FILE.search(unit.text):
            continue
        try:
            found = analyze(unit, tree, op_names)
        except Problem as err:
            problems.append((path, str(err)))
            continue
        except Exception as err:
            problems.append((path, f"internal error while checking ({type(err).__name__}: {err}); please report"))
            continue
        found = [f for f in found if f.code in wanted and not (f.library in ignore_libs)]
        for f in found:
            f.path = path
            f.cell, f.line = unit.where(f.line)
        if args.fix or args.diff:
            new = fixed_text(path, text, unit, nb, found) if any(f.fixable for f in found) else text
            if new is None:
                problems.append((path, "not fixed: the notebook's JSON is not laid out as Jupyter writes it; "
                                       "fix the findings by hand"))
                new = text
            elif new != text:
                try:
                    reparse(path, new)
                except (SyntaxError, ValueError):
                    problems.append((path, "not fixed: the fixed text did not parse (please report this)"))
                    new = text
            if new == text:
                for f in found:
                    f.fixable = False
            if new != text:
                fixed_here = [f for f in found if f.fixable]
                n_fixed += len(fixed_here)
                fixed_files += 1
                if args.diff:
                    diffs.append("".join(difflib.unified_diff(
                        text.splitlines(True), new.splitlines(True), fromfile=f"a/{path}", tofile=f"b/{path}")))
                else:
                    try:
                        with open(path, "wb") as handle:
                            handle.write(new.encode(encoding))
                    except OSError as err:
                        problems.append((path, f"cannot write: {err.strerror or err}"))
                        continue
                if args.fix:
                    found = [f for f in found if not f.fixable]
        findings.extend(found)

    work = [f for f in findings if not RULES[f.code].note]
    notes = [f for f in findings if RULES[f.code].note]
    problems.sort()
    skipped_text = ", ".join(f"{d}/ ({n})" if n > 1 else f"{d}/" for d, n in sorted(skipped_dirs.items()))
    out = sys.stdout

    if fmt == "json":
        json.dump({
            "version": __version__,
            "findings": [f.as_dict(base_url) for f in findings],
            "errors": [{"path": p, "message": m} for p, m in problems],
            "skipped_directories": dict(sorted(skipped_dirs.items())),
            "statistics": {c: n for c, n in sorted(Counter(f.code for f in findings).items())},
            "summary": {"files": len(files), "legacy": len(work), "kept": len(notes),
                        "fixable": sum(f.fixable for f in work), "fixed": n_fixed if args.fix else 0,
                        "errors": len(problems)},
        }, out, indent=2)
        out.write("\n")
    elif fmt == "github":
        for f in findings:
            level = "notice" if RULES[f.code].note else "warning"
            line = f"line={f.line},col={f.col}," if f.cell is None else ""
            out.write(f"::{level} file={gh_escape(f.path, True)},{line}title={f.code}::"
                      f"{gh_escape(f.message)} ({RULES[f.code].url(base_url)})\n")
        for p, m in problems:
            out.write(f"::error file={gh_escape(p, True)}::{gh_escape(m)}\n")
    else:
        if args.diff:
            out.write("".join(diffs))
        elif args.statistics:
            for code, n in sorted(Counter(f.code for f in findings).items(), key=lambda kv: (-kv[1], kv[0])):
                fixable = "[*]" if any(f.fixable for f in findings if f.code == code) else "   "
                out.write(f"{n:5d}  {code}  {fixable} {RULES[code].name}\n")
        else:
            for f in findings:
                tag = " [*]" if f.fixable and not args.fix else ""
                note = "note: " if RULES[f.code].note else ""
                out.write(f"{where_text(f)}: {f.code}{tag} {note}{f.message} ({RULES[f.code].url(base_url)})\n")
        for p, m in problems:
            print(f"{p}: {m}", file=sys.stderr)
        summary = sys.stderr if args.diff else out
        if args.fix or args.diff:
            verb = "fixed" if args.fix else "would fix"
            left = [f for f in work if not f.fixable]
            print(f"{verb} {n_fixed} legacy use(s) in {fixed_files} file(s); {len(left)} left to fix by hand "
                  f"({len(notes)} kept for PyTensor < 3) in {len(files)} file(s) checked", file=summary)
        else:
            fixable = sum(f.fixable for f in work)
            print(f"{len(work)} legacy use(s) ({fixable} fixable with --fix), {len(notes)} kept for "
                  f"PyTensor < 3, in {len(files)} file(s)", file=summary)
        if problems:
            print(f"{len(problems)} input(s) could not be checked (listed on stderr)", file=summary)
        if skipped_text:
            print(f"not scanned (default excludes; --no-default-excludes scans them): {skipped_text}", file=summary)
    out.flush()
    if problems:
        return 2
    if args.diff:
        return 1 if work and not args.exit_zero else 0
    return 1 if work and not args.exit_zero else 0


if __name__ == "__main__":
    sys.exit(main())
