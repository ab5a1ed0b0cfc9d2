"""Hosting: Binder opens a running notebook, Read the Docs builds the site, the launch link is configured once.

- Binder (slow): the environment is built the way repo2docker builds it for this repository. repo2docker itself
  (the pinned jupyter-repo2docker package) says which files it uses (binder/ or the root), which Python, which
  lock file, which pip command, which postBuild and start script; the JupyterLab, Notebook and Jupyter Server
  versions come from that lock file. JupyterLab then opens the launch button's URL path in Chromium.
- Read the Docs: .readthedocs.yaml is read the way Read the Docs reads it (project type, install steps, output).
- Launch link: conf.py's one hosting place, with and without a repository configured.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from importlib.resources import files
from pathlib import Path

import jupytext
import pytest
import yaml

from conftest import soup
from docsite import ROOT, rtd_build

# The pages the Binder test opens, and how many code cells of each it runs.
BINDER_PAGES = ["notebooks/loop.md", "notebooks/vocabulary.md"]
FIRST_CODE_CELLS = 3
# JupyterLab's words when a lab extension fails to load or a document viewer is missing.
EXTENSION_FAILURE = re.compile(r"(?i)document viewer .* not found|failed to load|extension|plugin|jupytext")
JUPYTER_PACKAGES = ("jupyterlab", "notebook", "jupyter_server")  # taken from repo2docker's lock file


def working_tree_copy(dest: Path) -> Path:
    """The files a clone of the working tree would have (committed or not, nothing git ignores)."""
    names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


# --- Binder ---------------------------------------------------------------------------------------------------


def repo2docker_plan(repo: Path) -> dict:
    """What repo2docker's Python buildpack would do with the repository at `repo` (run from inside it)."""
    with warnings.catch_warnings():  # repo2docker imports python-json-logger's old module name
        warnings.simplefilter("ignore", DeprecationWarning)
        from repo2docker.buildpacks import PythonBuildPack

    cwd = os.getcwd()
    os.chdir(repo)
    try:
        bp = PythonBuildPack(base_image="docker.io/library/buildpack-deps:24.04")
        bp.platform = "linux/amd64"
        assert bp.detect(), "repo2docker would not use its Python buildpack"
        build_env = dict(bp.get_build_env())
        lock = next(src for src in bp.get_build_script_files() if src.endswith(".lock"))
        return {
            "binder_dir": bp.binder_dir,
            "python": bp.python_version,
            "one_env": build_env["KERNEL_PYTHON_PREFIX"] == "${NB_PYTHON_PREFIX}",
            "lock": lock,
            "pip": [cmd for _, cmd in bp.get_preassemble_scripts() + bp.get_assemble_scripts() if "pip" in cmd],
            "post_build": bp.get_post_build_scripts(),
            "start": bp.get_start_script(),
        }
    finally:
        os.chdir(cwd)


