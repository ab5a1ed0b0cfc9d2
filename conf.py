"""Sphinx configuration: a strict, offline build in which every notebook is executed."""

import os
import re
from pathlib import Path

import docsite

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
    # The site's own extensions (docsite/sphinxext/), one job each:
    "docsite.sphinxext.notebook_links",  # Binder launch and .ipynb/.md download links on executed pages
    "docsite.sphinxext.inline_anchor",  # {anchor}`Title <label>`: a citable anchor inside a sentence or table
    "docsite.sphinxext.offline_mathjax",  # MathJax from _static (sphinx-mathjax-offline), out of the Tab order
    "docsite.sphinxext.deprecations_map",  # _static/deprecations.json from docsite/catalog.py
    "docsite.sphinxext.readable",  # one viewport meta, sized images, numeric table cells, no empty <th>
    "docsite.sphinxext.exec_stamp",  # "Executed with PyTensor, JAX, Python" at the end of executed pages, from the kernel
]

exclude_patterns = ["_build", ".venv", ".pytest_cache", "**/.ipynb_checkpoints",
                    "tests", "tools", "docsite", "bench", ".ci", "README.md", "CONTRIBUTING.md",
                    "_readthedocs"]  # Read the Docs' output folder ($READTHEDOCS_OUTPUT) sits in the sources
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
# Deprecated API cannot be taught: every kernel treats DeprecationWarning, PendingDeprecationWarning and
# FutureWarning as errors (docsite/kernel_warnings.py, run by IPython at kernel start, says how and why).
os.environ["PYTHONSTARTUP"] = str(Path(docsite.__file__).with_name("kernel_warnings.py"))
nb_execution_raise_on_error = True  # a failing cell fails the build ...
nb_execution_show_tb = True  # ... and the log shows the traceback
nb_execution_timeout = 600  # seconds per cell: generous, since a first build compiles every Numba function cold
nb_output_stderr = "warn"  # unexpected stderr becomes a warning, so -W fails the build
nb_kernel_rgx_aliases = {".*": "python3"}
nb_merge_streams = True
nb_render_markdown_format = "myst"  # Markdown outputs (IPython.display.Markdown) may hold tables and math
# While writing one page: SITE_ONLY="notebooks/loop.md" executes only that page; the others are rendered
# without outputs, so their glue references are not checked. Never publish from this mode.
if os.environ.get("SITE_ONLY"):
    _only = set(os.environ["SITE_ONLY"].split())
    _pages = {str(p) for d in (".", "notebooks", "guides", "api") for p in Path(d).glob("*.md")}
    nb_execution_excludepatterns = sorted(_pages - _only)
    suppress_warnings = ["mystnb.glue", "mystnb.glue_ref"]

# attrs_inline: mark a measured value in prose as `[{glue:text}`t:.2f`]{.timing}` (see CONTRIBUTING.md).
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
myst_heading_anchors = 3

# --- HTML -------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = project
html_css_files = ["site.css"]
html_css_files += [("print.css", {"media": "print"})]  # code and tables wrap on paper
html_js_files = [("site.js", {"defer": "defer"})]  # focus back to the search button after Esc
html_favicon = "_static/favicon.svg"
html_last_updated_fmt = None
html_sourcelink_suffix = ""  # _sources/x.md, not x.md.txt
html_theme_options = {
    "article_header_end": ["launch-buttons"],
    "secondary_sidebar_items": {"**": ["page-toc", "sourcelink"], "404": []},
    "logo": {"text": "Pullback & pushforward"},
    "navigation_with_keys": False,
    "show_prev_next": True,
}
# --- Hosting: the one place for the site's addresses (README, "Hosting") ---
# Canonical URL of the docs; Read the Docs sets READTHEDOCS_CANONICAL_URL for each version it builds.
html_baseurl = os.environ.get(
    "READTHEDOCS_CANONICAL_URL", "https://pullback-pushforward.readthedocs.io/en/latest/"
)
# Binder builds the GitHub repository SITE_REPO ("owner/name") at SITE_BRANCH (a branch, tag or commit). On Read the
# Docs both default to the repository and commit being built. No repository, no "Launch in Binder" button.
_github = re.fullmatch(r"(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?",
                       os.environ.get("READTHEDOCS_GIT_CLONE_URL", ""))
