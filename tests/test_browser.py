"""The site in a real browser (headless Chromium): what a reader sees and what a page loads."""

from urllib.parse import urlsplit

import pytest

from conftest import SITE, content_pages

PAGES = content_pages() if (SITE / "index.html").exists() else []
# pydata-sphinx-theme logs this once on a first visit (empty localStorage); it is harmless.
KNOWN_CONSOLE = ("Got invalid theme mode",)


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors, pg.requests = [], []
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    context.close()


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly_offline_and_accessibly(page, server, path):
    page.goto(f"{server}/{path}", wait_until="networkidle")
    errors = [e for e in page.console_errors if not e.startswith(KNOWN_CONSOLE)]
    assert not errors, f"console errors: {errors}"
    outside = [u for u in page.requests if urlsplit(u).hostname not in ("127.0.0.1", None)
               and not u.startswith("data:")]
    assert not outside, f"requests leaving the host: {outside}"

    broken = page.eval_on_selector_all("img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0))"
                                       ".map(i => i.src)")
    assert not broken, f"images that did not render: {broken}"
    if page.locator("div.highlight pre").count():
        assert page.locator("button.copybtn").count() > 0, "code blocks have copy buttons"
    # Accessibility (axe-core in both themes, phones, keyboard): tests/test_a11y.py.


def test_search_finds_pullback(page, server):
    page.goto(f"{server}/search.html?q=pullback", wait_until="networkidle")
    page.wait_for_selector("#search-results li", timeout=15000)
    titles = page.locator("#search-results li").all_inner_texts()
    assert any("vocabulary" in t.lower() or "pullback" in t.lower() for t in titles), titles


def test_dark_mode_turns_the_sites_own_additions_dark(page, server):
    """The theme's switch is the theme's; what the site adds must follow it: figures are inverted (not left on a
    white slab), HTML outputs (the stamp, tables) take the page's colours, and the launch buttons keep readable
    text. The choice persists across pages."""
    page.goto(f"{server}/notebooks/vocabulary.html", wait_until="networkidle")

    def looks():
        return page.evaluate("""() => {
            const style = (sel) => { const e = document.querySelector(sel); return e && getComputedStyle(e); };
            return {figure: style("div.cell_output img").filter,
                    output: style("div.cell_output .text_html").backgroundColor,
                    button: style(".launch-links .btn").color,
                    text: getComputedStyle(document.body).color};
        }""")

    for mode in ("dark", "light"):
        page.locator("button.theme-switch-button:visible").first.click()
        page.locator(f"button.theme-change-button[data-mode={mode}]:visible").first.click()
        assert page.evaluate("document.documentElement.dataset.theme") == mode
        page.wait_for_timeout(500)  # Bootstrap's .btn fades its colour (a .15 s transition): read the end state
        seen = looks()
        if mode == "dark":
            assert "invert" in seen["figure"], seen
            assert seen["output"] == "rgba(0, 0, 0, 0)", seen  # transparent: the page's own background
        else:
            assert seen["figure"] == "none", seen
        assert seen["button"] == seen["text"], seen  # the theme's text colour, not Bootstrap's #212529
    page.locator("button.theme-switch-button:visible").first.click()
    page.locator("button.theme-change-button[data-mode=dark]:visible").first.click()
    page.goto(f"{server}/notebooks/loop.html", wait_until="networkidle")  # another page: the choice persists
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert "invert" in looks()["figure"]


@pytest.mark.parametrize("path", ["notebooks/vocabulary.html", "notebooks/loop.html", "notebooks/ode.html"])
def test_figures_render_on_notebook_pages(page, server, path):
    """Each of these pages has figures, and the browser decodes every one (an empty page would not pass)."""
    page.goto(f"{server}/{path}", wait_until="networkidle")
    sizes = page.eval_on_selector_all("div.cell_output img", "imgs => imgs.map(i => i.naturalWidth)")
    assert sizes and all(w > 0 for w in sizes), sizes
