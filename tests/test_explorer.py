"""The explorers (figures the reader drives, _static/explorer/): driven by keyboard in headless Chromium.

The tangent/cotangent explorer's numbers are checked against PyTensor's pushforward and pullback computed here at
the same points; the series explorers against the data their page's PyTensor cells embedded. Screenshots of each
explorer in light and dark mode, and at 390 px, go to _build/screenshots/ for a person to look at.

Against a page-only build (`make page NB=...`): EXPLORER_SITE=_build/page-notebooks-vocabulary pytest
tests/test_explorer.py -k tangent.
"""

import functools
import gzip
import http.server
import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from axe_playwright_python import sync_playwright as axe_module

from conftest import ROOT, _QuietHandler

EXPLORERS = {  # name -> page
    "tangent-cotangent": "notebooks/vocabulary.html",
    "fd-step": "guides/testing-rules.html",
    "loop-cost": "notebooks/loop.html",
    "jacobian-cost": "notebooks/vocabulary.html",
}
SERIES = ["fd-step", "loop-cost"]
AXE_JS = Path(axe_module.__file__).with_name("axe.min.js").read_text()
KNOWN_CONSOLE = ("Got invalid theme mode",)  # pydata-sphinx-theme, first visit (see test_browser.py)
SHOTS = ROOT / "_build" / "screenshots"
BUDGET = 2**20  # bytes a first visit transfers when the host sends gzip (the explorers' pages carry MathJax too)


