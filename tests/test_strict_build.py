"""The build is strict: a failing cell or a stray stderr line fails it, and the log says where.

Each fixture is a tiny site under tests/fixtures/ (outside the site itself), built by the Makefile's own
`html` command with the real conf.py.
"""

import subprocess

import pytest

from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
pytestmark = pytest.mark.slow  # each test builds a fixture site


def build(fixture, tmp_path):
    cmd = ["make", "--no-print-directory", "html", f"SRC={FIXTURES / fixture}", f"OUT={tmp_path}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_a_failing_cell_fails_the_build_and_names_notebook_and_cell(tmp_path):
    result = build("broken-site", tmp_path)
    log = result.stdout + result.stderr
    assert result.returncode != 0
    assert "broken.md" in log, "the log names the notebook"
    assert "planted_failure = 1 / 0" in log, "the log shows the failing cell's code"
    assert "ZeroDivisionError" in log, "the log shows the traceback"


def test_unexpected_stderr_fails_the_build(tmp_path):
    result = build("stderr-site", tmp_path)
    log = result.stdout + result.stderr
    assert result.returncode != 0
    assert "noisy.md:" in log, "the warning names the notebook"
    assert "stderr was found in the cell outputs of cell" in log, "... and the cell"
