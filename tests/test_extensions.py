"""The site's own Sphinx extensions (docsite/sphinxext/) keep what their docstrings promise."""

import inspect

import pytest
import sphinx
import sphinx.builders
from sphinx.errors import ExtensionError

from docsite.sphinxext import balanced_reads


def test_make_chunks_is_the_function_the_balanced_reads_patch_was_written_for():
    """balanced_reads replaces a private Sphinx function. When a Sphinx upgrade changes it, this fails loudly (and
    so does the build): check the new make_chunks, then update CHECKED and SIGNATURE, or drop the extension."""
    assert sphinx.version_info[:2] in balanced_reads.CHECKED, sphinx.__version__
    assert str(inspect.signature(sphinx.builders.make_chunks)) == balanced_reads.SIGNATURE
    source = inspect.getsource(sphinx.builders.Builder._read_parallel)
    assert "make_chunks(docnames, nproc)" in source, "Sphinx no longer batches the reads through make_chunks"
    balanced_reads.check_sphinx()  # what the build runs at start


def test_balanced_reads_refuses_an_unchecked_sphinx(monkeypatch):
    monkeypatch.setattr(sphinx, "version_info", (99, 0, 0, "final", 0))
    with pytest.raises(ExtensionError, match="checked against Sphinx"):
        balanced_reads.check_sphinx()


def test_offline_mathjax_declares_sphinx_mathjax_offline_parallel_safe():
    """sphinx-mathjax-offline's setup() returns no metadata (so -j 2 -W would fail); its only work is copying files
    after the build. If a release starts declaring it, the override in offline_mathjax.py can go."""
    import importlib

    upstream = importlib.import_module("sphinx-mathjax-offline")
    assert upstream.setup.__code__.co_names.count("connect") == 1  # one build-finished hook: a file copy
    assert "parallel_read_safe" not in inspect.getsource(upstream), "upstream declares it now: drop our override"
