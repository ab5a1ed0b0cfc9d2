"""Every internal link and #anchor in the built site resolves, and every citable anchor still exists."""

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import ROOT, html_ids, soup

CITABLE = ROOT / "tests" / "citable-anchors.txt"
# A committed copy of the list that may only grow: every line in it must stay in CITABLE.
FROZEN = ROOT / "tests" / "citable-anchors.frozen"


def anchors_in(text):
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def citable_anchors():
    return anchors_in(CITABLE.read_text())


def committed(path):
    """The file as the last commit has it (None outside a git checkout, or if it is not committed yet)."""
    done = subprocess.run(["git", "show", f"HEAD:{path.relative_to(ROOT).as_posix()}"], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def internal_links(site: Path):
    for page in sorted(site.rglob("*.html")):
        for a in soup(page).find_all("a", href=True):
            href = a["href"]
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            yield page, href, parts


def test_internal_links_and_anchors_resolve(site):
    ids_cache, broken = {}, []
    for page, href, parts in internal_links(site):
        base = site if parts.path.startswith("/") else page.parent  # the 404 page uses root-relative links
        target = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else page
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(f"{page.relative_to(site)}: {href} (no such file)")
            continue
        if parts.fragment and target.suffix == ".html":
            ids = ids_cache.setdefault(target, html_ids(target))
            if unquote(parts.fragment) not in ids:
                broken.append(f"{page.relative_to(site)}: {href} (no such anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(sorted(set(broken)))


@pytest.mark.parametrize("url", citable_anchors())
def test_citable_anchor_resolves(site, url):
    path, _, fragment = url.partition("#")
    page = site / path
    assert page.exists(), f"{path} is gone: restore it or add a redirect in conf.py"
    redirect = re.search(r'http-equiv="refresh" content="0; url=([^"#]+)', page.read_text())
    if redirect:  # a moved page: sphinx-reredirects keeps the #fragment, so the anchor must exist at the target
        page = (page.parent / redirect.group(1)).resolve()
        assert page.exists(), f"{path} redirects to a missing page"
    assert fragment in html_ids(page), f"#{fragment} disappeared from {path}"


def test_citable_list_is_append_only_and_unique():
    anchors = citable_anchors()
    assert len(anchors) == len(set(anchors)), "duplicate entries"
    frozen = anchors_in(FROZEN.read_text())
    assert frozen, f"{FROZEN.name} is empty"
    lost = [a for a in frozen if a not in set(anchors)]
    assert not lost, f"removed from {CITABLE.name} (citable anchors are permanent; restore them): {lost}"


@pytest.mark.parametrize("path", [CITABLE, FROZEN], ids=lambda p: p.name)
def test_no_line_removed_since_the_last_commit(path):
    """Catches an edit that removes a line from both files before it is committed."""
    before = committed(path)
    if before is None:
        pytest.skip(f"{path.name}: no committed version to compare with")
    lost = set(anchors_in(before)) - set(anchors_in(path.read_text()))
    assert not lost, f"lines removed from {path.name} since the last commit: {sorted(lost)}"


def test_every_copy_of_the_sites_address_is_conf_pys():
    """Cells that must run without a clone (downloaded notebooks) and the downloadable checker write the published
    site's address out; each copy must be conf.py's html_baseurl (the one place it is set), or a link breaks."""
    import os
    import runpy

    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith(("READTHEDOCS", "SITE_"))}
    try:
        base = runpy.run_path(str(ROOT / "conf.py"))["html_baseurl"]
    finally:
        os.environ.update(saved)
    host = urlsplit(base).netloc
    sources = [p for p in sorted(ROOT.glob("*/*.md")) + sorted(ROOT.glob("*.md")) + sorted(ROOT.glob("tools/*.py"))
               if p.parts[len(ROOT.parts)] not in {"tests", "_build", ".venv", "bench"}]
    copies = [(p.relative_to(ROOT).as_posix(), url) for p in sources
              for url in re.findall(rf"https?://{re.escape(host)}[^\s\"'`)<>]*", p.read_text())]
    assert copies, "the pages no longer write the address anywhere: drop this test"
    assert [(path, url) for path, url in copies if not url.startswith(base)] == []
