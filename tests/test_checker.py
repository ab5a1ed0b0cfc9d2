"""tools/check_legacy_autodiff.py: the standalone checker and fixer that guides/checker.md offers for download."""

import ast
import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

import check_legacy_autodiff as checker  # tools/, on pytest's pythonpath (pyproject.toml)
from docsite import ROOT

CHECKER = ROOT / "tools" / "check_legacy_autodiff.py"
FIXTURES = ROOT / "tests" / "fixtures" / "checker"

# path:line:col: CODE [*] message (url)   (notebooks: path:cell N:line:col: ...)
FINDING = re.compile(r"^(?P<file>.+?):(?:cell (?P<cell>\d+):)?(?P<line>\d+):(?P<col>\d+): (?P<code>LAD\d{3})"
                     r"(?P<fixable> \[\*\])? (?P<message>.+) \((?P<url>https?://\S+)\)$")
AS_ERRORS = ["-W", "error::DeprecationWarning", "-W", "error::FutureWarning", "-W",
             "error::PendingDeprecationWarning"]


def run(*args, cwd=None, python=sys.executable, timeout=120):
    return subprocess.run([python, str(CHECKER), "--no-config", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def findings(stdout):
    """[(file name, line, code)] from the checker's text output."""
    return sorted((Path(m["file"]).name, int(m["line"]), m["code"])
                  for m in map(FINDING.match, stdout.splitlines()) if m)


def expected(*paths):
    """Lines marked `# expect: <codes>` in fixtures."""
    found = []
    for path in paths:
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = re.search(r"# expect: ((?:LAD\d{3} ?)+)", line)
            found += [(path.name, n, code) for code in m[1].split()] if m else []
    return sorted(found)


def copy_fixture(name, tmp_path):
    target = tmp_path / name
    (shutil.copytree if (FIXTURES / name).is_dir() else shutil.copy)(FIXTURES / name, target)
    return target


# ---------------------------------------------------------------------------------------------------------
# What it finds


def test_legacy_fixture_reports_every_marked_line_and_nothing_else():
    path = FIXTURES / "legacy_ops.py"
    result = run(path)
    assert (result.returncode, result.stderr) == (1, ""), result.stdout + result.stderr
    assert findings(result.stdout) == expected(path)
    assert result.stdout.splitlines()[-1].startswith(f"{len(expected(path))} legacy use(s) (")


def test_op_library_across_files():
    """Bases defined in another file (`class SumCubes(Reduction)`, Reduction in base.py) are Ops too."""
    result = run(FIXTURES / "oplib")
    assert result.returncode == 1, result.stderr
    assert findings(result.stdout) == expected(*sorted((FIXTURES / "oplib").glob("*.py")))


def test_a_file_given_alone_still_knows_bases_from_its_siblings():
    """pre-commit passes only the changed files."""
    result = run(FIXTURES / "oplib" / "ops.py")
    assert findings(result.stdout) == expected(FIXTURES / "oplib" / "ops.py")


def test_clean_code_and_other_libraries_eval_points_are_not_reported():
    result = run(FIXTURES / "clean_ops.py")
    assert (result.returncode, result.stderr) == (0, "")
    assert findings(result.stdout) == []


def test_compatibility_methods_kept_next_to_new_ones_are_notes_not_work():
    result = run(FIXTURES / "compat_ops.py")
    assert result.returncode == 0, result.stdout
    assert findings(result.stdout) == expected(FIXTURES / "compat_ops.py")
    assert all(" note: " in line and "kept for PyTensor < 3" in line
               for line in result.stdout.splitlines() if FINDING.match(line))
    assert "0 legacy use(s) (0 fixable with --fix), 2 kept for PyTensor < 3" in result.stdout


def test_theano_code_is_named_and_can_be_left_out(tmp_path):
    result = run("--output-format", "json", FIXTURES / "theano_ops.py")
    report = json.loads(result.stdout)
    assert {f["library"] for f in report["findings"]} == {"theano"}
    assert all("[Theano code: port it to PyTensor first]" in f["message"] for f in report["findings"])
    assert not any(f["fixable"] for f in report["findings"])  # never rewritten to PyTensor 3 names
    assert run("--ignore-library", "theano", FIXTURES / "theano_ops.py").returncode == 0
    copy = copy_fixture("theano_ops.py", tmp_path)
    run("--fix", copy)
    assert copy.read_bytes() == (FIXTURES / "theano_ops.py").read_bytes()


def test_every_rule_is_exercised_by_a_fixture():
    codes = {code for _, _, code in expected(*FIXTURES.glob("*.py"), *(FIXTURES / "oplib").glob("*.py"))}
    assert codes == set(checker.RULES)


def test_installed_pytensor_package():
    """PyTensor itself: only its compatibility shims, which define, call and re-export the legacy API."""
    import pytensor

    package = Path(pytensor.__file__).parent
    result = run(package)
    assert result.stderr == "", result.stderr  # every file of the package parses
    matches = [m for m in map(FINDING.match, result.stdout.splitlines()) if m]
    found = {Path(m["file"]).relative_to(package).as_posix() for m in matches}
    # Op's legacy default methods, the ScalarOp fallbacks that call them, the top-level re-export of Lop/Rop
    assert found <= {"graph/op.py", "scalar/basic.py", "__init__.py"}, found


# ---------------------------------------------------------------------------------------------------------
# --fix and --diff


def _fixed_copy(tmp_path):
    lib = copy_fixture("oplib", tmp_path)
    result = run("--fix", lib)
    assert (result.returncode, result.stderr) == (0, ""), result.stdout + result.stderr
    return lib


def _tokens(text):
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]


def test_fix_changes_only_the_legacy_tokens(tmp_path):
    lib = _fixed_copy(tmp_path)
    allowed = {"L_op", "R_op", "grad", "pullback", "pushforward", "Lop", "Rop", "eval_points", "cotangents",
               "tangents", "use_op_rop_implementation", "use_op_pushforward", "lop_overrides", "rop_overrides",
               '"rop_overrides"', '"pushforward"', "outputs", "outs", ",", "fgraph"}
    for path in sorted((FIXTURES / "oplib").glob("*.py")):
        old, new = path.read_text(), (lib / path.name).read_text()
        old_tokens, new_tokens = _tokens(old), _tokens(new)
        matcher = difflib.SequenceMatcher(a=old_tokens, b=new_tokens, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op != "equal":
                changed = {s for _, s in old_tokens[i1:i2] + new_tokens[j1:j2]}
                assert changed <= allowed, (path.name, op, old_tokens[i1:i2], new_tokens[j1:j2])
        # comments (the `# expect:` markers) and every untouched line stay byte-identical
        comments = [t for t in old_tokens if t[0] == tokenize.COMMENT]
        assert comments == [t for t in new_tokens if t[0] == tokenize.COMMENT]
        kept = [line for line in old.splitlines(True) if not re.search(r"expect: |fgraph", line)]
        assert all(line in new.splitlines(True) for line in kept), path.name


def test_fix_is_idempotent_and_leaves_clean_files_alone(tmp_path):
    lib = _fixed_copy(tmp_path)
    clean = copy_fixture("clean_ops.py", tmp_path)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in [*lib.glob("*.py"), clean]}
    again = run("--fix", lib, clean)
    assert again.returncode == 0
    assert again.stdout.startswith("fixed 0 legacy use(s) in 0 file(s)"), again.stdout
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in before} == before
    assert run(lib).returncode == 0  # nothing left


