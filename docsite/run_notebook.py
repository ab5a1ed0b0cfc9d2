"""Execute one MyST text notebook on its own, as a reader would in Jupyter or Binder.

    python -m docsite.run_notebook notebooks/loop.md [-p name=value ...] [--save out.ipynb]

It fails (exit 1) when a cell raises or writes to stderr, or when prose quotes a glued value that is missing or
cannot be formatted as asked: the same rules as the strict site build. With -p,
values are injected after the cell tagged ``parameters`` (the papermill convention) and the page's own
checks must still pass. It prints the time each slow cell took and the total.
"""

import argparse
import ast
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

import jupytext
import nbformat
from myst_nb.core.variables import format_plain_text
from nbclient import NotebookClient

GLUE_REFERENCE = re.compile(r"\{glue(?::text|:any|:md)?\}`([^`:]+?)(?::([^`]*))?`")


def inject_parameters(nb, params):
    """Insert a cell after the `parameters` cell that overrides the given names."""
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    if not tagged:
        raise SystemExit("no cell tagged 'parameters' to override")
    source = "\n".join(f"{name} = {value!r}" for name, value in params.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(tagged[0] + 1, cell)


def problems_in(nb):
    """Error outputs and stderr streams, named by cell number and first source line."""
    found = []
    for number, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error" or (out.output_type == "stream" and out.name == "stderr"):
                text = out.get("text") or "\n".join(out.get("traceback", []))
                first = cell.source.splitlines()[0] if cell.source else ""
                found.append(f"cell {number} ({first!r}): {out.output_type} {out.get('name', '')}\n{text}")
    return found


def glue_problems(nb):
    """Glue references in the prose whose key was never glued, or whose value does not take the format."""
    glued = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            scrap = out.get("metadata", {}).get("scrapbook", {})
            if "name" in scrap:  # strip the mime prefix myst-nb's glue puts on its display data
                prefix = scrap.get("mime_prefix", "")
                glued[scrap["name"]] = {k.removeprefix(prefix): v for k, v in out.get("data", {}).items()}
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for key, fmt in GLUE_REFERENCE.findall(cell.source):
            if key not in glued:
                found.append(f"glue reference {key!r}: nothing was glued under that name")
            elif fmt:
                try:
                    format_plain_text(glued[key].get("text/plain", ""), fmt)
                except Exception as exc:  # the same failure the site build reports
                    found.append(f"glue reference {key}:{fmt}: {exc}")
    return found


def parse_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("-p", "--param", action="append", default=[], help="name=value (a Python literal)")
    parser.add_argument("--save", type=Path, help="write the executed notebook here")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)

    # The same kernel start-up as the site build: deprecation warnings are errors (kernel_warnings.py).
    os.environ["PYTHONSTARTUP"] = str(Path(__file__).resolve().with_name("kernel_warnings.py"))
    nb = jupytext.read(args.notebook)
    if args.param:
        inject_parameters(nb, {k: parse_value(v) for k, v in (p.split("=", 1) for p in args.param)})
    client = NotebookClient(nb, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(args.notebook.parent.resolve())}},
                            record_timing=True, allow_errors=True)
    start = time.perf_counter()
    client.execute()
    total = time.perf_counter() - start
    for number, cell in enumerate(nb.cells):
        timing = cell.metadata.get("execution", {})
        if "shell.execute_reply" in timing and "iopub.execute_input" in timing:
            took = (datetime.fromisoformat(timing["shell.execute_reply"].rstrip("Z"))
                    - datetime.fromisoformat(timing["iopub.execute_input"].rstrip("Z"))).total_seconds()
            if took > 1:
                print(f"  cell {number:3d}: {took:6.1f} s  {cell.source.splitlines()[0][:60] if cell.source else ''}")
    if args.save:
        nbformat.write(nb, args.save)
    problems = problems_in(nb) + glue_problems(nb)
    print(f"{args.notebook}: executed in {total:.1f} s, {len(problems)} problem(s)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