def lock_versions(lock_name: str) -> dict:
    """Package versions in one of repo2docker's conda lock files (read from the installed jupyter-repo2docker)."""
    text = (files("repo2docker") / "buildpacks" / lock_name).read_text()
    found = re.findall(r"^https://\S+/(?:noarch|linux-64)/(\S+?)-(\d[^-]*)-[^-/]+\.(?:conda|tar\.bz2)#", text, re.M)
    return dict(found)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, **kwargs):
    """Run a shell command; on failure show its output."""
    proc = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def binder(tmp_path_factory):
    """The repository built as repo2docker builds it, and JupyterLab serving it on 127.0.0.1."""
    home = working_tree_copy(tmp_path_factory.mktemp("jovyan"))  # repo2docker: REPO_DIR = HOME
    plan = repo2docker_plan(home)
    assert plan["python"] == "3.12", f"repo2docker would build Python {plan['python']} (runtime.txt)"
    assert plan["one_env"], "kernel and Jupyter server share one environment"
    versions = lock_versions(plan["lock"])
    pins = [f"{name}=={versions[name]}" for name in JUPYTER_PACKAGES]

    env_dir = tmp_path_factory.mktemp("notebook-env")  # stands for /srv/conda/envs/notebook
    base_python = getattr(sys, "_base_executable", sys.executable)
    run([base_python, "-m", "venv", str(env_dir)])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTENSOR", "NUMBA", "JUPYTER", "VIRTUAL_ENV"))}
    env |= {"HOME": str(home), "REPO_DIR": str(home), "NB_USER": "jovyan", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "NB_PYTHON_PREFIX": str(env_dir), "KERNEL_PYTHON_PREFIX": str(env_dir),
            "PATH": f"{env_dir}/bin:{os.environ['PATH']}", "WARM_PAGES": ""}
    # 1. The base environment (repo2docker installs it from its lock file with conda; pip here).
    run([f"{env_dir}/bin/pip", "install", "-q", "--no-compile", *pins], env=env)
    # 2. repo2docker's own pip command for the repository's requirements, as the user, in REPO_DIR. Two changes
    #    for speed only: pip's cache is used (repo2docker's --no-cache-dir keeps the image small) and no .pyc files
    #    are written ahead (Python writes them on first import).
    for cmd in plan["pip"]:
        run(cmd.replace(" --no-cache-dir", " --no-compile"), env=env, cwd=home, executable="/bin/bash")
    # 3. postBuild, as the user, from REPO_DIR (WARM_PAGES empty: the compile-cache warming has its own test).
    for script in plan["post_build"]:
        os.chmod(home / script, 0o755)
        run(["./" + script], env=env, cwd=home)

    port = free_port()
    start = [plan["start"].replace("${REPO_DIR}", str(home))] if plan["start"] else []
    cmd = start + [f"{env_dir}/bin/jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                   "--ServerApp.port_retries=0", "--allow-root", f"--ServerApp.root_dir={home}",
                   # No token, no password, no XSRF check: a local test server the browser opens directly.
                   "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True"]
    log = open(home.parent / "jupyterlab.log", "w")
    server = subprocess.Popen(cmd, env=env, cwd=home, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=2)
                break
            except OSError:
                assert server.poll() is None, f"JupyterLab exited:\n{Path(log.name).read_text()[-3000:]}"
                time.sleep(0.5)
        yield {"base": base, "home": home, "plan": plan, "pins": pins, "log": Path(log.name), "env": env,
               "env_dir": env_dir}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def api(base, path):
    with urllib.request.urlopen(f"{base}{path}", timeout=10) as response:
        return json.load(response)


def hosting_context(env: dict) -> dict:
    """conf.py's hosting settings (html_baseurl and html_context) when the build runs with these variables."""
    code = ("import json, runpy; c = runpy.run_path('conf.py'); "
            "print(json.dumps({'html_baseurl': c['html_baseurl'], **c['html_context']}))")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SITE_", "READTHEDOCS"))}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean | env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def launch_urlpath(source: str) -> str:
    """The urlpath the Launch button sends Binder to, from the one hosting place (conf.py)."""
    context = hosting_context({"SITE_REPO": "owner/name"})
    return context["binder_launch"].format(path=source).split("urlpath=", 1)[1]


@pytest.mark.slow
@pytest.mark.parametrize("source", BINDER_PAGES)
def test_binder_opens_the_launch_url_as_a_running_notebook(binder, browser, source, tmp_path):
    base = binder["base"]
    urlpath = launch_urlpath(source)
    assert urlpath == f"lab/tree/{source}"
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    # A reader's first visit: no workspace remembered from another test (404: there was none).
    try:
        urllib.request.urlopen(urllib.request.Request(f"{base}/lab/api/workspaces/default", method="DELETE"))
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
    try:
        page.goto(f"{base}/{urlpath}", wait_until="domcontentloaded")
        current_tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
        current_tab.filter(has_text=Path(source).name).wait_for(timeout=90_000)
        page.wait_for_selector(".jp-NotebookPanel, .jp-FileEditor", state="visible", timeout=90_000)
        page.wait_for_timeout(1000)  # let a late document factory replace the widget, if it would
        page.screenshot(path=str(tmp_path / "opened.png"))
        assert page.locator(".jp-FileEditor:visible").count() == 0, (
            f"{urlpath} opened in the text editor, not as a notebook; console:\n" + "\n".join(console))
        assert page.locator(".jp-NotebookPanel:visible").count() == 1

        sessions = [s for s in api(base, "/api/sessions") if s["path"] == source]
        for _ in range(60):
            if sessions:
                break
            time.sleep(0.5)
            sessions = [s for s in api(base, "/api/sessions") if s["path"] == source]
        assert sessions and sessions[0]["kernel"]["name"] == "python3", sessions

        # Run the first FIRST_CODE_CELLS code cells as a reader would: select the first, then Shift+Enter through
        # them (and the Markdown cells between them).
        cells = jupytext.read(ROOT / source).cells
        code_at = [i for i, c in enumerate(cells) if c.cell_type == "code"]
        code_cells = page.locator(".jp-Notebook .jp-CodeCell")
        code_cells.first.locator(".jp-InputPrompt").click()
        page.keyboard.press("Escape")
        for _ in range(code_at[FIRST_CODE_CELLS - 1] - code_at[0] + 1):
            page.keyboard.press("Shift+Enter")
        # JupyterLab renders only the cells near the view: back to the top, where the first code cells are.
        expected = [f"[{n}]:" for n in range(1, FIRST_CODE_CELLS + 1)]
        for _ in range(240):
            page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").evaluate("e => { e.scrollTop = 0; }")
            texts = [t.strip() for t in code_cells.locator(".jp-InputArea-prompt").all_inner_texts()]
            if texts[:FIRST_CODE_CELLS] == expected:
                break
            page.wait_for_timeout(500)
        page.screenshot(path=str(tmp_path / "ran.png"))
        assert texts[:FIRST_CODE_CELLS] == expected, f"the first code cells did not all run: {texts}"
        for n in range(FIRST_CODE_CELLS):
            stderr = code_cells.nth(n).locator('[data-mime-type="application/vnd.jupyter.stderr"]')
            assert stderr.count() == 0, f"code cell {n + 1} wrote an error:\n{stderr.all_inner_texts()}"
        kernel = api(base, f"/api/kernels/{sessions[0]['kernel']['id']}")
        assert kernel["execution_state"] in ("idle", "busy"), kernel
    finally:
        context.close()
    failures = [m for m in console if m.startswith(("error", "pageerror")) or EXTENSION_FAILURE.search(m)
                and m.startswith("warning")]
    assert not failures, "browser console:\n" + "\n".join(failures)


