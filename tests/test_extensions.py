"""The site's own Sphinx extensions (docsite/sphinxext/) keep what their docstrings promise."""

import inspect


def test_offline_mathjax_declares_sphinx_mathjax_offline_parallel_safe():
    """sphinx-mathjax-offline's setup() returns no metadata (so -j 2 -W would fail); its only work is copying files
    after the build. If a release starts declaring it, the override in offline_mathjax.py can go."""
    import importlib

    upstream = importlib.import_module("sphinx-mathjax-offline")
    assert upstream.setup.__code__.co_names.count("connect") == 1  # one build-finished hook: a file copy
    assert "parallel_read_safe" not in inspect.getsource(upstream), "upstream declares it now: drop our override"
