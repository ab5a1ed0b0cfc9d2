"""Every notebook's own checks hold for a second set of values in its `parameters` cell (papermill convention).

The second sets live in tests/alternate-parameters.json. Each notebook is re-executed alone, in a fresh kernel,
exactly as a reader would run it (docsite/run_notebook.py): no error, nothing on stderr.
"""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import jupytext
import pytest

from conftest import ROOT, notebook_sources

ALTERNATES = json.loads((ROOT / "tests" / "alternate-parameters.json").read_text())


def has_parameters_cell(source):
    return any("parameters" in c.metadata.get("tags", []) for c in jupytext.read(ROOT / source).cells)


def rerun(page, values):
    args = [f"--param={name}={value!r}" for name, value in values.items()]
    cmd = [sys.executable, "-m", "docsite.run_notebook", page, *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def reruns():
    """Start every re-execution at once, two at a time (two cores); each test waits for its own."""
    pool = ThreadPoolExecutor(max_workers=2)
    futures = {page: pool.submit(rerun, page, values) for page, values in ALTERNATES.items()}
    yield futures
    pool.shutdown(cancel_futures=True)


def test_every_parameterised_notebook_has_a_second_set():
    parameterised = {s.as_posix() for s in notebook_sources() if has_parameters_cell(s)}
    missing = parameterised - set(ALTERNATES)
    assert not missing, f"add a second parameter set for {sorted(missing)} to tests/alternate-parameters.json"


@pytest.mark.slow  # re-executes every parameterised notebook
@pytest.mark.parametrize("page", sorted(ALTERNATES))
def test_checks_hold_for_other_values(reruns, page):
    result = reruns[page].result()
    assert result.returncode == 0, f"{page} with {ALTERNATES[page]}:\n{result.stdout[-6000:]}{result.stderr[-2000:]}"
