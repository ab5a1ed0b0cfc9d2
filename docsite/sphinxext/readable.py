"""Small fixes to the written HTML for readers on every device (issue 16).

- One viewport <meta> per page: docutils adds one to ``metatags`` next to Sphinx's and the theme's.
- Every <img> gets its intrinsic width and height, so the browser reserves its box before the file arrives
  (no layout shift); CSS keeps images fluid (max-width: 100%, height: auto). An SVG figure links to itself, so
  a phone reader can open it alone and zoom.
- An empty header cell (the corner of a comparison table) becomes a <td>: a <th> needs a name.
- Notebook kernels started by the build run docsite/kernel_figures.py first (SVG figures).
- myst-nb's "Show code cell source" toggles lose their aria-label ("Toggle hidden content"), so their name is
  the text a reader sees (WCAG 2.5.3).
- Table cells holding only a number get class "num" (right-aligned, tabular figures in site.css), and so do
  the header cells of columns that hold only numbers.
"""

import os
import re
import shutil
from pathlib import Path

import imagesize

VIEWPORT = re.compile(r'\s*<meta name="viewport"[^>]*>')
IMG = re.compile(r'<img (?![^>]*\swidth=)([^>]*?)src="([^"]+)"([^>]*?)\s*/?>')
EMPTY_TH = re.compile(r'<th class="head">(?:<p></p>)?</th>')
TABLE = re.compile(r"<table\b.*?</table>", re.S)
ROW = re.compile(r"<tr\b.*?</tr>", re.S)
CELL = re.compile(r"<(td|th)\b([^>]*)>(.*?)</\1>", re.S)
NUMBER = re.compile(r"\s*(?:<p>)?\s*[-+\u2212]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+\u2212]?\d+)?\s*[%x\u00d7]?\s*(?:</p>)?\s*")


def _svg_size(path):
    head = path.read_text(errors="replace")[:4000]
    svg = re.search(r"<svg\b[^>]*>", head)
    sizes = []
    for attr in ("width", "height"):
        m = svg and re.search(rf'\s{attr}="([\d.]+)(pt|px)?"', svg.group(0))
        if not m:
            return None
        value = float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)
        sizes.append(round(value))
    return tuple(sizes)


def _image_size(path):
    try:
        if path.suffix == ".svg":
            return _svg_size(path)
        width, height = imagesize.get(str(path))
        return (width, height) if width > 0 and height > 0 else None
    except OSError:
        return None


def _sized_images(app, body):
    by_name = {Path(dest).name: Path(app.srcdir, src) for src, dest in app.builder.images.items()}

    def add_size(m):
        size = None
        source = by_name.get(Path(m.group(2)).name)
        if source is not None and source.exists():
            size = _image_size(source)
        if size is None:
            return m.group(0)
        img = f'<img {m.group(1)}src="{m.group(2)}"{m.group(3)} width="{size[0]}" height="{size[1]}" />'
        if m.group(2).endswith(".svg") and "_images/" in m.group(2):
            # A figure scaled to a phone's width has small text: tapping it opens the SVG alone, to zoom.
            return f'<a class="figure-full" href="{m.group(2)}" title="Open the figure alone (zoomable)">{img}</a>'
        return img

    return IMG.sub(add_size, body)


def _number_cells(table):
    rows = ROW.findall(table)
    numeric_columns = None
    for row in rows:
        cells = CELL.findall(row)
        if not cells or cells[0][0] == "th" and all(kind == "th" for kind, _, _ in cells):
            continue
        numeric = {i for i, (kind, _, text) in enumerate(cells) if kind == "td" and NUMBER.fullmatch(text)}
        numeric_columns = numeric if numeric_columns is None else numeric_columns & numeric

    def mark_row(row, header):
        index = -1

        def mark(m):
            nonlocal index
            index += 1
            kind, attrs, text = m.groups()
            wanted = (header and index in (numeric_columns or ())) or (kind == "td" and NUMBER.fullmatch(text))
            if not wanted or "num" in attrs:
                return m.group(0)
            if 'class="' in attrs:
                attrs = attrs.replace('class="', 'class="num ', 1)
            else:
                attrs += ' class="num"'
            return f"<{kind}{attrs}>{text}</{kind}>"

        return CELL.sub(mark, row)

    for row in rows:
        header = all(kind == "th" for kind, _, _ in CELL.findall(row))
        table = table.replace(row, mark_row(row, header), 1)
    return table


def polish_page(app, pagename, templatename, context, doctree):
    if "metatags" in context:
        context["metatags"] = VIEWPORT.sub("", context["metatags"])
    body = context.get("body")
    if not body:
        return
    body = _sized_images(app, body)
    body = EMPTY_TH.sub("<td></td>", body)
    body = body.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    body = TABLE.sub(lambda m: _number_cells(m.group(0)), body)
    context["body"] = body


def use_kernel_config(app):
    """Kernels the build starts run docsite/kernel_figures.py first (SVG figures, readable sizes)."""
    ipython_dir = Path(app.outdir).parent / ".ipython"
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(__file__).parent.parent / "kernel_figures.py", startup / "00-figures.py")
    os.environ["IPYTHONDIR"] = str(ipython_dir)


def setup(app):
    use_kernel_config(app)
    app.connect("html-page-context", polish_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
