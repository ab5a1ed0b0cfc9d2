"""tools/check_legacy_autodiff.py: the standalone checker the migration guide offers for download."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "tools" / "check_legacy_autodiff.py"
FIXTURES = ROOT / "tests" / "fixtures" / "checker"
sys.path.insert(0, str(ROOT / "tools"))

import check_legacy_autodiff as checker  # noqa: E402
import deprecations_catalog as catalog  # noqa: E402

FINDING = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[\w-]+) (?P<message>.+)$")


def run(*args):
    return subprocess.run([sys.executable, str(CHECKER), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def findings(stdout):
    """[(file name, line, code, url)] from the checker's output."""
    lines = stdout.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = FINDING.match(line)
        if m:
            url = lines[i + 1].strip().removeprefix("see ")
            found.append((Path(m["file"]).name, int(m["line"]), m["code"], url))
    return found


def expected(path):
    """Lines marked `# expect: <code>` in a fixture."""
    return sorted((path.name, n, m[1]) for n, line in enumerate(path.read_text().splitlines(), 1)
                  if (m := re.search(r"# expect: ([\w-]+)", line)))


def test_legacy_fixture_reports_every_marked_line_and_nothing_else():
    path = FIXTURES / "legacy_ops.py"
    result = run(path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr == ""
    assert sorted(f[:3] for f in findings(result.stdout)) == expected(path)
    assert result.stdout.splitlines()[-1] == f"{len(expected(path))} legacy use(s) in 1 file(s)"


def test_every_rule_is_exercised_by_the_fixture():
    codes = {code for _, _, code in expected(FIXTURES / "legacy_ops.py")}
    assert codes == set(checker.RULES)


def test_each_finding_links_to_its_catalog_entry():
    result = run(FIXTURES / "legacy_ops.py")
    for _, _, code, url in findings(result.stdout):
        label = checker.RULES[code][0]
        assert url == catalog.url(label), (code, url)


def test_checker_and_catalog_agree_on_urls_and_labels():
    assert checker.BASE_URL == catalog.BASE_URL
    assert checker.CATALOG_PAGE == catalog.PAGE
    labels = {label for label, _ in checker.RULES.values()}
    assert labels <= set(catalog.BY_LABEL), labels - set(catalog.BY_LABEL)


def test_suppressed_line_is_not_reported():
    source = (FIXTURES / "legacy_ops.py").read_text().splitlines()
    kept = next(n for n, line in enumerate(source, 1) if line.endswith("# legacy-autodiff: ok"))
    assert kept not in {f[0] for f in checker.check_source("\n".join(source))}


def test_clean_fixture_passes():
    result = run(FIXTURES / "clean_ops.py")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "0 legacy use(s) in 1 file(s)\n"


@pytest.mark.parametrize("name, problem", [
    ("python2_script.py", "cannot parse: line 1: Missing parentheses in call to 'print'"),
    ("corrupted_blob.py", "binary file (contains NUL bytes), not Python source: skipped"),
    ("no_such_file.py", "no such file or directory: skipped"),
])
def test_bad_input_gets_a_clear_message_and_exit_2(name, problem):
    result = run(FIXTURES / name)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{FIXTURES / name}: {problem}"), result.stderr
    assert "Traceback" not in result.stderr


def test_scan_goes_on_after_bad_input():
    """A directory with legacy, clean, unparsable and binary files, plus a missing path after it."""
    result = run(FIXTURES, FIXTURES / "missing")
    assert result.returncode == 1
    assert sorted(f[:3] for f in findings(result.stdout)) == expected(FIXTURES / "legacy_ops.py")
    problems = result.stderr.splitlines()
    assert len(problems) == 3, problems
    assert {Path(p.split(":", 1)[0]).name for p in problems} == {"python2_script.py", "corrupted_blob.py", "missing"}
    assert result.stdout.splitlines()[-1].endswith("in 4 file(s); 3 input(s) could not be checked")


def test_base_url_option():
    result = run("--base-url", "https://example.org/docs", FIXTURES / "legacy_ops.py")
    urls = {f[3] for f in findings(result.stdout)}
    assert urls and all(u.startswith("https://example.org/docs/guides/deprecations.html#") for u in urls)


def test_checker_is_standalone_and_runs_on_python_3_9():
    tree = ast.parse(CHECKER.read_text(), feature_version=(3, 9))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_installed_pytensor_package():
    """PyTensor itself: only its own compatibility shims, which define and call the legacy methods."""
    import pytensor

    package = Path(pytensor.__file__).parent
    result = run(package)
    assert result.stderr == "", result.stderr  # every file of the package parses
    matches = [m for m in map(FINDING.match, result.stdout.splitlines()) if m]
    found = {Path(m["file"]).relative_to(package).as_posix() for m in matches}
    allowed_files = {"graph/op.py", "scalar/basic.py"}  # Op's legacy defaults and the fallbacks that call them
    assert found <= allowed_files, found
    assert result.returncode == (1 if found else 0)


def _python_3_9():
    """A working Python 3.9 interpreter (pyenv's, or python3.9 on PATH), or None."""
    import glob
    import shutil

    candidates = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.9*/bin/python"))) + [shutil.which("python3.9")]
    for python in filter(None, candidates):
        check = subprocess.run([python, "-c", "import sys; assert sys.version_info[:2] == (3, 9)"],
                               capture_output=True)
        if check.returncode == 0:
            return python
    return None


PYTHON_3_9 = _python_3_9()


@pytest.mark.skipif(PYTHON_3_9 is None, reason="no Python 3.9 interpreter on this machine")
def test_same_findings_under_python_3_9():
    ours = run(FIXTURES / "legacy_ops.py")
    old = subprocess.run([PYTHON_3_9, str(CHECKER), str(FIXTURES / "legacy_ops.py")], capture_output=True,
                         text=True, timeout=120)
    assert (old.returncode, old.stdout, old.stderr) == (ours.returncode, ours.stdout, ours.stderr)
