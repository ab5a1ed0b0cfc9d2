"""Deprecated API cannot be taught: every notebook kernel raises DeprecationWarning, PendingDeprecationWarning and
FutureWarning as errors (docsite/kernel_warnings.py), in the site build and in `make nb`.

The fixture page defines an Op with the `infer_shape(self, fgraph, node, shapes)` signature PyTensor 3.3
deprecates. Its DeprecationWarning is attributed to `<frozen abc>`, which Python's default filters hide: without
the start-up file the page builds silently. A second fixture shows that a page capturing a warning on purpose
(the site's convention) still runs.
"""

import subprocess
import sys
from pathlib import Path

from docsite import ROOT

FIXTURES = Path(__file__).with_name("fixtures")
DEPRECATED = FIXTURES / "deprecated-site"
CAPTURED = FIXTURES / "captured-warning-site"
MESSAGE = "OldStyleShape.infer_shape takes a deprecated `fgraph` parameter"


def build(fixture, tmp_path):
    cmd = ["make", "--no-print-directory", "html", f"SRC={fixture}", f"OUT={tmp_path}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


def run_notebook(page):
    cmd = [sys.executable, "-m", "docsite.run_notebook", str(page)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_a_page_with_a_deprecated_signature_fails_the_build(tmp_path):
    result = build(DEPRECATED, tmp_path)
    log = result.stdout + result.stderr
    assert result.returncode != 0, "the build passed although the page uses a deprecated signature"
    assert "old_infer_shape.md" in log, "the log names the notebook"
    assert "DeprecationWarning" in log and MESSAGE in log, "the log shows PyTensor's warning as the error"


def test_a_page_with_a_deprecated_signature_fails_make_nb():
    result = run_notebook(DEPRECATED / "old_infer_shape.md")
    assert result.returncode != 0
    assert "DeprecationWarning" in result.stdout and MESSAGE in result.stdout


def test_without_the_start_up_file_the_same_page_passes_silently():
    """The control: the warning really is hidden by default, so the mechanism is what catches it."""
    code = (
        "from pytensor.graph.op import Op\n"
        "class OldStyleShape(Op):\n"
        "    def infer_shape(self, fgraph, node, shapes):\n"
        "        return shapes\n"
        "print('defined')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0 and "defined" in result.stdout
    assert "DeprecationWarning" not in result.stderr, "Python's default filters now show it: update the docstring"


def test_a_warning_captured_on_purpose_still_runs():
    """Through `make nb`'s runner: the kernel is started the same way as in the site build (PYTHONSTARTUP)."""
    result = run_notebook(CAPTURED / "captured.md")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
