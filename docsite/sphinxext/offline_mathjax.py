"""MathJax from _static, no CDN: sphinx-mathjax-offline's files and copy step, plus two settings of ours.

sphinx-mathjax-offline 0.0.2 (https://gitlab.com/thomaswucher/sphinx-mathjax-offline, last release 2021) does
the work: it sets ``mathjax_path`` and copies its MathJax into ``_static/mathjax``. Its ``setup()`` returns no
metadata, so under ``-j 2`` Sphinx warns that it "does not declare if it is safe for parallel reading", and ``-W``
makes that fatal. It only copies files once the build has finished, so it is safe: we load it and say so.
"""


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


def setup(app):
    app.setup_extension("sphinx-mathjax-offline")
    upstream = app.extensions["sphinx-mathjax-offline"]
    upstream.parallel_read_safe = upstream.parallel_write_safe = True  # see the module docstring
    app.connect("config-inited", configure_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
