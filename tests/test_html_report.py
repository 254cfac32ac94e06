"""report.html: one self-contained file that renders in a browser with its tables and plots."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "reports" / "out" / "screenshots"
runner = CliRunner()


def run(scenario: str, out: Path, trials: str = "20000") -> str:
    result = runner.invoke(
        app, ["run", scenario, "--trials", trials, "--out", str(out), "-q"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return (out / "report.html").read_text(encoding="utf-8")


def test_the_report_is_one_self_contained_file_with_tables_plots_and_versions(tmp_path):
    page = run("scenarios/his/defender_bonus.yaml", tmp_path)
    assert page.startswith("<!DOCTYPE html>")
    # Plots embedded as data URIs: the three PNGs written beside it (forest.png in the summary).
    images = re.findall(r'<img [^>]*src="([^"]+)"', page)
    assert len(images) == 3 and all(i.startswith("data:image/png;base64,") for i in images)
    # Nothing is loaded from anywhere else, and the page says so to the browser too.
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', page)
    assert "url(" not in page and "<script" not in page and "<link" not in page
    assert "default-src 'none'; img-src data:" in page
    for text in (
        "his-field-battle-defender-bonus",
        "his.field_battle",
        "Here I Stand rules §5.4",
        "1517",
        'id="estimates"',
        'id="comparisons"',
        "numba",
        "statsmodels",
    ):
        assert text in page, text
    # What the variant changes is highlighted, and so are the significant differences.
    assert re.search(r'<td class="l changed">0</td>', page)
    sig = re.findall(r'<tr class="sig">(.*?)</tr>', page)
    assert any("attacker_wins" in row for row in sig)
    assert not any("attacker_hits" in row for row in sig)  # the attacker's dice never change


def test_text_from_the_scenario_is_escaped(tmp_path):
    text = (ROOT / "scenarios/his/field_battle.yaml").read_text()
    text = re.sub(r"description: .*", 'description: "<img src=x onerror=alert(1)> & co"', text)
    path = tmp_path / "s.yaml"
    path.write_text(text)
    page = run(str(path), tmp_path / "out", "2000")
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; co" in page
    assert "<img src=x" not in page


def test_a_sweep_report_shows_the_odds_grid_and_the_heatmap(tmp_path):
    page = run("scenarios/his/battle_table.yaml", tmp_path, "2000")
    assert 'id="grid-attacker_wins-base"' in page
    assert "attacker.units \\ defender.units" in page
    assert page.count('<td class="cell"') == 100
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', page)) == 1
    assert 'id="long-table"' in page


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


#: Counts the images that decoded, after load. Only the test's copy of the page has it; the
#: policy still lets images come from data: URIs only.
PROBE = (
    "<script>window.addEventListener('load', () => { const all = [...document.images]; "
    "document.body.setAttribute('data-images', all.length + ':' + "
    "all.filter(i => i.complete && i.naturalWidth > 0).length); });</script>"
)


def _browser(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
    ]
    return subprocess.run(
        [chromium, *flags, *args], capture_output=True, text=True, timeout=180, check=False
    )


@pytest.mark.parametrize(
    ("scenario", "tables", "images"),
    [
        ("scenarios/his/defender_bonus.yaml", ("estimates", "comparisons", "summary"), 3),
        ("scenarios/his/battle_table.yaml", ("grid-attacker_wins-base", "long-table"), 1),
    ],
)
def test_the_report_renders_in_headless_chromium(tmp_path, scenario, tables, images):
    chromium = _chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run installs Debian's `chromium` package")
        pytest.skip("chromium is not installed (apt-get install chromium); CI always runs this")
    page = run(scenario, tmp_path / "out", "20000")
    report = tmp_path / "out" / "report.html"
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.replace(
            "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';"
        ).replace("</body>", PROBE + "</body>"),
        encoding="utf-8",
    )
    dom = _browser(chromium, tmp_path / "profile", "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert f'data-images="{images}:{images}"' in dom.stdout, "images did not decode"
    for table in tables:
        assert f'id="{table}"' in dom.stdout
    assert dom.stdout.count("<tr") > 10
    # A screenshot of the real page (no probe), kept for a person to look at.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / f"{Path(scenario).stem}.png"
    shot.unlink(missing_ok=True)
    done = _browser(
        chromium,
        tmp_path / "profile2",
        f"--screenshot={shot}",
        "--window-size=1280,2400",
        "--hide-scrollbars",
        report.as_uri(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    # Not a blank page: plenty of ink (text, table lines, the plots' colours).
    assert (pixels[..., :3].mean(axis=2) < 0.9).mean() > 0.02
    assert pixels[..., :3].std() > 0.05


#: After load: how many tables are wider than their box, and how many header cells are blank.
LAYOUT_PROBE = (
    "<script>window.addEventListener('load', () => { const boxes = [...document.querySelectorAll("
    "'div.scroll')]; const wide = boxes.filter(b => b.scrollWidth > b.clientWidth + 1).map("
    "b => (b.querySelector('table') || {}).id || '?'); const blank = [...document.querySelectorAll"
    "('th')].filter(t => !t.textContent.trim() && t.closest('tr').children.length > 1 && "
    "t !== t.closest('tr').children[0]).length; document.body.setAttribute('data-wide', "
    "wide.join(',')); document.body.setAttribute('data-blank', blank); });</script>"
)


def test_the_revisions_report_reads_well_below_its_first_screen_at_1400_px(tmp_path):
    """At 1400 px no table of revisions.yaml's report overflows its box (the estimates table used
    to cut the third variant), no column head is blank, the first variant is marked as the
    reference, identical differences are folded into a line, and the fairness table is there."""
    chromium = _chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run installs Debian's `chromium` package")
        pytest.skip("chromium is not installed (apt-get install chromium); CI always runs this")
    args = ["run", "scenarios/recruitment/revisions.yaml", "--trials", "600", "-q"]
    args += ["--robustness", "policies=random,greedy", "--out", str(tmp_path / "out")]
    ran = runner.invoke(app, args, catch_exceptions=False)
    assert ran.exit_code == 0, ran.stderr
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert 'id="robustness-policies"' in page
    assert "base (reference)" in page
    assert "The same in every trial under every variant, not listed" in page
    assert 'id="fairness"' in page
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.replace(
            "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';"
        ).replace("</body>", LAYOUT_PROBE + "</body>"),
        encoding="utf-8",
    )
    dom = _browser(
        chromium, tmp_path / "profile", "--window-size=1400,1000", "--dump-dom", probe.as_uri()
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-wide=""' in dom.stdout, dom.stdout[dom.stdout.find("data-wide") :][:200]
    assert 'data-blank="0"' in dom.stdout
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "revisions.png"
    shot.unlink(missing_ok=True)
    done = _browser(
        chromium,
        tmp_path / "profile2",
        f"--screenshot={shot}",
        "--window-size=1400,3000",
        "--hide-scrollbars",
        (tmp_path / "out" / "report.html").as_uri(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (3000, 1400)
    assert (pixels[..., :3].mean(axis=2) < 0.9).mean() > 0.02