def test_postbuild_warms_the_compile_cache_for_any_cpu(tmp_path):
    """binder/postBuild's warming on one small page: the page runs, PyTensor's Numba cache fills under HOME, and
    every cache entry is compiled for the generic CPU that binder/start also selects at run time."""
    plan = repo2docker_plan(ROOT)
    post_build = ROOT / plan["post_build"][0]
    assert "NUMBA_CPU_NAME=generic" in (ROOT / plan["start"].replace("${REPO_DIR}/", "")).read_text()
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTENSOR", "NUMBA", "JUPYTER"))}
    env |= {"HOME": str(home), "WARM_PAGES": "api/checking.md",
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    proc = run([str(post_build)], cwd=ROOT, env=env)
    assert "api/checking.md: executed in" in proc.stdout and "0 problem(s)" in proc.stdout, proc.stdout
    assert "failed while warming" not in proc.stdout
    viewers = json.loads((home / ".jupyter/labconfig/default_setting_overrides.json").read_text())
    assert "Jupytext Notebook" in json.dumps(viewers), viewers

    import pickle

    indexes = list((home / ".pytensor" / "numba").rglob("*.nbi"))
    assert indexes, "postBuild left no Numba cache under ~/.pytensor/numba"
    cpus = set()
    for index in indexes:  # numba/core/caching.py, IndexDataCacheFile: a version, then (stamp, {key: file})
        with open(index, "rb") as f:
            pickle.load(f)
            _, overloads = pickle.loads(f.read())
        cpus |= {key[1][1] for key in overloads}  # key = (signature, codegen.magic_tuple(), hashes)
    assert cpus == {"generic"}, cpus


# --- Read the Docs ---------------------------------------------------------------------------------------------



def read_the_docs_problems(config: dict) -> list[str]:
    """Why Read the Docs would not build and publish the site from this .readthedocs.yaml (empty: it would)."""
    problems = []
    build = config.get("build") or {}
    if str(config.get("version")) != "2":
        problems.append("version must be 2")
    if "os" not in build or "python" not in (build.get("tools") or {}):
        problems.append("build.os and build.tools.python are required")
    kind = rtd_build.doctype(config)
    if kind == "generic":
        problems.append("project type 'generic' (a build job is overridden and there is no sphinx: key): Read the "
                        "Docs creates no virtualenv and skips python.install")
    if (config.get("sphinx") or {}).get("configuration") != "conf.py":
        problems.append("sphinx.configuration must be conf.py")
    plan = rtd_build.steps(config)
    names = [name for name, _ in plan]
    installs = [c for name, commands in plan if name == "install" for c in commands]
    if not any(c.endswith("-r requirements.txt") for c in installs):
        problems.append("requirements.txt is not installed")
    if "build.html" not in names:
        return problems + ["no HTML build step"]
    if "install" in names and names.index("install") > names.index("build.html"):
        problems.append("the requirements are installed after the build")
    # Where the HTML goes: each make command dry-run (make -n) with Read the Docs' variables.
    fake = {"READTHEDOCS_OUTPUT": "/rtd/checkout/_readthedocs/", "READTHEDOCS_VIRTUALENV_PATH": "/rtd/envs/latest"}
    for command in dict(plan)["build.html"]:
        if command.startswith("make "):
            lines = run(["/bin/sh", "-c", command.replace("make ", "make -n ", 1)], cwd=ROOT,
                        env=os.environ | fake).stdout.splitlines()
            sphinx = [line.split() for line in lines if "sphinx-build" in line]
            if not sphinx or Path(sphinx[-1][-1]) != Path("/rtd/checkout/_readthedocs/html"):
                problems.append(f"`{command}` does not write $READTHEDOCS_OUTPUT/html: {lines}")
            elif not sphinx[-1][0].startswith("/rtd/envs/latest/bin/") or "-W" not in sphinx[-1]:
                problems.append(f"`{command}` is not the strict build in Read the Docs' virtualenv: {sphinx[-1]}")
            if any("_build/html" in line for line in lines):
                problems.append(f"`{command}` writes _build/html (Read the Docs fails a build that leaves it)")
        elif "$READTHEDOCS_OUTPUT/html" not in command:
            problems.append(f"`{command}` does not write $READTHEDOCS_OUTPUT/html")
    return problems


def test_read_the_docs_builds_a_sphinx_project_into_its_output_folder():
    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    assert read_the_docs_problems(config) == []
    # Read the Docs installs the requirements (after its own pip, setuptools and Sphinx), then runs the job.
    plan = rtd_build.steps(config)
    assert [name for name, _ in plan] == ["create_environment", "install", "build.html"]
    assert plan[1][1][-1].endswith("--exists-action=w -r requirements.txt")


def test_read_the_docs_output_folder_is_not_a_source():
    from sphinx.util.matching import Matcher

    exclude = runpy_conf()["exclude_patterns"]
    assert Matcher(exclude)("_readthedocs"), "Sphinx would read $READTHEDOCS_OUTPUT as sources"


def runpy_conf() -> dict:
    import runpy

    return runpy.run_path(str(ROOT / "conf.py"))


# --- The launch link: conf.py's one hosting place ---------------------------------------------------------------

def test_hosting_settings_come_from_one_place_with_overrides():
    assert hosting_context({})["binder_launch"] == "", "no repository configured: no Binder link"
    assert hosting_context({"SITE_REPO": "me/pp", "SITE_BRANCH": "dev"})["binder_launch"] == (
        "https://mybinder.org/v2/gh/me/pp/dev?urlpath=lab/tree/{path}")
    on_rtd = hosting_context({"READTHEDOCS_GIT_CLONE_URL": "https://github.com/me/pp.git",
                              "READTHEDOCS_GIT_COMMIT_HASH": "0123abc",
                              "READTHEDOCS_CANONICAL_URL": "https://pp.readthedocs.io/en/stable/"})
    assert on_rtd["binder_launch"] == "https://mybinder.org/v2/gh/me/pp/0123abc?urlpath=lab/tree/{path}"
    assert on_rtd["html_baseurl"] == "https://pp.readthedocs.io/en/stable/"
    assert hosting_context({"READTHEDOCS_GIT_CLONE_URL": "https://gitlab.com/me/pp.git"})["binder_launch"] == ""


@pytest.mark.parametrize("env, expected", [
    ({}, None),
    ({"SITE_REPO": "me/pp", "SITE_BRANCH": "dev"}, "https://mybinder.org/v2/gh/me/pp/dev?urlpath=lab/tree/index.md"),
], ids=["no-repository", "repository"])
def test_launch_button_is_absent_without_a_repository(tmp_path, env, expected):
    fixture = ROOT / "tests" / "fixtures" / "hosting-site"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SITE_", "READTHEDOCS"))}
    run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(fixture), str(tmp_path / "html"),
         "-d", str(tmp_path / "doctrees")], env=clean | env)
    page = soup(tmp_path / "html" / "index.html")
    links = page.select(".launch-links a")
    binder = [a["href"] for a in links if "mybinder.org" in a["href"]]
    assert binder == ([expected] if expected else [])
    assert [a.get_text(strip=True) for a in links if "mybinder.org" not in a["href"]] == [".ipynb", ".md"]
    assert ("Launch in Binder" in page.get_text()) == bool(expected)
