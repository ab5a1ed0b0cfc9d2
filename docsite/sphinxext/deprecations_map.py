"""Write ``_static/deprecations.json`` into the built site: PyTensor warning pattern -> catalog URL.

The entries come from ``docsite/catalog.py``, the same data the deprecations page and
``tests/test_deprecations.py`` use. A program can load the JSON and append "See <url>" to a warning whose
class matches an entry's ``category`` and whose text contains a match of its ``pattern`` (a search:
``re.search`` in Python, ``RegExp.test`` in JavaScript; the JSON's ``lookup`` field says so). The URLs use
the site's ``html_baseurl``.

The build fails (a Sphinx warning under -W) when an entry's label is not defined on the page it points to.

It also adds the directives that write guides/deprecations.md's catalog-derived parts, so the page cannot drift
from the catalog:

- ``{deprecation-trigger} <label>`` shows the catalog's trigger code for an entry (``prelude`` shows the setup
  every trigger runs after): the code on the page is the code the test runs;
- ``{deprecations-table}`` is the table of every entry: the start of its text (``text_start``), its class
  (``category``) and a link to its section (``label``), in the page's order (deprecations, then the Op-writing
  ones, then the related warnings and errors);
- ``{deprecation-action} <label>`` is the entry's "What to do" paragraph: its ``action``, MyST Markdown parsed like
  the page's own text (roles such as {ref} and {term} resolve).
"""

import json
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from docsite import catalog

logger = logging.getLogger(__name__)
OUTPUT = Path("_static") / "deprecations.json"
CATALOG_COPY = Path("_static") / "deprecations_catalog.py"  # for readers who run the page's notebook alone


def installed_pytensor():
    try:
        return version("pytensor")
    except PackageNotFoundError:
        return None


def write_map(catalog, outdir, base_url=None):
    """Write the JSON map under ``outdir``; return its path."""
    target = Path(outdir) / OUTPUT
    target.parent.mkdir(parents=True, exist_ok=True)
    site_map = catalog.as_map(installed_pytensor(), base_url=base_url)
    target.write_text(json.dumps(site_map, indent=2, ensure_ascii=False) + "\n")
    return target


def write_catalog_copy(outdir, base_url):
    """Publish the catalog for the downloaded notebook, with the site's URL written in (it has no conf.py)."""
    source = Path(catalog.__file__).read_text()
    line = "BASE_URL = _site_base_url()\n"
    if source.count(line) != 1:
        raise ValueError(f"docsite/catalog.py: expected one line {line!r}")
    target = Path(outdir) / CATALOG_COPY
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source.replace(line, f"BASE_URL = {base_url!r}  # written by the site build (html_baseurl)\n"))
    return target


def check_labels(app, env):
    """Every catalog label must be defined on the page its URL names."""
    labels = env.get_domain("std").labels
    for entry in catalog.ENTRIES + catalog.ERRORS:
        for label, page in ((entry.label, catalog.PAGE), (entry.migration, catalog.MIGRATION_PAGE)):
            if label is None:  # no migration-guide section: the catalog page holds the fix
                continue
            docname = page.removesuffix(".html")
            if labels.get(label, (None,))[0] != docname:
                logger.warning(f"deprecations catalog: label {label!r} is not defined on {docname}",
                               type="deprecations_map")


def on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = write_map(catalog, app.outdir, app.config.html_baseurl)
    logger.info(f"deprecations map written to {target}")
    write_catalog_copy(app.outdir, app.config.html_baseurl)


class DeprecationTrigger(SphinxDirective):
    """Show a catalog entry's trigger code (or the shared prelude) as a Python code block."""

    required_arguments = 1

    def run(self):
        self.env.note_dependency(catalog.__file__)
        label = self.arguments[0]
        if label == "prelude":
            code = catalog.PRELUDE
        elif label in catalog.BY_LABEL:
            code = catalog.BY_LABEL[label].trigger
        else:
            raise self.error(f"no catalog entry {label!r} in docsite/catalog.py")
        block = nodes.literal_block(code.strip(), code.strip(), language="python")
        self.set_source_info(block)
        return [block]


