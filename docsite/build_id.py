"""Print an identifier of the site's sources, so the tests can tell whether a built site is current.

It hashes every file git tracks or would track (committed or not), except the tests themselves.
"""

import hashlib
import subprocess
from pathlib import Path

from docsite import ROOT


def build_id() -> str:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()
    digest = hashlib.sha256()
    for name in sorted(files):
        path = ROOT / name
        if name.startswith("tests/") or not path.is_file():
            continue
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


if __name__ == "__main__":
    print(build_id())
