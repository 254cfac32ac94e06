"""`sim serve` in a real browser: Debian's headless Chromium driven by Playwright for Python
(pointed at the system browser; Playwright's own browser download is never used). A designer
opens the field battle, takes the defender's extra die away, reads the estimate and the paired
difference, stops a long run, saves the scenario and opens it again; a screenshot shows the
summary. Skipped where Chromium or Playwright is missing, except in CI, where it must run."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIELD_BATTLE = ROOT / "scenarios" / "his" / "field_battle.yaml"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
#: Where the screenshot is kept for a person to look at (reports/out is not committed).
SCREENSHOT = ROOT / "reports" / "out" / "serve-screenshot.png"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is missing in CI: .ci/run installs Debian's `chromium` package")
    pytest.skip("chromium is not installed (apt-get install chromium); CI always runs this")


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("playwright is missing in CI: it is in the dev extra")
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    return sync_playwright


@pytest.fixture
def server(tmp_path, monkeypatch):
    pytest.importorskip("uvicorn")
    monkeypatch.chdir(tmp_path)  # as `sim serve` runs: paths are read from its working folder
    import uvicorn

    from simulator.serve.app import Session, create_app
    from simulator.serve.paths import Folders

    folder = tmp_path / "served"
    folder.mkdir()
    shutil.copy(FIELD_BATTLE, folder / "field_battle.yaml")
    session = Session(
        Folders.of([folder], base=tmp_path),
        max_trials=10**12,
        threads=1,
        opened=["served/field_battle.yaml"],
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(session, ["127.0.0.1"]), host="127.0.0.1", port=port, log_level="warning"
    )
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert uv.started, "the server did not start"
    yield f"http://127.0.0.1:{port}/?token={session.token}", folder
    session.close()
    uv.should_exit = True
    thread.join(10)


def _set(page, selector: str, value: str) -> None:
    """Type a value and leave the field, as a person does (the change event fires)."""
    page.fill(selector, value)
    page.press(selector, "Tab")


def _ink(png: Path, box: dict) -> float:
    """The share of dark pixels (text) inside ``box`` of a screenshot."""
    from matplotlib.image import imread

    image = imread(png)
    x, y = int(box["x"]), int(box["y"])
    region = image[y : y + int(box["height"]), x : x + int(box["width"]), :3]
    return float((region.mean(axis=2) < 0.4).mean())


def test_a_designer_changes_the_defender_s_extra_die_and_saves(server, tmp_path):
    chromium = _chromium()
    sync_playwright = _playwright()
    url, folder = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            failed: list[str] = []
            page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
            page.goto(url)
            # Waits are selectors, not functions: the page's policy forbids eval, Playwright's too.
            page.wait_for_selector("#title:has-text('4v3')")
            assert page.input_value("#f-defender_extra_dice") == "1"
            # The file runs as it is, before any knob moves (its 1,000,000 trials).
            page.wait_for_selector("#runline:has-text('complete: 1,000,000')")
            assert not failed, f"the page asked for what is not there: {failed}"
            # The form uses the width (it was one narrow column, 2,244 px tall), and no
            # parameter's name is cut (leaders_destroyed_in_retreat was).
            assert page.evaluate("document.documentElement.scrollHeight") < 1500
            assert page.evaluate("document.documentElement.scrollWidth") <= 1400
            cut = page.evaluate(
                "Array.from(document.querySelectorAll('#params label'))"
                ".filter(l => l.scrollWidth > l.clientWidth + 1).map(l => l.textContent)"
            )
            assert cut == [], cut
            label = page.locator("label[for='f-leaders_destroyed_in_retreat']")
            assert "leaders_destroyed_in_retreat" in label.inner_text().replace("\n", "")

            # The knob: the defender's extra die, 1 by the rules, taken away. The run starts by
            # itself and compares the change with the base on shared dice.
            _set(page, "#trials", "200000")
            page.wait_for_selector("#runline:has-text('complete: 200,000')")
            _set(page, "#f-defender_extra_dice", "0")
            # The edit's rows come only from the new run; then wait for that run to finish.
            page.wait_for_selector("tr[data-variant=edit][data-metric=attacker_wins]")
            page.wait_for_selector("#runline:has-text('complete: 200,000')")
            assert "changed" in page.get_attribute("[data-field='defender_extra_dice']", "class")
            base = page.text_content("tr[data-variant=base][data-metric=attacker_wins] .estimate")
            edit = page.text_content("tr[data-variant=edit][data-metric=attacker_wins] .estimate")
            difference = page.text_content(
                "#differences-table tr[data-variant=edit][data-metric=attacker_wins] .difference"
            )
            base_share, edit_share = (float(x.rstrip("%")) for x in (base, edit))
            assert 50 < base_share < 58 and 59 < edit_share < 67  # 54.2% and 63.4% exactly
            assert difference.startswith("+") and difference.endswith(" pp")
            assert abs(float(difference[1:-3]) - (edit_share - base_share)) < 0.02
            assert "Δ ±95%" in page.text_content("#summary-table")
            assert "edit: 1 of 1 metrics changed" in page.text_content("#verdict")
            page.wait_for_selector("#figures img[data-figure]")  # the report's own figures
            document = page.evaluate("window.sim.document")
            assert document["trials"] == 200_000 and list(document["variants"]) == ["base", "edit"]

            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(tmp_path / "page.png"))
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(tmp_path / "page.png", SCREENSHOT)
            box = page.locator("#summary-table").bounding_box()
            assert box is not None and box["width"] > 200 and 0 <= box["y"] < 1000
            assert _ink(tmp_path / "page.png", box) > 0.02, "the summary is not in the picture"

            # A long run: estimates stream in, and Stop keeps them, marked incomplete.
            _set(page, "#trials", "100000000000")
            page.wait_for_selector("#runline:has-text('running:')")
            page.wait_for_selector("#stop:not([disabled])")
            page.wait_for_selector("#runline:has-text(' of 100,000,000,000 trials')")
            page.click("#stop")
            page.wait_for_selector("#runline:has-text('INCOMPLETE')")
            assert "stopped from the page" in page.text_content("#runline")
            assert page.text_content(
                "tr[data-variant=edit][data-metric=attacker_wins] .estimate"
            ).endswith("%")

            # Save (the run's own text), then again over it: the page asks first.
            _set(page, "#trials", "200000")
            page.wait_for_selector("#runline:has-text('complete: 200,000')")
            page.fill("#target", "served/edited.yaml")
            page.click("#save")
            page.wait_for_selector("#saved:has-text('saved served/edited.yaml')")
            saved = (folder / "edited.yaml").read_text()
            assert "defender_extra_dice: 0" in saved and "trials: 200000" in saved
            page.once("dialog", lambda dialog: dialog.accept())
            page.evaluate("document.getElementById('saved').textContent = ''")
            page.click("#save")
            page.wait_for_selector("#saved:has-text('saved served/edited.yaml')")

            # Load it back: the change is there, marked as a change from the base.
            page.select_option("#files", "served/edited.yaml")
            page.wait_for_selector("#status:has-text('opened served/edited.yaml')")
            assert page.input_value("#f-defender_extra_dice") == "0"
            assert page.input_value("#trials") == "200000"
            assert "changed" in page.get_attribute("[data-field='defender_extra_dice']", "class")
            assert page.text_content("#yaml") == saved
        finally:
            browser.close()
