"""Hand out notebooks to the ``-j 2`` workers one at a time, largest first, so both cores keep executing.

Sphinx's ``sphinx.builders.make_chunks(arguments, nproc, maxbatch=10)`` gives each worker a batch of about
len(docs)/N documents, so the slow notebooks can all land on one core while the other idles. This replaces that
private function: it is a monkeypatch, so it is applied only to the Sphinx versions it was checked against, and
the build stops with a clear error on any other (tests/test_extensions.py checks the same). ``make bench``
measures what it buys (the clean build with ``SITE_DEFAULT_CHUNKS=1``, which turns it off).
"""

import inspect
import os
from pathlib import Path

import sphinx
import sphinx.builders
from sphinx.errors import ExtensionError

CHECKED = ((9, 1),)  # Sphinx major.minor versions whose make_chunks this replaces (the pinned one)
SIGNATURE = "(arguments: 'Sequence[str]', nproc: 'int', maxbatch: 'int' = 10) -> 'list[Any]'"


def check_sphinx():
    """Raise when this Sphinx's make_chunks is not the one the patch was written for."""
    found = getattr(sphinx.builders, "make_chunks", None)
    if sphinx.version_info[:2] not in CHECKED or found is None or str(inspect.signature(found)) != SIGNATURE:
        raise ExtensionError(
            f"docsite.sphinxext.balanced_reads was checked against Sphinx {CHECKED}, not {sphinx.__version__} "
            "(or sphinx.builders.make_chunks changed). Check the new make_chunks, then update CHECKED and "
            "SIGNATURE, or remove this extension from conf.py.")


def setup(app):
    if os.environ.get("SITE_DEFAULT_CHUNKS") == "1":  # make bench: the build as Sphinx would batch it
        return {"parallel_read_safe": True, "parallel_write_safe": True}
    check_sphinx()

    def source_size(docname):
        path = Path(app.srcdir) / (docname + ".md")
        return path.stat().st_size if path.exists() else 0  # a rough proxy for execution time

    def one_at_a_time(arguments, nproc, maxbatch=10):
        return [[d] for d in sorted(arguments, key=source_size, reverse=True)]

    sphinx.builders.make_chunks = one_at_a_time
    return {"parallel_read_safe": True, "parallel_write_safe": True}
