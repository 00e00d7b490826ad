"""The web game in a real browser: headless Chromium plays a whole 2-player Spinner hand
against ``random`` by clicking hand tiles and their highlighted targets (and the draw and
pass buttons when those are the moves), with no console errors; and some Mexican Train
turns, whose targets are the trains.

Chromium and its driver come from Debian (``apt-get install chromium chromium-driver``;
``.ci/run`` installs them). Without them the test is skipped, except in CI (``CI=true``),
where it fails. Screenshots land in the test's tmp folder (``SCREENSHOTS=DIR`` keeps
them in DIR instead).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

selenium = pytest.importorskip("selenium", reason="selenium is in the web extra")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is in the web extra")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from spinner_env.web import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    if CHROMIUM is None or DRIVER is None:
        missing = "chromium" if CHROMIUM is None else "chromedriver"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} not found: CI must install chromium and chromium-driver")
        pytest.skip(f"{missing} not found (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, object]]:
    """The web app on a free local port, served by uvicorn in a thread."""
    app = create_app(tmp_path / "games")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # log_config=None: uvicorn's logging set-up would close the handlers this process
    # already has (absl's, once OpenSpiel is imported, holds pytest's captured stderr).
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None)
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


def settled(driver: webdriver.Chrome, timeout: float = 30) -> None:
    """Wait until the page has shown every answer (body[data-busy] is false)."""
    WebDriverWait(driver, timeout).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false"
    )


def visible(driver: webdriver.Chrome, element_id: str) -> bool:
    return driver.find_element(By.ID, element_id).is_displayed()


def start_game(browser, url: str, game: str, players: int, opponent: str) -> str:
    """Fill in the set-up form (seed 3, one hand) and start; the game's id."""
    browser.get(f"{url}/?delay=20")
    settled(browser)
    Select(browser.find_element(By.ID, "game-choice")).select_by_value(game)
    players_box = browser.find_element(By.ID, "players")
    players_box.clear()
    players_box.send_keys(str(players))
    for field, value in (("seed", "3"), ("hands", "1")):
        browser.find_element(By.ID, field).send_keys(value)  # also fires players' change
    for box in browser.find_elements(By.CSS_SELECTOR, "#opponents input"):
        box.clear()
        box.send_keys(opponent)
    browser.find_element(By.ID, "start").click()
    settled(browser)
    return browser.execute_script("return location.hash").split("=")[1]


def take_turn(browser) -> str:
    """Make the person's move as a person would: draw or pass when those are the
    buttons, else click the first playable tile and the first place it lights up (and
    the first end to leave open when both are offered). What was clicked."""
    if visible(browser, "draw"):
        browser.find_element(By.ID, "draw").click()
        return "draw"
    if visible(browser, "pass"):
        browser.find_element(By.ID, "pass").click()
        return "pass"
    browser.find_elements(By.CSS_SELECTOR, "#board .hand-tile.movable")[0].click()
    targets = browser.find_elements(By.CSS_SELECTOR, "#board .target")
    assert targets, "a movable tile lights up where it may go"
    targets[0].click()
    if visible(browser, "choice"):  # S4.3: both ends offered
        browser.find_elements(By.CSS_SELECTOR, "#choice button.opens")[0].click()
        return "choice"
    return "tile"


def test_a_whole_hand_is_played_by_clicking(browser, server, tmp_path):
    url, app = server
    shots = Path(os.environ.get("SCREENSHOTS", tmp_path / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    table = app.state.store.get(start_game(browser, url, "spinner", 2, "random"))
    browser.save_screenshot(str(shots / "start.png"))
    clicks = {"tile": 0, "choice": 0, "draw": 0, "pass": 0}
    for turn in range(200):
        if visible(browser, "match-over"):
            break
        assert browser.find_element(By.ID, "turn").text == "Your turn"
        check_panels_against_engine(browser, table.state)
        clicks[take_turn(browser)] += 1
        settled(browser)
        if turn == 3:
            browser.save_screenshot(str(shots / "middle.png"))
    browser.save_screenshot(str(shots / "end.png"))

    engine = table.state
    assert engine.match_over and visible(browser, "match-over")
    # The deal (seed 3) has the person draw, pass, and choose an end to leave open (S4.3).
    assert clicks["tile"] >= 3 and clicks["draw"] and clicks["pass"] and clicks["choice"], clicks
    check_panels_against_engine(browser, engine)
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert [li.text for li in log] == table.log
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    assert all((shots / f"{name}.png").stat().st_size > 10_000 for name in ("start", "end"))


def test_mexican_train_trains_are_clickable_targets(browser, server):
    """The same page plays Mexican Train: a tile's targets are the trains' open ends."""
    url, app = server
    table = app.state.store.get(start_game(browser, url, "mexican_train", 3, "greedy"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .train-end")) == 4  # M3.1
    placed = 0
    for _ in range(8):
        if browser.find_element(By.ID, "turn").text != "Your turn":
            break
        before = len(table.log)
        placed += take_turn(browser) == "tile"
        settled(browser)
        assert len(table.log) > before
        check_panels_against_engine(browser, table.state)
    assert placed >= 3
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def check_panels_against_engine(browser: webdriver.Chrome, engine) -> None:
    """The score panel and the boneyard count say what the engine holds."""
    rows = browser.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert [int(c[2]) for c in cells] == [len(hand) for hand in engine.hands]
    assert [int(c[3]) for c in cells] == engine.totals
    assert int(browser.find_element(By.ID, "boneyard").text) == len(engine.boneyard)
