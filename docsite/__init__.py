"""The site's own Python, installed in the build's venv (``pip install -e .``; the Makefile does it).

- ``docsite/inventories/``: the committed intersphinx inventories (its README says where each came from);
- ``docsite.catalog``: every autodiff warning PyTensor 3 emits, with its trigger, pattern and anchor;
- ``docsite.sphinxext.*``: the Sphinx extensions ``conf.py`` loads, one job each;
- ``docsite.kernel_warnings``, ``docsite.kernel_figures``, ``docsite.kernel_versions``: start-up files of every
  notebook kernel the build runs (warnings as errors; SVG figures; the versions the footer stamp shows);
- ``docsite.run_notebook`` (``make nb``), ``docsite.bench`` (``make bench``), ``docsite.rtd_build`` (``make rtd``),
  ``docsite.screenshots``, ``docsite.pytensor_patch``, ``docsite.pytensor_inventory`` (``make inventories``),
  ``docsite.build_id``: command-line tools
  (``python -m docsite.<name> --help``).

The downloadable checker, ``tools/check_legacy_autodiff.py``, is not part of this package: it stays one
standard-library file that readers copy into their own projects.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository (an editable install keeps the package here)
