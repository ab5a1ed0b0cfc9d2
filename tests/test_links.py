"""Every internal link and #anchor in the built site resolves, and every citable anchor still exists."""

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from conftest import html_ids

CITABLE = Path(__file__).with_name("citable-anchors.txt")


def citable_anchors():
    lines = CITABLE.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def internal_links(site: Path):
    for page in sorted(site.rglob("*.html")):
        for a in BeautifulSoup(page.read_text(), "html.parser").find_all("a", href=True):
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
