"""Write docsite/inventories/pytensor.inv: the intersphinx inventory of PyTensor's API reference (its doc/library/
pages), built by Sphinx from PyTensor's own documentation sources at the installed version.

Maintainers only, with network (``make inventories`` runs it): it downloads the installed version's source
distribution from PyPI (``pip download``; the sdist ships ``doc/``), builds ``doc/library/`` with autodoc against the
installed PyTensor, and keeps only ``objects.inv``. Nothing is written by hand: every entry is an object Sphinx
documented on one of PyTensor's own pages, at the page and anchor PyTensor's Read the Docs build gives it. The
site's build never runs this; it reads the committed file.

    python -m docsite.pytensor_inventory [--out docsite/inventories/pytensor.inv]
"""

import argparse
import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from docsite import ROOT

# PyTensor's doc/conf.py loads ablog, myst-nb notebooks and its gallery generator for the whole site; for the API
# pages only autodoc and the directives those pages use are needed. Settings copied from PyTensor's doc/conf.py.
CONF = '''\
import pytensor

project = "PyTensor"
version = release = pytensor.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.todo", "sphinx.ext.doctest",
              "sphinx.ext.mathjax", "sphinx.ext.autosummary"]
autodoc_typehints = "none"
autosummary_generate = False
napoleon_google_docstring = False
napoleon_include_special_with_doc = False
source_suffix = {".rst": "restructuredtext"}
root_doc = "library/index"
include_patterns = ["library/**"]
exclude_patterns = ["library/d3viz/examples/**"]
'''


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docsite" / "inventories" / "pytensor.inv")
    args = parser.parse_args(argv)
    version = importlib.metadata.version("pytensor")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # --no-binary pytensor: the sdist (it holds doc/); its build dependencies may come as wheels.
        subprocess.run([sys.executable, "-m", "pip", "download", f"pytensor=={version}", "--no-deps",
                        "--no-binary", "pytensor", "-d", str(tmp / "sdist"), "-q"], check=True)
        (sdist,) = (tmp / "sdist").glob(f"pytensor-{version}.tar.gz")
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp / "src", filter="data")
        doc = tmp / "src" / f"pytensor-{version}" / "doc"
        (tmp / "conf").mkdir()
        (tmp / "conf" / "conf.py").write_text(CONF)
        # Not strict: PyTensor's own pages warn (docstring markup, names its doc lists that the package dropped);
        # an object that fails to document is simply absent from the inventory.
        subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(tmp / "conf"), str(doc),
                        str(tmp / "html")], check=True, stderr=subprocess.DEVNULL)
        shutil.copyfile(tmp / "html" / "objects.inv", args.out)
    print(f"{args.out}: PyTensor {version} API pages, from {sdist.name}")


if __name__ == "__main__":
    main()