def test_diff_shows_the_fix_and_writes_nothing(tmp_path):
    lib = copy_fixture("oplib", tmp_path)
    result = run("--diff", "ops.py", cwd=lib)
    assert (lib / "ops.py").read_bytes() == (FIXTURES / "oplib" / "ops.py").read_bytes()
    fixed = _fixed_copy(tmp_path / "other")
    want = "".join(difflib.unified_diff((FIXTURES / "oplib" / "ops.py").read_text().splitlines(True),
                                        (fixed / "ops.py").read_text().splitlines(True), "a/ops.py", "b/ops.py"))
    assert result.stdout == want
    assert result.stderr.startswith("would fix 7 legacy use(s) in 1 file(s); 0 left to fix by hand")
    assert result.returncode == 1


def test_fix_leaves_the_non_mechanical_cases_reported(tmp_path):
    path = copy_fixture("legacy_ops.py", tmp_path)
    result = run("--fix", path)
    assert result.returncode == 1
    left = {code for _, _, code in findings(result.stdout)}
    assert left == {"LAD101", "LAD103", "LAD201", "LAD202", "LAD203", "LAD205", "LAD305", "LAD306", "LAD402"}
    text = path.read_text()
    compile(text, str(path), "exec")
    # `Rop` stays imported for the line kept on purpose, and the fixed uses get `pushforward` added to the import;
    # `Lop` is imported but unused here (the module calls `pytensor.gradient.Lop`): maybe a re-export, so it stays
    assert "from pytensor.gradient import Lop, Rop, pushforward  # expect:" in text
    assert "`Lop` is not used in this module (a re-export?" in result.stdout
    assert "kept = Rop(y, x, v)  # legacy-autodiff: ok" in text


