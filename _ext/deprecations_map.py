"""Write ``_static/deprecations.json`` into the built site: PyTensor warning pattern -> catalog URL.

The entries come from ``tools/deprecations_catalog.py``, the same data the deprecations page and
``tests/test_deprecations.py`` use. A library can load the JSON and append "see <url>" to a warning whose
class and message match an entry (``re.fullmatch(pattern, str(message))``).

The build fails (a Sphinx warning under -W) when an entry's label is not defined on the page it points to.
"""

import importlib.util
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)
OUTPUT = Path("_static") / "deprecations.json"


def load_catalog(srcdir):
    path = Path(srcdir) / "tools" / "deprecations_catalog.py"
    spec = importlib.util.spec_from_file_location("deprecations_catalog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def installed_pytensor():
    try:
        return version("pytensor")
    except PackageNotFoundError:
        return None


def write_map(catalog, outdir):
    """Write the JSON map under ``outdir``; return its path."""
    target = Path(outdir) / OUTPUT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(catalog.as_map(installed_pytensor()), indent=2, ensure_ascii=False) + "\n")
    return target


def check_labels(app, env):
    """Every catalog label must be defined on the page its URL names."""
    catalog = load_catalog(app.srcdir)
    labels = env.get_domain("std").labels
    for entry in catalog.ENTRIES + catalog.ERRORS:
        for label, page in ((entry.label, catalog.PAGE), (entry.migration, catalog.MIGRATION_PAGE)):
            docname = page.removesuffix(".html")
            if labels.get(label, (None,))[0] != docname:
                logger.warning(f"deprecations catalog: label {label!r} is not defined on {docname}",
                               type="deprecations_map")


def on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = write_map(load_catalog(app.srcdir), app.outdir)
    logger.info(f"deprecations map written to {target}")


def setup(app):
    app.connect("env-check-consistency", check_labels)
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
