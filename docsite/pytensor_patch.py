"""Write the upstream patch that makes PyTensor's autodiff deprecation messages cite this site.

Every deprecation in ``docsite/catalog.py`` (the autodiff ones and the Op-writing ones it covers)
gets " See <site>/guides/deprecations.html#<anchor>" appended to its message, where the anchor is the
entry's permanent label. The patch is minimal and in PyTensor's style:

- one constant, ``AUTODIFF_MIGRATION_URL`` in ``pytensor/utils.py`` (the module of stdlib-only helpers);
- each message gets one more implicitly concatenated f-string piece; its text is otherwise unchanged;
- a new ``tests/test_deprecation_messages.py`` checks, with ``pytest.warns(..., match=...)``, that each
  warning carries its URL, using the catalog's triggers.

The warn() calls are found the way the catalog's completeness check finds them (an AST walk of PyTensor's
autodiff code), so the patch fails to generate, rather than silently skipping one, when a release adds,
moves or rewords a deprecation the catalog does not cover. The site URL is ``html_baseurl`` from conf.py.

Usage (from the repository root):

    python -m docsite.pytensor_patch                 # against the installed PyTensor
    python -m docsite.pytensor_patch --source DIR    # against a checkout or an unpacked sdist
    python -m docsite.pytensor_patch --check         # exit 1 if the committed patch is stale
"""

import argparse
import ast
import difflib
import json
import re
import sys
import textwrap
from pathlib import Path

from docsite import ROOT, catalog

OUTPUT = ROOT / "upstream" / "pytensor-cite-docs.patch"
CONSTANT = "AUTODIFF_MIGRATION_URL"
TEST_FILE = "tests/test_deprecation_messages.py"


def docs_url():
    """The page every message links to; the anchor names the section."""
    return catalog.BASE_URL + catalog.PAGE


def package_dir(source):
    """The directory holding PyTensor's ``gradient.py``: ``source`` itself or ``source/pytensor``."""
    if source is None:
        import pytensor

        return Path(pytensor.__file__).parent
    source = Path(source)
    return source / "pytensor" if (source / "pytensor" / "gradient.py").exists() else source


def source_version(package):
    """The version recorded in the source tree (versioneer's ``_version.py``)."""
    text = (package / "_version.py").read_text()
    found = re.search(r"version_json = '''(.*?)'''", text, re.S)
    return json.loads(found.group(1))["version"] if found else "unknown"


def _warn_call(tree, line):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == line and getattr(node.func, "attr", None) == "warn":
            return node
    raise LookupError(f"no warn() call on line {line}")


def cite(lines, call, label):
    """Append the URL piece after the message argument of ``call`` (edits ``lines`` in place)."""
    message = call.args[0]
    last = lines[message.end_lineno - 1]
    head, tail = last[: message.end_col_offset], last[message.end_col_offset:]
    first = lines[message.lineno - 1]
    indent = first[: len(first) - len(first.lstrip())]
    if message.col_offset != len(indent) or not tail.startswith(","):
        raise ValueError(f"line {message.lineno}: the message is not one argument on its own lines; edit by hand")
    lines[message.end_lineno - 1: message.end_lineno] = [head, f'{indent}f" See {{{CONSTANT}}}#{label}"{tail}']


def add_import(lines, tree):
    """``from pytensor.utils import <CONSTANT>`` among the module's top-level ``from pytensor...`` imports,
    in the place and order ruff's isort gives it."""
    ours = "pytensor.utils"
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("pytensor")]
    existing = [n for n in imports if n.module == ours]
    if existing:  # extend that import
        node = existing[0]
        names = [a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names] + [CONSTANT]
        names.sort(key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n))
        one_line = f"from {ours} import {', '.join(names)}"
        block = [one_line] if len(one_line) <= 88 else [f"from {ours} import ("] + [f"    {n}," for n in names] + [")"]
        lines[node.lineno - 1: node.end_lineno] = block
        return
    later = [n for n in imports if n.module > ours]
    at = later[0].lineno - 1 if later else imports[-1].end_lineno
    lines.insert(at, f"from {ours} import {CONSTANT}")


def add_constant(lines, tree, url):
    """The constant, after ``__all__`` in ``pytensor/utils.py``."""
    [names] = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"]
    lines[names.end_lineno: names.end_lineno] = [
        "",
        "# Notes on migrating from each deprecated autodiff API (and the Op-writing APIs",
        "# deprecated alongside). A deprecation message ends with",
        f'# f" See {{{CONSTANT}}}#<anchor>".',
        *([f'{CONSTANT} = "{url}"'] if len(f'{CONSTANT} = "{url}"') <= 88 else
          [f"{CONSTANT} = (", f'    "{url}"', ")"]),
    ]


