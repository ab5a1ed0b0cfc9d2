"""Links for executed pages: "Launch in Binder", and the page as a clean .ipynb or as its MyST source.

A page is a notebook page when its front matter carries a ``kernelspec`` (myst-nb then executes it). The
template ``_templates/launch-buttons.html`` shows the links this extension puts in the page context.
"""

from pathlib import Path

import jupytext

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
            app.emit("notebook-download", docname, nb)  # extensions make their directives readable in Jupyter
            jupytext.write(nb, out / (docname.replace("/", "--") + ".ipynb"))


def setup(app):
    # notebook-download(app, docname, nb): the .ipynb a reader downloads, before it is written. Jupyter does not
    # know this site's directives; the extension that defines one rewrites it there as plain Markdown.
    app.add_event("notebook-download")
    app.connect("html-page-context", add_launch_context)
    app.connect("build-finished", write_ipynb_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
