"""Small site additions: launch and download links on executed pages, the .ipynb downloads, offline MathJax.

A page is a notebook page when its front matter carries a ``kernelspec`` (myst-nb then executes it).
"""

import importlib.util
import re
from pathlib import Path

import jupytext
from docutils import nodes
from sphinx.util.docutils import SphinxRole
from sphinx.util.fileutil import copy_asset

DOWNLOADS = "_downloads/notebooks"


def _is_notebook(app, docname):
    return "kernelspec" in app.env.metadata.get(docname, {})


def add_launch_context(app, pagename, templatename, context, doctree):
    """Links for a notebook page: Binder (only when conf.py's html_context names a repository) and downloads."""
    if doctree is None or not _is_notebook(app, pagename):
        return
    source = pagename + ".md"
    binder_launch = context.get("binder_launch")
    context["launch"] = {
        "binder": binder_launch.format(path=source) if binder_launch else None,
        "ipynb": f"{DOWNLOADS}/{pagename.replace('/', '--')}.ipynb",
        "md": f"_sources/{source}",
    }


def write_ipynb_downloads(app, exception):
    """Offer each notebook as a clean .ipynb (no outputs: the reader runs it)."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / DOWNLOADS
    out.mkdir(parents=True, exist_ok=True)
    for docname in app.env.found_docs:
        if _is_notebook(app, docname):
            nb = jupytext.read(Path(app.srcdir) / (docname + ".md"))
            nb.metadata.pop("jupytext", None)
            jupytext.write(nb, out / (docname.replace("/", "--") + ".ipynb"))


def copy_offline_mathjax(app, exception):
    """Serve MathJax from _static (files from the pinned sphinx-mathjax-offline wheel): no CDN request."""
    if exception is None and app.builder.format == "html":
        wheel_dir = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent
        copy_asset(wheel_dir / "static" / "mathjax", Path(app.outdir) / "_static" / "mathjax")


def configure_mathjax(app, config):
    """Formulas out of the Tab order (MathJax puts each one there for its menu, which made 108 of 225 Tab stops on
    the vocabulary page); screen readers still get each formula as MathML."""
    for name in ("mathjax4_config", "mathjax3_config"):
        if hasattr(config, name):
            settings = dict(getattr(config, name) or {})
            options = settings.setdefault("options", {})
            options.setdefault("menuOptions", {}).setdefault("settings", {})["inTabOrder"] = False
            setattr(config, name, settings)
            return


class InlineAnchor(SphinxRole):
    """{anchor}`Title <label>`: a citable anchor inside a table row or a sentence.

    Sphinx registers labels only before blocks; this registers one inline, so {ref}`label` works and the
    anchor test can check it like any other.
    """

    def run(self):
        title, label = re.fullmatch(r"(.*?)\s*<([\w-]+)>", self.text, re.S).groups()
        self.env.get_domain("std").note_hyperlink_target(label, self.env.docname, label, title)
        return [nodes.inline(self.rawtext, title, ids=[label])], []


def balance_parallel_reads(app):
    """With -j N, Sphinx hands each worker a batch of about len(docs)/N documents, so the slow notebooks can all
    land on one core while the other idles. Hand out one document at a time instead, the largest source first
    (a rough proxy for execution time), so the notebook kernels keep both cores busy."""
    import sphinx.builders

    def source_size(docname):
        path = Path(app.srcdir) / (docname + ".md")
        return path.stat().st_size if path.exists() else 0

    def one_at_a_time(docnames, nproc, maxbatch=10):
        return [[d] for d in sorted(docnames, key=source_size, reverse=True)]

    sphinx.builders.make_chunks = one_at_a_time


def setup(app):
    balance_parallel_reads(app)
    app.add_role("anchor", InlineAnchor())
    app.connect("html-page-context", add_launch_context)
    app.connect("build-finished", write_ipynb_downloads)
    app.connect("build-finished", copy_offline_mathjax)
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    app.connect("config-inited", configure_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
