#!/usr/bin/env python3
"""Find legacy PyTensor autodiff code (grad/L_op/R_op, Lop/Rop, old keywords) in Python files.

    python check_legacy_autodiff.py [--base-url URL] PATH [PATH ...]

PATH is a file or a directory (searched recursively for *.py and *.pyi, skipping hidden directories and
__pycache__). Each legacy use is printed as ``file:line:col: code message`` followed by the URL of the
page that says what to change. The files are parsed with Python's ``ast``; nothing is imported or run.

Exit status: 1 when something legacy was found, 2 when nothing was found but some input could not be
read or parsed, 0 otherwise. Unreadable input is reported on stderr and the scan goes on.

A line ending in ``# legacy-autodiff: ok`` is not reported (e.g. code kept for PyTensor 2.x on purpose).

Standalone: the standard library only, Python >= 3.9. From
https://pullback-pushforward.readthedocs.io/en/latest/guides/migration.html#migration-checker
"""

import argparse
import ast
import os
import sys

BASE_URL = "https://pullback-pushforward.readthedocs.io/en/latest/"
CATALOG_PAGE = "guides/deprecations.html"
SUPPRESS = "# legacy-autodiff: ok"

# code: (catalog label, message)
RULES = {
    "op-grad": ("deprecation-op-grad-l-op", "Op defines legacy `grad`; rename it `pullback(self, inputs, outputs, cotangents)`"),
    "op-l-op": ("deprecation-op-grad-l-op", "Op defines legacy `L_op`; rename it `pullback`"),
    "op-r-op": ("deprecation-op-r-op", "Op defines legacy `R_op`; write `pushforward(self, inputs, outputs, tangents)` (and a `pullback`)"),
    "call-l-op": ("deprecation-op-grad-l-op", "direct call of legacy `L_op`; call `.pullback(inputs, outputs, cotangents)`"),
    "call-r-op": ("deprecation-op-r-op", "direct call of legacy `R_op`; call `.pushforward(inputs, outputs, tangents)`"),
    "lop": ("deprecation-lop", "`Lop` is deprecated; call `pullback(f, wrt, cotangents)`"),
    "rop": ("deprecation-rop", "`Rop` is deprecated; call `pushforward(f, wrt, tangents)`"),
    "eval-points": ("deprecation-old-keywords", "keyword `eval_points=`: `cotangents=` for pullback, `tangents=` for pushforward"),
    "use-op-rop-implementation": ("deprecation-old-keywords", "keyword `use_op_rop_implementation=`: now `use_op_pushforward=`"),
    "lop-overrides": ("deprecation-lop-overrides", "keyword `lop_overrides=`: now `pullback=`"),
    "rop-overrides": ("deprecation-rop-overrides", "keyword `rop_overrides=`: now `pushforward=`"),
    "grad-overrides": ("deprecation-compile-kwargs", "keyword `grad_overrides=` was removed and is silently ignored; pass `pullback=lambda inputs, outputs, cotangents: ...`"),
    "unknown-override": ("deprecation-compile-kwargs", "keyword `{name}=` is not an OpFromGraph argument and is silently ignored; did you mean `{fix}=`?"),
}

# Keyword arguments reported wherever they appear: (code, name used in the message)
KEYWORDS = {
    "eval_points": "eval-points",
    "use_op_rop_implementation": "use-op-rop-implementation",
    "lop_overrides": "lop-overrides",
    "rop_overrides": "rop-overrides",
    "grad_overrides": "grad-overrides",
}
MISSPELLED_OVERRIDES = {"pullback_overrides": "pullback", "pushforward_overrides": "pushforward"}

# Methods that make a class look like a PyTensor Op, and base-class names that do.
OP_METHODS = {"make_node", "perform", "impl", "c_code", "pullback", "pushforward", "L_op", "R_op", "infer_shape"}
SCALAR_BASES = {"ScalarOp", "UnaryScalarOp", "BinaryScalarOp"}


def catalog_url(label, base_url=BASE_URL):
    return f"{base_url}{CATALOG_PAGE}#{label}"