def _entry(directive, label):
    if label not in catalog.BY_LABEL:
        raise directive.error(f"no catalog entry {label!r} in docsite/catalog.py")
    return catalog.BY_LABEL[label]


def _markdown_to_nodes(directive, text):
    """Parse Markdown as the page's own text (MyST, with its roles and references)."""
    holder = nodes.Element()
    directive.state.nested_parse(StringList(text.splitlines(), source=directive.get_source_info()[0]),
                                 directive.content_offset, holder)
    return holder.children


def code_span(text):
    """A Markdown code span showing `text` verbatim, backticks included (CommonMark: a longer fence)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def page_order(entries):
    """The page's order: autodiff deprecations, the Op-writing deprecations, then the related warnings and errors."""
    def group(entry):
        if not entry.deprecation:
            return 2
        return 0 if entry.audience == "autodiff" else 1

    return sorted(entries, key=group)  # stable: the catalog's order within each group


def table_markdown(entries=None):
    """The Markdown of the page's table: one row per catalog entry."""
    rows = ["| Warning (start of the text) | Class | Section |", "|---|---|---|"]
    for entry in page_order(entries or catalog.ENTRIES + catalog.ERRORS):
        if "|" in entry.text_start:
            raise ValueError(f"{entry.label}: a '|' in text_start would split the table row")
        rows.append(f"| {code_span(entry.text_start)} | `{entry.category}` | {{ref}}`{entry.label}` |")
    return "\n".join(rows)


def action_markdown(entry):
    return f"**What to do.** {entry.action}"


class DeprecationsTable(SphinxDirective):
    """The table of every catalog entry: the start of its text, its class, and a link to its section."""

    def run(self):
        self.env.note_dependency(catalog.__file__)
        return _markdown_to_nodes(self, table_markdown())


class DeprecationAction(SphinxDirective):
    """An entry's "What to do" paragraph, from its catalog ``action`` (MyST Markdown)."""

    required_arguments = 1

    def run(self):
        self.env.note_dependency(catalog.__file__)
        return _markdown_to_nodes(self, action_markdown(_entry(self, self.arguments[0])))


DIRECTIVE = re.compile(r"^:::\{(deprecations-table|deprecation-action|deprecation-trigger)\} *(\S*)\n:::$", re.M)
REF = re.compile(r"\{ref\}`(?:([^`<]*?)\s*<([^`>]+)>|([^`<]+))`")
TERM = re.compile(r"\{term\}`([^`<]*?)(?:\s*<[^`>]+>)?`")


def readable_in_jupyter(app, docname, nb):
    """The downloaded notebook gets what the directives render on the site, as plain Markdown: the table, each
    "What to do" and each trigger's code; a {ref} becomes a link to the published section, a {term} its word."""
    labels = app.env.get_domain("std").labels

    def link(match):
        title, label = (match[1], match[2]) if match[2] else (None, match[3])
        page, anchor, section = labels[label]
        return f"[{title or section}]({app.config.html_baseurl}{page}.html#{anchor})"

    def markdown(match):
        kind, label = match[1], match[2]
        if kind == "deprecation-trigger":
            code = catalog.PRELUDE if label == "prelude" else catalog.BY_LABEL[label].trigger
            return f"```python\n{code.strip()}\n```"
        text = table_markdown() if kind == "deprecations-table" else action_markdown(catalog.BY_LABEL[label])
        return TERM.sub(r"\1", REF.sub(link, text))

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = DIRECTIVE.sub(markdown, cell.source)


def setup(app):
    app.setup_extension("docsite.sphinxext.notebook_links")  # defines the notebook-download event
    app.connect("notebook-download", readable_in_jupyter)
    app.add_directive("deprecation-trigger", DeprecationTrigger)
    app.add_directive("deprecations-table", DeprecationsTable)
    app.add_directive("deprecation-action", DeprecationAction)
    app.connect("env-check-consistency", check_labels)
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