@pytest.fixture(scope="module")
def base_url(request):
    """The built site (conftest's server), or EXPLORER_SITE, a folder built by `make page`."""
    folder = os.environ.get("EXPLORER_SITE")
    if not folder:
        yield request.getfixturevalue("server")
        return
    handler = functools.partial(_QuietHandler, directory=str(Path(folder).resolve()))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def open_page(browser, url, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and not m.text.startswith(KNOWN_CONSOLE)
            and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(url, wait_until="networkidle")
    return page


def state(root):
    return json.loads(root.get_attribute("data-state"))


def embedded(root):
    return json.loads(root.locator("script.ppx-data").text_content())


def press(handle, key, times):
    handle.focus()
    for _ in range(times):
        handle.press(key)


def axe_serious(page, selector):
    page.add_script_tag(content=AXE_JS)
    result = page.evaluate(f"async () => await axe.run(document.querySelector('{selector}'), "
                           "{resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {v['help']} x{len(v['nodes'])}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def screenshots(page, root, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        root.screenshot(path=str(SHOTS / f"explorer-{name}-{theme}.png"))


def finish(page, root, name):
    """Every explorer test ends the same way: no console errors, no serious axe finding in either theme, and
    screenshots for a person to look at."""
    assert not page.console_errors, page.console_errors
    for theme in ("light", "dark"):
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        assert not axe_serious(page, f'[data-explorer="{name}"]'), theme
    screenshots(page, root, name)
    page.context.close()


@pytest.fixture(scope="module")
def propagate():
    """f(x) = (x0 x1, sin x0): pushforward and pullback compiled by PyTensor, as on the vocabulary page."""
    pytensor = pytest.importorskip("pytensor")
    import pytensor.tensor as pt
    from pytensor.gradient import pullback, pushforward

    x, x_dot, y_bar = pt.vector("x"), pt.vector("x_dot"), pt.vector("y_bar")
    y = pt.stack([x[0] * x[1], pt.sin(x[0])])
    return pytensor.function([x, x_dot, y_bar], [y, pushforward(y, x, x_dot), pullback(y, x, y_bar)],
                             mode="FAST_COMPILE")


def test_tangent_cotangent_explorer(browser, base_url, propagate):
    page = open_page(browser, f"{base_url}/{EXPLORERS['tangent-cotangent']}")
    root = page.locator('[data-explorer="tangent-cotangent"]')
    root.wait_for()
    page.wait_for_function("document.querySelector('[data-explorer=\"tangent-cotangent\"]').dataset.state")
    data = embedded(root)
    n0, n1, per, vmax = len(data["xs0"]), len(data["xs1"]), data["per_unit"], data["vector_max"] * data["per_unit"]
    counts = {"x": list(data["start"]), "x_dot": list(data["x_dot"]), "y_bar": list(data["y_bar"])}
    limits = {"x": [(0, n0 - 1), (0, n1 - 1)], "x_dot": [(-vmax, vmax)] * 2, "y_bar": [(-vmax, vmax)] * 2}
    keys = {"ArrowRight": (0, 1), "ArrowLeft": (0, -1), "ArrowUp": (1, 1), "ArrowDown": (1, -1)}

    handles = root.locator("[data-handle]")
    assert sorted(handles.evaluate_all("hs => hs.map(h => h.dataset.handle)")) == ["x", "x_dot", "y_bar"]
    for h in handles.all():
        assert h.get_attribute("tabindex") == "0"
        assert h.get_attribute("aria-label"), "each handle has an accessible name"

    def check():
        s = state(root)
        x = np.array([data["xs0"][counts["x"][0]], data["xs1"][counts["x"][1]]])
        x_dot, y_bar = np.array(counts["x_dot"]) / per, np.array(counts["y_bar"]) / per
        np.testing.assert_allclose(s["x"], x, rtol=0, atol=1e-12)
        np.testing.assert_allclose(s["x_dot"], x_dot, rtol=0, atol=1e-12)
        np.testing.assert_allclose(s["y_bar"], y_bar, rtol=0, atol=1e-12)
        y, y_dot, x_bar = propagate(x, x_dot, y_bar)  # PyTensor, here, at the reader's choice
        np.testing.assert_allclose(s["y"], y, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(s["y_dot"], y_dot, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(s["x_bar"], x_bar, rtol=1e-9, atol=1e-9)
        pair_out, pair_in = s["pairings"]
        np.testing.assert_allclose(pair_out, y_bar @ y_dot, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(pair_in, x_bar @ x_dot, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(pair_out, pair_in, rtol=1e-9, atol=1e-9)  # the dot-product test, on screen
        shown = root.locator('[data-out="pair_out"]').inner_text(), root.locator('[data-out="pair_in"]').inner_text()
        assert shown[0] == shown[1]

    check()
    moves = [("x", "ArrowRight", 3), ("x", "ArrowUp", 2), ("x_dot", "ArrowLeft", 5), ("x_dot", "ArrowDown", 1),
             ("y_bar", "ArrowUp", 4), ("y_bar", "ArrowRight", 7), ("x", "ArrowLeft", 9), ("x", "ArrowDown", 30),
             ("x_dot", "ArrowRight", 50), ("y_bar", "ArrowDown", 3)]  # the last x and x_dot moves hit the edges
    for name, key, times in moves:
        press(root.locator(f'[data-handle="{name}"]'), key, times)
        axis, sign = keys[key]
        lo, hi = limits[name][axis]
        counts[name][axis] = min(hi, max(lo, counts[name][axis] + sign * times))
        check()
        assert page.evaluate("document.activeElement.dataset.handle") == name, "focus stays on the handle"

    # a mouse drag moves the tangent too, and snaps to the grid
    box = root.locator('[data-handle="x_dot"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] - 25, box["y"] - 30, steps=5)
    page.mouse.up()
    s = state(root)
    counts["x_dot"] = [round(v * per) for v in s["x_dot"]]
    assert s["x_dot"] != [c / per for c in data["x_dot"]]
    check()

    finish(page, root, "tangent-cotangent")


@pytest.mark.parametrize("name", SERIES)
def test_series_explorer(browser, base_url, name):
    page = open_page(browser, f"{base_url}/{EXPLORERS[name]}")
    root = page.locator(f'[data-explorer="{name}"]')
    root.wait_for()
    data = embedded(root)
    slider = root.locator("input[data-handle]")
    assert slider.get_attribute("id") and root.locator(f'label[for="{slider.get_attribute("id")}"]').count() == 1
    n, index = len(data["xs"]), data["start"]

    def check():
        s = state(root)
        assert s["index"] == index
        assert s[data["x_name"]] == data["xs"][index]
        for panel in data["panels"]:
            for series in panel["series"]:
                assert s["values"][panel["key"]][series["name"]] == series["values"][index]
        assert slider.get_attribute("aria-valuetext").startswith(data["x_name"] + " = ")

    check()
    for key, times, step in [("ArrowRight", 2, 1), ("ArrowLeft", 1, -1), ("End", 1, None), ("ArrowLeft", 3, -1),
                             ("Home", 1, None), ("ArrowRight", n + 2, 1)]:
        press(slider, key, times)
        index = {"End": n - 1, "Home": 0}.get(key, min(n - 1, max(0, index + (step or 0) * times)))
        check()

    # a press on the chart picks the nearest grid point: the left edge is the first one
    area = root.locator("rect.ppx-drag").first.bounding_box()
    page.mouse.click(area["x"] + 1, area["y"] + area["height"] / 2)
    index = 0
    check()

    finish(page, root, name)


def test_jacobian_cost_explorer(browser, base_url):
    page = open_page(browser, f"{base_url}/{EXPLORERS['jacobian-cost']}")
    root = page.locator('[data-explorer="jacobian-cost"]')
    root.wait_for()
    data = embedded(root)
    handle = root.locator('[data-handle="nm"]')
    assert handle.get_attribute("tabindex") == "0" and handle.get_attribute("aria-label")
    i, j = data["start"]

    def check():
        s, cell = state(root), data["cells"][i][j]
        assert (s["n"], s["m"]) == (data["ns"][i], data["ms"][j])
        assert (s["columns"], s["rows"]) == (cell["columns"], cell["rows"])  # the times PyTensor's run measured
        assert s["faster"] == ("columns" if cell["columns"] < cell["rows"] else "rows")
        assert root.locator('[data-out="verdict"]').inner_text() == cell["verdict"]

    check()
    last = len(data["ns"]) - 1
    for key, times, di, dj in [("ArrowLeft", 2, -1, 0), ("ArrowUp", 1, 0, 1), ("ArrowUp", 9, 0, 1),
                               ("ArrowLeft", 9, -1, 0), ("ArrowRight", 1, 1, 0), ("ArrowDown", 2, 0, -1)]:
        press(handle, key, times)
        i, j = min(last, max(0, i + di * times)), min(len(data["ms"]) - 1, max(0, j + dj * times))
        check()
    finish(page, root, "jacobian-cost")


@pytest.mark.parametrize("name", list(EXPLORERS))
def test_explorer_on_a_phone_and_without_javascript(browser, base_url, name):
    page = open_page(browser, f"{base_url}/{EXPLORERS[name]}", viewport={"width": 390, "height": 844},
                     reduced_motion="reduce")
    root = page.locator(f'[data-explorer="{name}"]')
    root.scroll_into_view_if_needed()
    assert root.get_attribute("data-state")
    assert root.evaluate("r => r.scrollWidth <= r.clientWidth + 1"), "the explorer fits in 390 px"
    assert root.bounding_box()["width"] <= 390
    SHOTS.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(SHOTS / f"explorer-{name}-390px.png"))
    assert not page.console_errors, page.console_errors
    page.context.close()

    page = open_page(browser, f"{base_url}/{EXPLORERS[name]}", java_script_enabled=False)
    root = page.locator(f'[data-explorer="{name}"]')
    assert root.locator(".ppx-nojs").is_visible(), "without JavaScript a note says what is missing"
    assert not root.locator(".ppx-needs-js").is_visible()
    assert page.locator("div.cell_output img").count() > 0, "the page's static figures stay"
    page.context.close()


@pytest.mark.parametrize("name", list(EXPLORERS))
def test_explorer_page_within_budget(browser, base_url, name):
    """A first visit (empty cache), every response gzipped as a host would send it: at most 1 MiB."""
    context = browser.new_context()
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(f"{base_url}/{EXPLORERS[name]}", wait_until="networkidle")
    total = 0
    for response in responses:
        try:
            total += len(gzip.compress(response.body(), 6))
        except Exception:  # a redirect has no body
            pass
    context.close()
    assert total <= BUDGET, f"{EXPLORERS[name]}: {total / 2**20:.3f} MiB with gzip"


def test_tangent_cotangent_explorer_by_touch(browser, base_url, propagate):
    """A finger drags the cotangent handle (touch events, as on a phone); the numbers still are PyTensor's."""
    page = open_page(browser, f"{base_url}/{EXPLORERS['tangent-cotangent']}", has_touch=True,
                     viewport={"width": 390, "height": 844})
    root = page.locator('[data-explorer="tangent-cotangent"]')
    handle = root.locator('[data-handle="y_bar"]')
    handle.scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)  # out from under the sticky header
    before = state(root)
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    touch = "Input.dispatchTouchEvent"
    cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 6):
        cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x - 8 * k, "y": y + 6 * k}]})
    cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
    after = state(root)
    assert after["y_bar"] != before["y_bar"], "the touch drag moved the cotangent"
    assert after["x"] == before["x"] and after["x_dot"] == before["x_dot"]
    _, y_dot, x_bar = propagate(np.array(after["x"]), np.array(after["x_dot"]), np.array(after["y_bar"]))
    np.testing.assert_allclose(after["x_bar"], x_bar, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(after["pairings"][0], after["pairings"][1], rtol=1e-9, atol=1e-9)
    assert not page.console_errors, page.console_errors
    page.context.close()
