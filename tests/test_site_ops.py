"""Every Op rule written on the site handles a disconnected tangent or cotangent (issue 15).

PyTensor passes a `DisconnectedType` variable, never `None`, for a tangent that does not reach an input, and for
the cotangent of an output the cost does not use (only when the Op has several outputs: a single-output pullback
is never called then). Arithmetic on that variable raises a TypeError, so:

- every `pushforward` (and legacy `R_op`, which gets `None`) tests for it, delegates to another rule, or is a
  planted bug marked `# BUG`;
- every `pullback` of an Op with several outputs tests for it.

The pages execute each Op with disconnected arguments (`check_disconnected`, `check_disconnected_rules`); this
test reads the code cells of every page, so a new rule without the guard is caught before a reader meets it.
"""

import ast
import re
from pathlib import Path

import pytest

from docsite import ROOT

CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
GUARDS = ("DisconnectedType", "is None")  # plus any function on the page that tests for DisconnectedType
DELEGATES = re.compile(r"super\(\)|self\.(pullback|pushforward|L_op|grad)\(")
# Rules that may lack the guard, each with its reason (none today).
KNOWN_UNGUARDED = set()


def code_of(page):
    """The page's code cells as one module (cell options and front matter removed)."""
    cells = []
    for cell in CODE_CELL.findall(page.read_text()):
        lines = cell.splitlines()
        if lines and lines[0] == "---":  # a YAML block of cell options
            lines = lines[lines.index("---", 1) + 1:]
        cells.append("\n".join(line for line in lines if not line.startswith(":")))
    return "\n\n".join(cells)


def n_outputs(cls, classes):
    """Outputs of the Apply that make_node builds, when it is a list literal (searching base classes too)."""
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef) and node.name == "make_node":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Apply" and len(call.args) == 3:
                    outputs = call.args[2]
                    return len(outputs.elts) if isinstance(outputs, ast.List) else None
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            return n_outputs(classes[base.id], classes)
    return None


def guard_helpers(tree, source):
    """Names of the page's functions that test for DisconnectedType, directly or through another such function."""
    functions = {f.name: ast.get_source_segment(source, f) for f in tree.body if isinstance(f, ast.FunctionDef)}
    found = set()
    while True:
        new = {name for name, body in functions.items() if name not in found
               and any(re.search(rf"\b{re.escape(g)}\b", body) for g in (*GUARDS, *found))}
        if not new:
            return found
        found |= new


def rules():
    for page in sorted(ROOT.glob("*/*.md")) + sorted(ROOT.glob("*.md")):
        source = code_of(page)
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # pages whose cells are not one module (magics): none define Ops today
        guards = (*GUARDS, *guard_helpers(tree, source))
        classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
        for cls in classes.values():
            for method in cls.body:
                if isinstance(method, ast.FunctionDef) and method.name in ("pushforward", "R_op", "pullback"):
                    rel = page.relative_to(ROOT).as_posix()
                    body = "\n".join(source.splitlines()[method.lineno - 1:method.end_lineno])  # with comments
                    yield f"{rel}:{cls.name}.{method.name}", body, n_outputs(cls, classes), guards


ALL_RULES = list(rules())


def test_the_scan_finds_the_rules():
    names = {name for name, *_ in ALL_RULES}
    assert {"notebooks/exp-op.md:Exp.pushforward", "guides/migration.md:Decay.pullback",
            "guides/testing-rules.md:Polar.pullback"} <= names


@pytest.mark.parametrize("name, body, outputs, guards", ALL_RULES, ids=[name for name, *_ in ALL_RULES])
def test_rule_guards_disconnected(name, body, outputs, guards):
    if name in KNOWN_UNGUARDED or "# BUG" in body or DELEGATES.search(body):  # a planted bug is marked
        return
    if name.endswith(".pullback") and outputs in (None, 1):
        return  # PyTensor never calls a single-output pullback with a disconnected cotangent
    code = "\n".join(line.split("#")[0] for line in body.splitlines())  # a comment is no guard
    assert any(re.search(rf"\b{re.escape(guard)}\b", code) for guard in guards), (
        f"{name} does arithmetic on its tangents/cotangents without a DisconnectedType guard:\n{body}")