def edits(package):
    """{file relative to the package: (original text, patched text)}."""
    by_file = {}
    covered = set()
    for rel, line, category, fragments in catalog.source_deprecations(package):
        entries = catalog.covering(category, fragments) if fragments else []
        if len(entries) != 1:
            raise LookupError(f"pytensor/{rel}:{line}: {category} {fragments!r} is covered by {len(entries)} "
                              "catalog entries; update docsite/catalog.py first")
        by_file.setdefault(rel, []).append((line, entries[0].label))
        covered.add(entries[0].label)
    missing = {e.label for e in catalog.ENTRIES if e.deprecation} - covered
    if missing:
        raise LookupError(f"catalog deprecations not found in this PyTensor's source: {sorted(missing)}")

    result = {}
    for rel, sites in sorted(by_file.items()):
        text = (package / rel).read_text()
        tree = ast.parse(text)
        lines = text.split("\n")
        for line, label in sorted(sites, reverse=True):  # bottom up: earlier line numbers stay valid
            cite(lines, _warn_call(tree, line), label)
        add_import(lines, tree)
        result[rel] = (text, "\n".join(lines))
    text = (package / "utils.py").read_text()
    lines = text.split("\n")
    add_constant(lines, ast.parse(text), docs_url())
    result["utils.py"] = (text, "\n".join(lines))
    return result


def _split_imports(code):
    """(the top-level import lines, the rest) of a block of code."""
    lines = textwrap.dedent(code).strip().splitlines()
    imports = [ln for ln in lines if ln.startswith(("import ", "from "))]
    return imports, "\n".join(ln for ln in lines if ln not in imports).strip()


def _module_level(code):
    """Two blank lines between top-level blocks, as ruff format writes a module."""
    return re.sub(r"\n\n+(?=\S)", "\n\n\n", code)


def _import_block(imports):
    """Imports sorted the way ruff's isort sorts them in PyTensor: stdlib, third party, pytensor."""
    def section(line):
        top = line.split()[1].split(".")[0]
        return 0 if top in sys.stdlib_module_names else 2 if top == "pytensor" else 1

    names = {}  # from-imports of one module become one line
    for line in imports:
        if line.startswith("from "):
            module, imported = re.fullmatch(r"from (\S+) import (.+)", line).groups()
            names.setdefault(module, set()).update(n.strip() for n in imported.split(","))
    merged = {ln for ln in imports if ln.startswith("import ")}
    merged |= {f"from {m} import {', '.join(sorted(n))}" for m, n in names.items()}
    groups = {}
    for line in sorted(merged, key=lambda ln: (ln.startswith("from "), ln.split()[1], ln)):
        groups.setdefault(section(line), []).append(line)
    return "\n\n".join("\n".join(groups[k]) for k in sorted(groups))


def test_module():
    """PyTensor's test for the patch, in its own style, built from the catalog's triggers."""
    imports, prelude = _split_imports(catalog.PRELUDE)
    imports += ["import re", "import pytest", f"from pytensor.utils import {CONSTANT}"]
    tests = []
    for entry in catalog.ENTRIES:
        if not entry.deprecation:
            continue
        trigger_imports, body = _split_imports(entry.trigger)
        imports += trigger_imports
        name = entry.label.removeprefix("deprecation-").replace("-", "_")
        arguments = f'{entry.category}, match=see("{entry.label}")'
        with_line = f"    with pytest.warns({arguments}):"
        if len(with_line) > 88:  # as ruff format wraps it
            with_line = f"    with pytest.warns(\n        {arguments}\n    ):"
        if body.startswith(("class ", "def ", "@")):
            body = "\n" + body  # ruff format: an empty line before a class or function opening a block
        tests.append(f"def test_{name}_message_links_to_docs():\n{with_line}\n" + textwrap.indent(body, " " * 8))
    see = ("def see(anchor):\n"
           '    """The end of a message that cites its section of the migration notes."""\n'
           f'    return re.escape(f" See {{{CONSTANT}}}#{{anchor}}") + "$"')
    parts = ['"""Autodiff deprecation messages end with a link to the notes on migrating from them."""',
             _import_block(imports), see, _module_level(prelude), *tests]
    return parts[0] + "\n\n" + parts[1] + "\n\n\n" + "\n\n\n".join(parts[2:]) + "\n"


def _diff(old, new, path):
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    header = [f"diff --git a/{path} b/{path}\n"]
    if not old_lines:
        header += ["new file mode 100644\n"]
    body = difflib.unified_diff(old_lines, new_lines, "/dev/null" if not old_lines else f"a/{path}", f"b/{path}")
    return "".join(header) + "".join(body)


def make_patch(source=None):
    package = package_dir(source)
    version = source_version(package)
    message = f"""\
Subject: [PATCH] Link each autodiff deprecation warning to its migration notes

Each deprecation met when moving from grad/L_op/R_op/Lop/Rop (and the Op-writing
deprecations met in the same migration) now ends with "See <url>#<anchor>": a
section that shows the warning, why it is emitted and the code to write instead.
The base URL is one constant, pytensor.utils.{CONSTANT}; the messages are
otherwise unchanged, so filters and tests matching their start keep working.

Generated against PyTensor {version} from the deprecation catalog of
{catalog.BASE_URL} (docsite/pytensor_patch.py in its repository).
"""
    parts = [message, "\n"]
    for rel, (old, new) in edits(package).items():
        parts.append(_diff(old, new, f"pytensor/{rel}"))
    parts.append(_diff("", test_module(), TEST_FILE))
    return "".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", help="PyTensor checkout, unpacked sdist or package dir (default: installed)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"default {OUTPUT.relative_to(ROOT)}")
    parser.add_argument("--check", action="store_true", help="exit 1 if --output differs from a fresh patch")
    args = parser.parse_args(argv)
    patch = make_patch(args.source)
    if args.check:
        if not args.output.exists() or args.output.read_text() != patch:
            print(f"{args.output} is stale: run python -m docsite.pytensor_patch", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(patch)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
