"""IPython startup file for the kernels the site build starts (a notebook run alone does not need it).

docsite/sphinxext/readable.py copies it into a private IPython directory's startup folder and points IPYTHONDIR there. Figures
then come out as SVG (sharp at any zoom, on phones too) with a transparent background (site.css inverts them in
dark mode) and text large enough to read once the figure is scaled to the text column.

Set here rather than in ipython_kernel_config.py: matplotlib-inline's InlineBackend still uses traitlets' old
change handlers, which emit a DeprecationWarning whenever its traits are configured, and pages that turn warnings
into errors would fail on it. Creating the instance here, with that warning silenced, leaves nothing to warn later.
"""

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from matplotlib_inline.config import InlineBackend

    _inline = InlineBackend.instance()
    _inline.figure_formats = {"svg"}
    # No creation date in the SVG (the same figure gives the same file); a tight box, as Jupyter's default.
    _inline.print_figure_kwargs = {"bbox_inches": "tight", "metadata": {"Date": None}}
    _inline.rc = {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.transparent": True,
        "font.size": 12.5,
        "axes.titlesize": "medium",
        "axes.labelsize": "medium",
        "legend.fontsize": "medium",
        "xtick.labelsize": "medium",
        "ytick.labelsize": "medium",
        "lines.linewidth": 1.8,
        "svg.hashsalt": "pullback-pushforward",  # stable element ids inside the SVG
    }
    del _inline, InlineBackend
del warnings