FIXED_LIBRARY_CHECK = r'''
import json, sys
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import get_mode
from pytensor.gradient import grad, verify_grad
import oplib

mode = get_mode("FAST_COMPILE")  # Python Ops: the Python linker, no Numba object-mode warning
x, u, v = pt.dvector("x"), pt.dvector("u"), pt.dvector("v")
rng = np.random.default_rng(0)
x0, u0, v0 = rng.uniform(0.2, 1.5, 4), rng.standard_normal(4), rng.standard_normal(4)
ops = [oplib.Cube(), oplib.ClippedExp(bound=1.5), oplib.Scale(2.5)]
outs = []
for op in ops:
    y = op(x)
    outs += [oplib.vjp(y, x, u), oplib.jvp(y, x, v), oplib.jvp_all([y], x, v)[0], y.shape]
for op in [oplib.SumSquares(), oplib.SumCubes()]:
    s = op(x)
    outs += [grad(s, x), oplib.jvp(s, x, v), oplib.vjp(s, x, pt.constant(1.5)), s.shape]
outs += [oplib.jvp_all([oplib.SumSquares()(x)], x, v)[0], oplib.helpers.vjp_module(ops[0](x), x, u)]
sa = oplib.smooth_abs(x)
outs += [oplib.vjp(sa, x, u), oplib.jvp(sa, x, v)]
f = pytensor.function([x, u, v], outs, mode=mode)
values = [np.asarray(o).tolist() for o in f(x0, u0, v0)]
if len(sys.argv) > 2:
    for op in [ops[0], ops[2], oplib.SumSquares(), oplib.SumCubes()]:  # ClippedExp's gradient is clipped
        verify_grad(op, [x0], rng=np.random.default_rng(1), mode=mode)
print(json.dumps(values))
'''


def test_fixed_library_runs_with_deprecations_as_errors_and_gives_the_same_derivatives(tmp_path):
    script = tmp_path / "derivatives.py"
    script.write_text(FIXED_LIBRARY_CHECK)
    python = [sys.executable]
    def library(folder):  # the Op library the script imports (oplib), found through PYTHONPATH
        return {"env": os.environ | {"PYTHONPATH": str(folder)}, "capture_output": True, "text": True, "timeout": 600}

    legacy = subprocess.run([*python, "-W", "ignore", script, FIXTURES], **library(FIXTURES))
    assert legacy.returncode == 0, legacy.stderr
    # The original really is legacy: with deprecations as errors it does not even import.
    strict_legacy = subprocess.run([*python, *AS_ERRORS, script, FIXTURES], **library(FIXTURES))
    assert strict_legacy.returncode != 0 and "DeprecationWarning" in strict_legacy.stderr
    _fixed_copy(tmp_path / "fixed")
    fixed = subprocess.run([*python, *AS_ERRORS, script, tmp_path / "fixed", "--verify-grad"],
                           **library(tmp_path / "fixed"))
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stderr == ""
    assert json.loads(fixed.stdout) == json.loads(legacy.stdout)  # identical, not just close


