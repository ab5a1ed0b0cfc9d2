"""The footer stamp of every executed page: "Executed with PyTensor X, JAX Y, Python Z", versions of its kernel.

An executed page is a notebook page (its front matter has a ``kernelspec``) that myst-nb executed in this build
(or, with ``NB_EXECUTION_MODE=cache``, took from its cache). Every version in the stamp is one the kernel that
ran the page reported about itself, never one read by the Sphinx process (the kernel need not be Sphinx's own
interpreter: jupyter_client picks the ``python3`` kernelspec from the Jupyter data folders, a user's own first):

- Python: ``language_info["version"]``, which ipykernel fills in from the kernel's ``sys.version``
  (ipykernel/ipkernel.py, ``IPythonKernel.language_info``);
- PyTensor and JAX: ``language_info["docsite_versions"]``, which docsite/kernel_versions.py adds in the kernel,
  at its start (this extension copies that file into the IPython start-up folder of the build's kernels, the
  IPYTHONDIR that docsite.sphinxext.readable sets up).

nbclient copies the kernel's ``language_info`` into the executed notebook (nbclient/client.py, in
``async_execute``: ``self.nb.metadata["language_info"] = info_msg["content"]["language_info"]``) and myst-nb
stores it in ``env.metadata[docname]`` (myst_nb/sphinx_.py, ``SphinxNbRenderer.render_nb_initialise``), where
this extension reads it when the page's doctree is read. A page myst-nb did not execute (``SITE_ONLY``,
``nb_execution_mode = "off"``) has no ``language_info`` and gets no stamp: it ran in no kernel.

The stamp is a paragraph with class ``exec-stamp`` (``<p class="exec-stamp">``, styled in _static/site.css)
appended to the page's last section. A page that still prints its own stamp from a cell keeps only that one.
"""

import os
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

import docsite

logger = logging.getLogger(__name__)

KERNEL_FILE = Path(docsite.__file__).with_name("kernel_versions.py")
VERSIONS_KEY = "docsite_versions"  # the key kernel_versions.py adds to language_info
STAMP_CLASS = "exec-stamp"


def stamp_text(language_info):
    """The stamp's words from a kernel's language_info, or None when the kernel recorded no versions."""
    versions = language_info.get(VERSIONS_KEY)
    python = language_info.get("version")
    if not versions or not python:
        return None
    packages = ", ".join(f"{name} {number}" for name, number in versions.items())
    return f"Executed with {packages}, Python {python}"


def has_own_stamp(doctree):
    """A page whose cell still prints the stamp (raw HTML output, or a paragraph from a previous pass)."""
    return any(f'class="{STAMP_CLASS}"' in node.astext() for node in doctree.findall(nodes.raw)) or any(
        STAMP_CLASS in node["classes"] for node in doctree.findall(nodes.paragraph)
    )


def _last_section(doctree):
    node = doctree
    while node.children and isinstance(node.children[-1], nodes.section):
        node = node.children[-1]
    return node


def add_stamp(app, doctree):
    docname = app.env.docname
    metadata = app.env.metadata.get(docname, {})
    if "kernelspec" not in metadata or "language_info" not in metadata:
        return  # not a notebook page, or not executed in this build
    if has_own_stamp(doctree):
        return
    text = stamp_text(metadata["language_info"])
    if text is None:
        logger.warning(
            "%s was executed, but its kernel recorded no versions for the footer stamp (did %s run at kernel "
            "start? With NB_EXECUTION_MODE=cache, a page cached before the stamp existed needs one fresh run)",
            docname, KERNEL_FILE.name, location=docname, type="exec_stamp", subtype="versions",
        )
        return
    _last_section(doctree).append(nodes.paragraph(text, text, classes=[STAMP_CLASS]))


def install_kernel_file(app):
    """Build kernels run docsite/kernel_versions.py at start, after the other start-up files."""
    ipython_dir = os.environ.get("IPYTHONDIR")
    if not ipython_dir:
        raise ExtensionError("exec_stamp: IPYTHONDIR is not set; load docsite.sphinxext.readable, which points "
                             "the build's kernels at their own IPython directory")
    startup = Path(ipython_dir, "profile_default", "startup")
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(KERNEL_FILE, startup / "50-versions.py")


def setup(app):
    app.connect("builder-inited", install_kernel_file)
    app.connect("doctree-read", add_stamp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
