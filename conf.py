"""Sphinx configuration: a strict, offline build in which every notebook is executed."""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.abspath("_ext"))

project = "Pullback & pushforward in PyTensor"
author = "The pullback-pushforward contributors"
copyright = "2026, " + author

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx_sitemap",
    "sphinx_reredirects",
    "notfound.extension",
    "site_extras",  # _ext/site_extras.py: launch/download links, .ipynb downloads
]

exclude_patterns = ["_build", ".venv", "tests", "tools", "README.md", "CONTRIBUTING.md", ".ci", ".pytest_cache", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]

# --- Strictness -------------------------------------------------------------
# The Makefile runs sphinx-build with -n -W --keep-going: any warning fails the build.
nitpicky = True
nitpick_ignore_regex = []  # grows only with a written reason next to each entry

# --- Notebook execution -----------------------------------------------------
# force: every notebook is executed at every build (CI, releases). Set
# NB_EXECUTION_MODE=cache for a quicker local loop; cache mode does not notice a
# new PyTensor release, so never publish from it.
nb_execution_mode = os.environ.get("NB_EXECUTION_MODE", "force")
nb_execution_raise_on_error = True  # a failing cell fails the build ...
nb_execution_show_tb = True  # ... and the log shows the traceback
nb_execution_timeout = 180  # seconds per cell
nb_output_stderr = "warn"  # unexpected stderr becomes a warning, so -W fails the build
nb_kernel_rgx_aliases = {".*": "python3"}
nb_merge_streams = True
# While writing one page: SITE_ONLY="notebooks/loop.md" executes only that page; the others are rendered
# without outputs, so their glue references are not checked. Never publish from this mode.
if os.environ.get("SITE_ONLY"):
    _only = set(os.environ["SITE_ONLY"].split())
    _pages = {str(p) for d in (".", "notebooks", "guides", "api") for p in Path(d).glob("*.md")}
    nb_execution_excludepatterns = sorted(_pages - _only)
    suppress_warnings = ["mystnb.glue", "mystnb.glue_ref"]

myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist"]
myst_heading_anchors = 3

# --- HTML -------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = project
html_css_files = ["site.css"]
html_favicon = "_static/favicon.svg"
html_last_updated_fmt = None
html_sourcelink_suffix = ""  # _sources/x.md, not x.md.txt
html_theme_options = {
    "article_header_end": ["launch-buttons"],
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "navigation_with_keys": False,
    "show_prev_next": True,
}
# Where the site lives and where its source is; Read the Docs sets the first.
html_baseurl = os.environ.get(
    "READTHEDOCS_CANONICAL_URL", "https://pullback-pushforward.readthedocs.io/en/latest/"
)
html_context = {
    "source_repo": os.environ.get("SITE_REPO", "pullback-pushforward/pullback-pushforward"),
    "source_branch": os.environ.get("SITE_BRANCH", "main"),
}
sitemap_url_scheme = "{link}"
notfound_urls_prefix = None if os.environ.get("READTHEDOCS") == "True" else "/"

# Pages that moved keep working: "old/path": "new/path.html" (the #fragment is kept).
redirects = {}