def _base_name(node):
    """`Op` for both `Op` and `pytensor.graph.op.Op` in a class's bases."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):  # Generic[...] and the like
        return _base_name(node.value)
    return ""


def _positional_count(func):
    args = func.args
    return len(getattr(args, "posonlyargs", [])) + len(args.args) + (1 if args.vararg else 0)


class _Finder(ast.NodeVisitor):
    def __init__(self):
        self.found = []  # (line, col, code, extra)

    def _add(self, node, code, **fmt):
        self.found.append((node.lineno, node.col_offset + 1, code, fmt))

    def visit_ClassDef(self, node):
        bases = {_base_name(b) for b in node.bases}
        methods = {
            item.name: item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        op_like = any(b.endswith("Op") for b in bases) or bool(OP_METHODS & set(methods))
        scalar_note = {"note": " (a ScalarOp subclass: PyTensor gives no warning for it)"} if bases & SCALAR_BASES else {}
        # Op.grad(self, inputs, output_grads): three positional parameters tell it from other `grad`s.
        if "grad" in methods and op_like and _positional_count(methods["grad"]) >= 3:
            self._add(methods["grad"], "op-grad", **scalar_note)
        if "L_op" in methods:
            self._add(methods["L_op"], "op-l-op", **scalar_note)
        if "R_op" in methods:
            self._add(methods["R_op"], "op-r-op")
        self.generic_visit(node)

    def visit_Call(self, node):
        name = _base_name(node.func)
        if name in ("Lop", "Rop"):
            self._add(node, name.lower())
        elif name in ("L_op", "R_op") and isinstance(node.func, ast.Attribute):
            # super().L_op(...) inside a legacy L_op is part of that method, already reported.
            value = node.func.value
            if not (isinstance(value, ast.Call) and _base_name(value.func) == "super"):
                self._add(node, "call-" + name.lower().replace("_", "-"))
        for kw in node.keywords:
            where = kw if hasattr(kw, "lineno") else kw.value  # ast.keyword has a position from 3.9
            if kw.arg in KEYWORDS:
                self._add(where, KEYWORDS[kw.arg])
            elif kw.arg in MISSPELLED_OVERRIDES and name == "OpFromGraph":
                self._add(where, "unknown-override", name=kw.arg, fix=MISSPELLED_OVERRIDES[kw.arg])
        self.generic_visit(node)


def check_source(source, filename="<string>"):
    """Legacy uses in one source text (str or bytes): sorted [(line, col, code, message, label)].

    Raises SyntaxError (or ValueError for null bytes on some Pythons) when the source does not parse.
    """
    tree = ast.parse(source, filename=filename)
    finder = _Finder()
    finder.visit(tree)
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    lines = text.splitlines()
    results = []
    for line, col, code, fmt in sorted(finder.found, key=lambda f: (f[0], f[1], f[2])):
        if 0 < line <= len(lines) and lines[line - 1].rstrip().endswith(SUPPRESS):
            continue
        label, message = RULES[code]
        message = message.format(**fmt) if code == "unknown-override" else message
        results.append((line, col, code, message + fmt.get("note", ""), label))
    return results


def iter_python_files(path):
    """Files to scan under a directory, in a stable order."""
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".pyi")):
                yield os.path.join(root, name)


def check_file(path):
    """(findings, problem): problem is a message when the file cannot be read or parsed."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        return [], f"cannot read: {err.strerror or err}"
    if b"\0" in data:
        return [], "binary file (contains NUL bytes), not Python source: skipped"
    try:
        return check_source(data, filename=path), None
    except SyntaxError as err:
        where = f"line {err.lineno}: " if err.lineno else ""
        return [], f"cannot parse: {where}{err.msg} (not Python 3 source, or newer syntax than this Python reads)"
    except (ValueError, UnicodeDecodeError) as err:
        return [], f"cannot parse: {err}"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Report legacy PyTensor autodiff code (Op.grad/L_op/R_op, Lop/Rop, old keywords).",
        epilog="Exit status: 1 if legacy code was found, 2 if only unreadable input, 0 if clean.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or directories")
    parser.add_argument("--base-url", default=BASE_URL, help=f"site the catalog URLs point to (default {BASE_URL})")
    args = parser.parse_args(argv)
    base_url = args.base_url if args.base_url.endswith("/") else args.base_url + "/"

    n_found = n_files = n_problems = 0
    for path in args.paths:
        if os.path.isdir(path):
            files = list(iter_python_files(path))
        elif os.path.exists(path):
            files = [path]
        else:
            print(f"{path}: no such file or directory: skipped", file=sys.stderr)
            n_problems += 1
            continue
        for filename in files:
            n_files += 1
            findings, problem = check_file(filename)
            if problem:
                print(f"{filename}: {problem}", file=sys.stderr)
                n_problems += 1
            for line, col, code, message, label in findings:
                print(f"{filename}:{line}:{col}: {code} {message}\n    see {catalog_url(label, base_url)}")
            n_found += len(findings)

    summary = f"{n_found} legacy use(s) in {n_files} file(s)"
    if n_problems:
        summary += f"; {n_problems} input(s) could not be checked"
    print(summary)
    if n_found:
        return 1
    return 2 if n_problems else 0


if __name__ == "__main__":
    sys.exit(main())
