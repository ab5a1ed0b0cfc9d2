"""Replay Read the Docs' build of this repository from .readthedocs.yaml: `make rtd`.

Read the Docs (its builder, readthedocs/doc_builder/director.py) clones the repository, then for a Sphinx or MkDocs
project (a `sphinx:` or `mkdocs:` key) creates a virtualenv with build.tools.python, upgrades pip and setuptools,
installs the latest Sphinx, then each python.install entry, and then runs the build jobs, with $READTHEDOCS_OUTPUT
pointing to <checkout>/_readthedocs/ and the virtualenv's bin/ first on PATH. A project with neither key that
overrides a build job is "generic": no virtualenv, no install, only the jobs. The build succeeds when every command
exits 0, $READTHEDOCS_OUTPUT/html/ exists, and no _build/html/ was left in the checkout.

This does the same in <workdir>/ (default _build/rtd/): checkout/ is a copy of the working tree (committed or not,
nothing git ignores), envs/latest/ the fresh virtualenv. Two differences: pip may use its cache (Read the Docs
passes --no-cache-dir), and build.apt_packages are not installed (listed, if any).

    python -m docsite.rtd_build --python /path/to/python3.12 [--workdir _build/rtd]
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from docsite import ROOT

# The jobs a build runs, in Read the Docs' order (after the checkout).
JOB_ORDER = ["post_checkout", "pre_system_dependencies", "post_system_dependencies", "pre_create_environment",
             "create_environment", "post_create_environment", "pre_install", "install", "post_install",
             "pre_build", "build.html", "build.htmlzip", "build.pdf", "build.epub", "post_build"]
NEW_JOBS = ["create_environment", "install", "build.html", "build.pdf", "build.epub", "build.htmlzip"]


def job(config, name):
    """The commands of build.jobs.<name> (None when not given: Read the Docs then runs its default step)."""
    node = config.get("build", {}).get("jobs", {})
    for part in name.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def doctype(config):
    """Read the Docs' project type for this configuration (readthedocs/config/config.py, `doctype`)."""
    if config.get("build", {}).get("commands"):
        return "generic"
    if any(job(config, name) is not None for name in NEW_JOBS) and not ("sphinx" in config or "mkdocs" in config):
        return "generic"
    if config.get("mkdocs"):
        return "mkdocs"
    return (config.get("sphinx") or {}).get("builder", "html")


def steps(config):
    """(job name, commands) in the order Read the Docs runs them; default steps are spelled out as commands."""
    kind = doctype(config)
    pip = "$READTHEDOCS_VIRTUALENV_PATH/bin/python -m pip install"
    defaults = {"create_environment": [], "install": [], "build.html": []}
    if kind != "generic":
        defaults["create_environment"] = ["python -m venv $READTHEDOCS_VIRTUALENV_PATH"]
        defaults["install"] = [f"{pip} --upgrade pip setuptools",
                               f"{pip} --upgrade {'mkdocs' if kind == 'mkdocs' else 'sphinx'}"]
        for entry in config.get("python", {}).get("install", []):
            if "requirements" in entry:
                defaults["install"].append(f"{pip} --exists-action=w -r {entry['requirements']}")
            elif "path" in entry:
                extras = ",".join(entry.get("extra_requirements", []))
                target = entry["path"] if entry["path"] == "." else "./" + entry["path"]
                defaults["install"].append(f"{pip} --upgrade --upgrade-strategy only-if-needed "
                                           f"{target}{f'[{extras}]' if extras else ''}")
        conf_dir = str(Path((config.get("sphinx") or {}).get("configuration", "conf.py")).parent)
        defaults["build.html"] = [f"python -m sphinx -T -b {kind} -d _build/doctrees -D language=en {conf_dir} "
                                  "$READTHEDOCS_OUTPUT/html"]
    if config.get("build", {}).get("commands"):
        return [("build.commands", config["build"]["commands"])]
    plan = []
    for name in JOB_ORDER:
        commands = job(config, name)
        if commands is None:
            commands = defaults.get(name, [])
        if commands:
            plan.append((name, list(commands)))
    return plan


def working_tree_copy(dest):
    names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the interpreter standing for build.tools.python")
    parser.add_argument("--workdir", type=Path, default=ROOT / "_build" / "rtd")
    args = parser.parse_args(argv)

    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    wanted = str(config["build"]["tools"]["python"])
    have = subprocess.run([args.python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    if have != wanted:
        sys.exit(f"build.tools.python is {wanted}; {args.python} is Python {have}")
    if config["build"].get("apt_packages"):
        print("not installed here (build.apt_packages):", " ".join(config["build"]["apt_packages"]))

    work = args.workdir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    checkout, venv, tools = work / "checkout", work / "envs" / "latest", work / "tools"
    checkout.mkdir(parents=True)
    tools.mkdir()
    working_tree_copy(checkout)
    for name in ("python", "python3"):  # build.tools.python: `python` is that interpreter
        (tools / name).symlink_to(Path(args.python).resolve() if os.sep in args.python
                                  else Path(shutil.which(args.python)).resolve())
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("READTHEDOCS", "VIRTUAL_ENV", "PYTHON"))}
    env |= {"READTHEDOCS": "True", "READTHEDOCS_PROJECT": "pullback-pushforward", "READTHEDOCS_LANGUAGE": "en",
            "READTHEDOCS_VERSION": "latest", "READTHEDOCS_VERSION_NAME": "latest", "READTHEDOCS_VERSION_TYPE": "branch",
            "READTHEDOCS_REPOSITORY_PATH": str(checkout), "READTHEDOCS_OUTPUT": f"{checkout}/_readthedocs/",
            "READTHEDOCS_VIRTUALENV_PATH": str(venv), "READTHEDOCS_GIT_IDENTIFIER": "main",
            "READTHEDOCS_GIT_COMMIT_HASH": commit, "NO_COLOR": "1",
            "PATH": f"{venv}/bin:{tools}:{os.environ['PATH']}"}
    # Read the Docs passes its own values of these; pass ours through when set (e.g. to try a Binder link).
    for name in ("READTHEDOCS_CANONICAL_URL", "READTHEDOCS_GIT_CLONE_URL"):
        if name in os.environ:
            env[name] = os.environ[name]

    print(f"Read the Docs project type: {doctype(config)}; checkout: {checkout}")
    for name, commands in steps(config):
        for command in commands:
            print(f"[rtd {name}] {command}", flush=True)
            if subprocess.run(["/bin/sh", "-c", command], cwd=checkout, env=env).returncode != 0:
                sys.exit(f"Read the Docs would stop here: `{command}` failed ({name})")
    html = checkout / "_readthedocs" / "html"
    if not (html / "index.html").is_file():
        sys.exit(f"no {html}/index.html: Read the Docs would publish nothing")
    if (checkout / "_build" / "html").exists():
        sys.exit("_build/html exists in the checkout: Read the Docs fails such builds")
    print(f"Read the Docs build reproduced: {html}/index.html")


if __name__ == "__main__":
    main()