# ---------------------------------------------------------------------------------------------------------
# Real trees: the bugs found on day one


def test_huge_generated_expression_is_skipped_with_its_reason_and_the_run_goes_on(tmp_path):
    (tmp_path / "a_generated.py").write_text("f = " + " + ".join(f"x{i}" for i in range(100_000)) + "\n")
    shutil.copy(FIXTURES / "legacy_ops.py", tmp_path / "b_legacy.py")
    result = run(tmp_path, cwd=tmp_path)
    assert result.returncode == 2  # an unchecked file is not "legacy code found"
    assert "Traceback" not in result.stderr
    assert re.search(r"a_generated\.py: skipped: an expression is nested too deeply .*RecursionError",
                     result.stderr), result.stderr
    assert len(findings(result.stdout)) == len(expected(FIXTURES / "legacy_ops.py"))


def test_unreadable_directory_is_reported(tmp_path, monkeypatch, capsys):
    (tmp_path / "locked").mkdir()
    (tmp_path / "ok.py").write_text("x = 1\n")
    real = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    status = checker.main(["--no-config", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 2
    assert f"{tmp_path / 'locked'}: cannot read directory: Permission denied" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a mode-000 directory")
def test_unreadable_directory_really_unreadable(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        result = run(tmp_path)
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2 and "cannot read directory" in result.stderr


def test_fifo_named_like_python_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "y.py").write_text("from pytensor.gradient import Rop\n")
    result = run(tmp_path, timeout=30)
    assert "x.py: skipped: a FIFO, not a regular file" in result.stderr
    assert findings(result.stdout) == [("y.py", 1, "LAD202")]
    assert result.returncode == 2


def test_output_into_head_ends_quietly(tmp_path):
    (tmp_path / "many.py").write_text("from pytensor.gradient import Rop\n" + "Rop(y, x, v)\n" * 20_000)
    result = subprocess.run(f"{sys.executable} {CHECKER} --no-config {tmp_path} | head -n 2", shell=True,
                            capture_output=True, text=True, timeout=120)
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr == ""


def test_virtualenvs_and_build_trees_are_skipped_and_the_output_says_so(tmp_path):
    legacy = "from pytensor.gradient import Lop\n"
    for d in ["venv", "env", "build", "node_modules", "lib/python3.12/site-packages/pkg", "myenv", "src"]:
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
        (tmp_path / d / "m.py").write_text(legacy)
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    result = run(tmp_path, cwd=tmp_path)
    assert [f for f in findings(result.stdout)] == [("m.py", 1, "LAD201")]  # src/ only
    assert ("not scanned (default excludes; --no-default-excludes scans them): build/, env/, "
            "myenv (a virtualenv)/, node_modules/, site-packages/, venv/") in result.stdout
    assert len(findings(run("--no-default-excludes", tmp_path).stdout)) == 7
    help_text = run("--help").stdout
    assert all(name in help_text for name in ["venv", "env", "build", "node_modules", "site-packages"])


# ---------------------------------------------------------------------------------------------------------
# Rules, markers, configuration


def test_rule_codes_urls_and_labels_match_the_site():
    conf = (ROOT / "conf.py").read_text()
    default = re.search(r'html_baseurl = os\.environ\.get\(\s*"READTHEDOCS_CANONICAL_URL", "([^"]+)"', conf)[1]
    assert checker.BASE_URL == default
    page = (ROOT / "guides" / "checker.md").read_text()
    anchors = (ROOT / "tests" / "citable-anchors.txt").read_text().split()
    for code, rule in checker.RULES.items():
        assert re.fullmatch(r"LAD\d{3}", code)
        assert rule.url() == f"{default}guides/checker.html#checker-{code.lower()}"
        assert f"<{rule.label}>" in page or f"({rule.label})=" in page, rule.label
        assert f"guides/checker.html#{rule.label}" in anchors, rule.label
    result = run(FIXTURES / "legacy_ops.py")
    for m in filter(None, map(FINDING.match, result.stdout.splitlines())):
        assert m["url"] == checker.RULES[m["code"]].url()


@pytest.mark.parametrize("option, value, codes", [
    ("--select", "LAD301", {"LAD301"}),
    ("--select", "LAD3", {"LAD301", "LAD302", "LAD303", "LAD304", "LAD305", "LAD306"}),
    ("--select", "eval-points,op-grad", {"LAD301", "LAD101"}),
    ("--ignore", "LAD1,LAD2,LAD4", {"LAD301", "LAD302", "LAD303", "LAD304", "LAD305", "LAD306"}),
])
def test_select_and_ignore(option, value, codes):
    result = run(option, value, FIXTURES / "legacy_ops.py")
    assert {code for _, _, code in findings(result.stdout)} == codes


@pytest.mark.parametrize("args", [["--select", "LAD999"], ["--ignore", "bogus"], ["--fix", "--diff"],
                                  ["--output-format", "xml"], ["--ignore-library", "tensorflow"], ["--frobnicate"]])
def test_usage_errors_exit_2_without_traceback(args):
    result = run(*args, FIXTURES / "clean_ops.py")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.strip()


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


def test_line_marker_names_the_rule_and_file_marker_skips_the_file():
    source = ("from pytensor.gradient import pushforward\n"
              "a = pushforward(y, x, eval_points=v)  # legacy-autodiff: ok[LAD301]\n"
              "b = pushforward(y, x, eval_points=v)  # legacy-autodiff: ok[LAD202]\n"
              "c = pushforward(y, x, eval_points=v)  # legacy-autodiff: ok  (all rules)\n")
    assert [(f.line, f.code) for f in checker.check_source(source)] == [(3, "LAD301")]
    assert checker.check_source("# legacy-autodiff: skip-file\n" + source.replace("# legacy", "#")) == []


PYPROJECT = """
[project]
name = "demo"

[tool.check-legacy-autodiff]
select = ["LAD2", "LAD3"]  # Lop/Rop and keywords
ignore = [
    "LAD302",
]
exclude = ["vendored"]
"""


def test_pyproject_section_and_exclude(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "old.py").write_text("from pytensor.gradient import Rop\n")
    shutil.copy(FIXTURES / "legacy_ops.py", tmp_path / "mod.py")
    result = subprocess.run([sys.executable, CHECKER, "."], capture_output=True, text=True, cwd=tmp_path)
    codes = {code for _, _, code in findings(result.stdout)}
    assert codes == {"LAD201", "LAD202", "LAD203", "LAD204", "LAD205", "LAD301", "LAD303", "LAD304", "LAD305",
                     "LAD306"}
    assert not any(f[0] == "old.py" for f in findings(result.stdout))
    result = subprocess.run([sys.executable, CHECKER, "--exclude", "mod.py", "."], capture_output=True, text=True,
                            cwd=tmp_path)
    assert findings(result.stdout) == []


def test_toml_reader_without_tomllib(monkeypatch):
    """Python 3.9 and 3.10 have no tomllib: the small reader must agree with it on the section."""
    import tomllib

    want = tomllib.loads(PYPROJECT)["tool"]["check-legacy-autodiff"]
    monkeypatch.setitem(sys.modules, "tomllib", None)
    assert checker._toml_section(PYPROJECT, "tool.check-legacy-autodiff") == want


# ---------------------------------------------------------------------------------------------------------
# Output formats and exit codes


def test_json_output():
    result = run("--output-format", "json", FIXTURES / "legacy_ops.py", FIXTURES / "python2_script.py")
    report = json.loads(result.stdout)
    assert result.returncode == 2
    got = sorted((Path(f["path"]).name, f["line"], f["code"]) for f in report["findings"])
    assert got == expected(FIXTURES / "legacy_ops.py")
    first = report["findings"][0]
    assert set(first) >= {"path", "line", "column", "code", "name", "message", "url", "fixable", "library"}
    assert [Path(e["path"]).name for e in report["errors"]] == ["python2_script.py"]
    assert report["summary"]["legacy"] == len(got)


def test_github_annotations():
    result = run("--output-format", "github", FIXTURES / "legacy_ops.py")
    lines = result.stdout.splitlines()
    assert len(lines) == len(expected(FIXTURES / "legacy_ops.py"))
    assert all(re.match(r"^::warning file=[^,]+,line=\d+,col=\d+,title=LAD\d{3}::.+ \(https://\S+\)$", line)
               for line in lines), lines[:3]


def test_statistics_and_exit_zero():
    result = run("--statistics", "--exit-zero", FIXTURES / "legacy_ops.py")
    assert result.returncode == 0
    rows = [line.split() for line in result.stdout.splitlines() if re.match(r"^\s*\d+\s+LAD", line)]
    counts = {row[1]: int(row[0]) for row in rows}
    assert counts == {code: sum(1 for *_, c in expected(FIXTURES / "legacy_ops.py") if c == code)
                      for code in counts} and sum(counts.values()) == len(expected(FIXTURES / "legacy_ops.py"))


# ---------------------------------------------------------------------------------------------------------
# Notebooks


def test_myst_and_ipynb_notebooks(tmp_path):
    md = copy_fixture("legacy_notebook.md", tmp_path)
    nb = copy_fixture("legacy_notebook.ipynb", tmp_path)
    result = run(md, nb)
    assert result.returncode == 1, result.stderr
    got = [(Path(m["file"]).name, m["cell"], int(m["line"]), m["code"])
           for m in map(FINDING.match, result.stdout.splitlines()) if m]
    assert [g for g in got if g[0].endswith(".md")] == [
        ("legacy_notebook.md", None, n, code) for _, n, code in expected(FIXTURES / "legacy_notebook.md")]
    assert [g for g in got if g[0].endswith(".ipynb")] == [
        ("legacy_notebook.ipynb", "2", 3, "LAD101"), ("legacy_notebook.ipynb", "3", 2, "LAD202")]
    fixed = run("--fix", md, nb)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    fixed_cell = json.loads(nb.read_text())["cells"][1]["source"]
    assert fixed_cell[2] == "    def pullback(self, inputs, outputs, output_grads):\n"
    original = (FIXTURES / "legacy_notebook.md").read_text().splitlines()
    changed = [(a, b) for a, b in zip(original, md.read_text().splitlines()) if a != b]
    assert len(changed) == len({n for _, n, _ in expected(FIXTURES / "legacy_notebook.md")})
    assert run(md, nb).returncode == 0


# ---------------------------------------------------------------------------------------------------------
# Distribution: one stdlib-only file, Python >= 3.9, a pre-commit hook


def test_checker_is_standalone_and_parses_as_python_3_9():
    tree = ast.parse(CHECKER.read_text(), feature_version=(3, 9))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_checker_itself_raises_no_deprecation_warning():
    result = subprocess.run([sys.executable, "-W", "error", CHECKER, "--no-config", FIXTURES], capture_output=True,
                            text=True, timeout=120)
    assert "Warning" not in result.stderr, result.stderr


def test_pre_commit_hook():
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "check-legacy-autodiff"
    assert hook["language"] == "script"  # no installation: pre-commit runs the file from the clone
    assert (ROOT / hook["entry"].split()[0]) == CHECKER
    mode = subprocess.run(["git", "ls-files", "-s", str(CHECKER)], capture_output=True, text=True, cwd=ROOT).stdout
    assert mode.startswith("100755"), "the hook's entry must be committed executable"
    assert CHECKER.read_text().startswith("#!/usr/bin/env python3\n")


def _pythons():
    """Older interpreters on this machine (pyenv's), to run the checker the way a reader would."""
    found = []
    for minor in (9, 10, 11):
        for python in sorted(Path.home().glob(f".pyenv/versions/3.{minor}*/bin/python")):
            found.append(str(python))
            break
    return found


@pytest.mark.parametrize("python", _pythons() or [pytest.param(None, marks=pytest.mark.skip("no pyenv Python"))])
def test_same_findings_under_older_pythons(python, tmp_path):
    ours = run(FIXTURES / "legacy_ops.py", FIXTURES / "oplib", FIXTURES / "legacy_notebook.md")
    old = run(FIXTURES / "legacy_ops.py", FIXTURES / "oplib", FIXTURES / "legacy_notebook.md", python=python)
    assert (old.returncode, old.stdout, old.stderr) == (ours.returncode, ours.stdout, ours.stderr)
    ours_fixed, old_fixed = _fixed_copy(tmp_path / "a"), copy_fixture("oplib", tmp_path / "b")
    assert run("--fix", old_fixed, python=python).returncode == 0
    for path in ours_fixed.glob("*.py"):
        assert (old_fixed / path.name).read_bytes() == path.read_bytes()


def test_fix_keeps_line_endings_encoding_and_reports_character_columns(tmp_path):
    path = tmp_path / "crlf.py"
    source = 'from pytensor.gradient import Lop\r\nx = "éé"; y = Lop(a, b, eval_points=c)  # café\r\n'
    path.write_bytes(source.encode())
    result = run(path)
    assert [m["col"] for m in map(FINDING.match, result.stdout.splitlines()) if m] == ["1", "15", "25"]
    run("--fix", path)
    assert path.read_bytes() == ('from pytensor.gradient import pullback\r\n'
                                 'x = "éé"; y = pullback(a, b, cotangents=c)  # café\r\n').encode()


@pytest.mark.parametrize("with_checker", [False, True])
def test_checker_page_runs_alone_in_an_empty_folder(tmp_path, with_checker):
    """A downloaded notebook: no repository around it. Without the checker next to it, one line says where to get
    it and every cell still runs; with it, the whole run (report, --diff, --fix, verify_grad) happens."""
    import nbformat

    shutil.copy(ROOT / "guides" / "checker.md", tmp_path)
    if with_checker:
        shutil.copy(CHECKER, tmp_path)
    result = subprocess.run([sys.executable, "-m", "docsite.run_notebook", str(tmp_path / "checker.md"),
                             "--save", str(tmp_path / "out.ipynb")], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    text = "".join(o.get("text", "") for c in nbformat.read(tmp_path / "out.ipynb", 4).cells
                   for o in c.get("outputs", []))
    missing = f"check_legacy_autodiff.py not found: download it from {checker.BASE_URL}guides/checker.html"
    assert (missing in text) != with_checker
    assert ("fixed: imports, differentiates and passes verify_grad" in text) == with_checker


def test_reexports_and_compatibility_shims_are_not_rewritten(tmp_path):
    """A package re-exporting `Lop`, and a `pullback` that calls `self.L_op` (PyTensor's own shim): renaming
    either would change an API or make `pullback` call itself."""
    init = tmp_path / "__init__.py"
    init.write_text("from pytensor.gradient import Lop, pullback  # re-exported for our users\n")
    shim = tmp_path / "shim.py"
    shim.write_text("from pytensor.graph.op import Op\n\n\nclass Old(Op):\n"
                    "    def pullback(self, inputs, outputs, cotangents):\n"
                    "        return self.L_op(inputs, outputs, cotangents)\n\n"
                    "    def L_op(self, inputs, outputs, output_grads):\n        return output_grads\n")
    before = init.read_bytes(), shim.read_bytes()
    result = run("--fix", init, shim)
    assert (init.read_bytes(), shim.read_bytes()) == before
    assert findings(result.stdout) == [("__init__.py", 1, "LAD201"), ("shim.py", 6, "LAD204"),
                                       ("shim.py", 8, "LAD900")]
    assert "renaming it would make `pullback` call itself" in result.stdout


def test_a_class_that_is_an_op_only_by_its_method_names_is_reported_not_rewritten(tmp_path):
    """No PyTensor import, no Op base: a `perform` and a `grad` make it look like an Op, not enough to rewrite."""
    path = tmp_path / "model.py"
    path.write_text("class Model:\n    def perform(self, x):\n        return x\n\n"
                    "    def grad(self, inputs, output_grads):\n        return output_grads\n")
    before = path.read_bytes()
    result = run("--fix", path)
    assert findings(result.stdout) == [("model.py", 5, "LAD101")]
    assert "not sure this class is a PyTensor Op" in result.stdout
    assert path.read_bytes() == before