binder_repo = os.environ.get("SITE_REPO", _github[1] if _github else "")
binder_ref = os.environ.get("SITE_BRANCH", os.environ.get("READTHEDOCS_GIT_COMMIT_HASH", "main"))
html_context = {  # {path}: the page's source, e.g. notebooks/loop.md (docsite/sphinxext/notebook_links.py fills it in)
    "binder_launch": binder_repo and f"https://mybinder.org/v2/gh/{binder_repo}/{binder_ref}?urlpath=lab/tree/{{path}}",
}
del _github
sitemap_url_scheme = "{link}"
sitemap_excludes = ["404.html", "genindex.html", "search.html"]
notfound_urls_prefix = None if os.environ.get("READTHEDOCS") == "True" else "/"

# Pages that moved keep working: "old/path": "new/path.html" (the #fragment is kept).
redirects = {}

# --- API reference (api/) ---
# The pages under api/ document the installed PyTensor with explicit autofunction / automethod / autoclass
# directives inside ```{eval-rst} blocks: autosummary generates no stub files, nothing to commit or regenerate.
# Directives that PyTensor's own docstrings use: `.. testcode::` / `.. testoutput::` (hessian_vector_product)
# need sphinx.ext.doctest, which renders them as code blocks (they run only under the doctest builder, never
# here); `.. TODO::` (OpFromGraph) needs sphinx.ext.todo, which hides it (todo_include_todos is False).
extensions += ["sphinx.ext.doctest", "sphinx.ext.todo"]
extensions += ["docsite.sphinxext.api_docstrings"]  # versionless deprecations, nested footnotes
autodoc_typehints = "signature"  # the annotations stay in the signature, as PyTensor wrote them
autodoc_preserve_defaults = True  # defaults as written in the source (e.g. "raise", not a repr)
autodoc_member_order = "bysource"
# Numpydoc sections render as one field list with the type text as plain text. With napoleon's default
# (one :param:/:type: pair per parameter) Sphinx cross-references every word of the type text, and PyTensor's
# type slots hold prose ("Scalar (0-dimensional) variable", "{'ignore', 'warn', 'raise'}", ":class:` Vector")
# and one malformed line (jacobian's "expression :class:`...`" has no " : "), which docutils rejects as
# "Unexpected indentation". Plain type text keeps these docstrings readable and the build strict.
napoleon_use_param = False
napoleon_use_rtype = False
# Python, NumPy and PyTensor names in signatures link to their own docs through intersphinx, read from inventories
# committed in docsite/inventories/ (README there: where each came from). The second element is a local file, so
# the build never fetches one; `make inventories` (CONTRIBUTING.md, "Dependencies") refreshes them, with network.
extensions += ["sphinx.ext.intersphinx"]
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", "docsite/inventories/python.inv"),
    "numpy": ("https://numpy.org/doc/stable/", "docsite/inventories/numpy.inv"),
    "pytensor": ("https://pytensor.readthedocs.io/en/latest/", "docsite/inventories/pytensor.inv"),
}
# Only py: names resolve implicitly: a mistyped {ref} label or {term} never lands silently in Python's docs.
intersphinx_disabled_reftypes = ["std:*"]
# Cross-references that neither this site nor any inventory above can resolve, each on purpose (nitpicky stays
# on; nothing else is ignored). Every other py: reference in the API pages must resolve
# (tests/test_intersphinx.py fails if an inventory comes to resolve one of these).
nitpick_ignore = list(globals().get("nitpick_ignore", []))
nitpick_ignore += [
    # Names PyTensor's docstrings and signatures write that its own reference does not list: the inventory has
    # pytensor.graph.basic.Variable and pytensor.compile.mode.Mode, never the bare short names Sphinx looks up.
    ("py:class", "Variable"),  # OpFromGraph's docstring writes :class:`Variable`
    ("py:class", "pytensor.graph.fg.FrozenFunctionGraph"),  # OpFromGraph.__init__ signature; undocumented upstream
    ("py:class", "Mode"),  # verify_grad signature: a string annotation Union["Mode", str]
    ("py:mod", "gradient"),  # grad's docstring: ":mod:`gradient`", a module page PyTensor itself deleted
    # PyTensor's docstrings write Op.pullback / Op.pushforward relative to pytensor.graph.op; Sphinx looks the
    # short name up in the docstring's own module (pytensor.compile.builders) and finds nothing. The targets
    # are on api/op (pytensor.graph.op.Op.pullback / .pushforward), and the page links them in its text.
    ("py:meth", "Op.pullback"),
    ("py:meth", "Op.pushforward"),
]
