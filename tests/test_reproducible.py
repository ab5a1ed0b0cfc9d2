"""Two clean builds of the same sources give the same text on every page.

Allowed to differ, and marked so in the pages: cells tagged `timing` (measured times, and figures of them) and
inline values wrapped as `[...]{.timing}`. Everything else, including seeded random draws, must match.
"""

import subprocess

import pytest

from conftest import ROOT, content_pages, soup

pytestmark = pytest.mark.slow  # a second full build


def page_text(path):
    html = soup(path)
    article = html.select_one("article") or html
    for marked in article.select(".tag_timing, .timing, script, style"):
        marked.decompose()
    return " ".join(article.get_text(" ").split())


def test_a_second_clean_build_gives_the_same_text(site, tmp_path):
    result = subprocess.run(["make", "--no-print-directory", "html", f"OUT={tmp_path}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    second = tmp_path / "html"
    differing = []
    for page in content_pages():
        first_text, second_text = page_text(site / page), page_text(second / page)
        if first_text != second_text:
            at = next(i for i, (a, b) in enumerate(zip(first_text, second_text)) if a != b) \
                if any(a != b for a, b in zip(first_text, second_text)) else min(len(first_text), len(second_text))
            differing.append(f"{page}: ...{first_text[max(0, at - 80):at + 80]!r}\n"
                             f"   vs ...{second_text[max(0, at - 80):at + 80]!r}")
    assert not differing, "pages whose text changed between two builds:\n" + "\n".join(differing)
