"""The web game in a real browser: headless Chromium plays a whole 2-player Spinner hand
against ``random`` by clicking hand tiles and their highlighted targets (and the draw and
pass buttons when those are the moves), with no console errors; and some Mexican Train
turns, whose targets are the trains; and the replay viewer stepping through a recorded
hand, its board, face-up hands and move bars checked against the record.

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
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from spinner_env.agents import make_agent  # noqa: E402

from spinner_env.core.agent import choose_move_explained  # noqa: E402
from spinner_env.games import game_spec  # noqa: E402
from spinner_env.records import Record, Recorder, Seat, save_record  # noqa: E402
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
    game_id = start_game(browser, url, "spinner", 2, "random")
    table = app.state.store.get(game_id)
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
    # The finished game's record is offered for replay at once.
    WebDriverWait(browser, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f'#record-choice option[value="{game_id}.json"]')
    )
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


def agents_match(game: str, specs: list[str], seed: int) -> Record:
    """One hand of agents playing one another, recorded with what each saw."""
    spec = game_spec(game)
    state = spec.new_state(
        len(specs), seed, **{"num_hands" if game == "spinner" else "num_rounds": 1}
    )
    agents = [make_agent(s, seed=k, encoding=spec.encoding) for k, s in enumerate(specs)]
    recorder = Recorder(spec, state, [Seat(s, a.name) for s, a in zip(specs, agents, strict=True)])
    while not state.hand_over:
        seat = state.current
        move, view = choose_move_explained(agents[seat], state, spec.encoding)
        state.apply(move)
        recorder.played(state, seat, move, view)
    return recorder.record()


@pytest.mark.parametrize(
    ("game", "specs"),
    [("spinner", ["heuristic", "expert", "random"]), ("mexican_train", ["heuristic", "greedy"])],
)
def test_the_replay_viewer_steps_through_a_recorded_hand(browser, server, tmp_path, game, specs):
    """Open a record from the records directory, step on through the whole hand and back:
    at every decision the face-up hands, the acting seat's hand on the board and the move
    bars (one per legal move, the move played marked, lengths from the recorded view) are
    the record's."""
    url, _ = server
    record = agents_match(game, specs, seed=4)
    save_record(record, tmp_path / "games" / "records" / f"{game}.json")
    browser.get(f"{url}/?delay=20")
    settled(browser)
    Select(browser.find_element(By.ID, "record-choice")).select_by_value(f"{game}.json")
    browser.find_element(By.ID, "open-record").click()
    settled(browser)
    assert visible(browser, "replay-view") and not visible(browser, "game-view")
    states = record.states(0)
    steps = record.hands[0].steps
    encoding = record.game.encoding
    # The docs' picture (SCREENSHOTS=DIR keeps it): the Spinner decision with the most
    # scored moves.
    pictured = (
        max(range(len(steps)), key=lambda i: len(steps[i].view.moves) if steps[i].view else 0)
        if game == "spinner"
        else None
    )
    for i, state in enumerate(states):
        check_frame(browser, state, steps[i] if i < len(steps) else None, encoding)
        if i == pictured:
            shots = Path(os.environ.get("SCREENSHOTS", tmp_path / "screenshots"))
            shots.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(shots / "replay.png"))
        if i < len(steps):
            browser.find_element(By.ID, "replay-next").click()
            settled(browser)
    for _ in range(3):  # and back
        browser.find_element(By.ID, "replay-prev").click()
        settled(browser)
    check_frame(browser, states[-4], steps[-3], encoding)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def check_frame(browser: webdriver.Chrome, state, step, encoding) -> None:
    rows = browser.find_elements(By.CSS_SELECTOR, "#replay-hands tbody tr")
    shown = [row.find_elements(By.TAG_NAME, "td")[1].text.split() for row in rows]
    assert shown == [[str(t) for t in hand] for hand in state.hands]
    board_tiles = [
        tile.get_attribute("data-tile")
        for tile in browser.find_elements(By.CSS_SELECTOR, "#replay-board .hand-tile")
    ]
    viewer = None if state.hand_over else state.current
    assert board_tiles == ([] if viewer is None else [str(t) for t in state.hands[viewer]])
    bars = browser.find_elements(By.CSS_SELECTOR, "#replay-bars li")
    if step is None:
        word = "round" if state.__class__.__name__ == "MexicanTrainState" else "hand"
        assert (
            bars == [] and browser.find_element(By.ID, "replay-move").text == f"End of the {word}"
        )
        assert not visible(browser, "replay-moves")  # no "Legal moves" heading over nothing
        return
    assert visible(browser, "replay-moves")
    legal = [encoding.action_of(m) for m in state.legal_moves()]
    assert [int(b.get_attribute("data-action")) for b in bars] == legal
    chosen = [
        int(b.get_attribute("data-action")) for b in bars if "chosen" in b.get_attribute("class")
    ]
    assert chosen == [step.action]
    assert browser.find_element(By.ID, "replay-move").text.startswith(
        f"player_{step.seat} plays {step.move}"
    )
    said = browser.find_element(By.ID, "replay-view-kind").text
    if step.view is None:
        assert said == "no view recorded for this move"
    else:  # what the numbers are, in words
        assert "'s numbers: " in said
    if step.view is not None and step.view.kind == "scores":
        assert "rule-of-thumb score of each move" in said
        scores = {m.action: m.score for m in step.view.moves if m.score is not None}
        if len(set(scores.values())) > 1:
            best = max(scores, key=scores.get)
            bar = next(b for b in bars if int(b.get_attribute("data-action")) == best)
            assert float(bar.get_attribute("data-bar")) == 1.0
            width = bar.find_element(By.CSS_SELECTOR, ".fill").value_of_css_property("width")
            track = bar.find_element(By.CSS_SELECTOR, ".track").value_of_css_property("width")
            assert abs(float(width[:-2]) - float(track[:-2])) < 1


def test_analysis_shows_the_agents_scores_and_changes_nothing(browser, server):
    """Ticked, the analysis box shows the heuristic's choice and a bar per legal move at
    the person's turn; the game is as it was. Unticked (the default), it is hidden."""
    url, app = server
    table = app.state.store.get(start_game(browser, url, "spinner", 2, "random"))
    assert not visible(browser, "analysis")
    before = table.to_dict()
    browser.find_element(By.ID, "analysis-on").click()
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-bars li") and visible(d, "analysis")
    )
    legal = [table.game.encoding.action_of(m) for m in table.state.legal_moves()]
    bars = browser.find_elements(By.CSS_SELECTOR, "#analysis-bars li")
    assert sorted(int(b.get_attribute("data-action")) for b in bars) == sorted(legal)
    move, _ = choose_move_explained(
        make_agent("heuristic"), table.state.copy(), table.game.encoding
    )
    chosen = [b.get_attribute("data-action") for b in bars if "chosen" in b.get_attribute("class")]
    assert chosen == [str(table.game.encoding.action_of(move))]
    assert browser.find_element(By.ID, "analysis-title").text.startswith("heuristic would play")
    assert browser.find_element(By.ID, "analysis-numbers").text.startswith(
        "Numbers: its rule-of-thumb score of each move"
    )
    assert table.to_dict() == before
    browser.find_element(By.ID, "analysis-on").click()
    assert not visible(browser, "analysis")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_enter_in_the_analysis_box_asks_the_analysis_and_keeps_the_game(browser, server):
    """The analysis agent's box is not part of the set-up form: Enter there asks the new
    agent, and the game (its id, its moves) stays."""
    url, app = server
    game_id = start_game(browser, url, "spinner", 2, "random")
    table = app.state.store.get(game_id)
    for _ in range(2):
        take_turn(browser)
        settled(browser)
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert len(log) > 2
    browser.find_element(By.ID, "analysis-on").click()
    box = browser.find_element(By.ID, "analysis-agent")
    box.clear()
    box.send_keys("greedy" + Keys.ENTER)
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element(By.ID, "analysis-title").text.startswith("greedy would play")
    )
    settled(browser)
    assert browser.execute_script("return location.hash") == f"#game={game_id}"
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")] == log
    assert len(app.state.store) == 1 and table.log == log
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_a_refused_new_game_leaves_the_status_and_the_game_as_they_were(browser, server):
    """A new game the server refuses says why, and the status line says again what it
    said before ("Dealing..." does not stay); leaving a game in play asks first."""
    url, app = server
    browser.get(f"{url}/?delay=20")
    settled(browser)
    opponent = browser.find_element(By.CSS_SELECTOR, "#opponents input")
    opponent.clear()
    opponent.send_keys("nobody")
    browser.find_element(By.ID, "start").click()
    settled(browser)
    assert "unknown agent 'nobody'" in browser.find_element(By.ID, "error").text
    assert browser.find_element(By.ID, "turn").text == "Start a new game"

    game_id = start_game(browser, url, "spinner", 2, "random")
    assert browser.find_element(By.ID, "turn").text == "Your turn"
    opponent = browser.find_element(By.CSS_SELECTOR, "#opponents input")
    opponent.clear()
    opponent.send_keys("nobody")
    browser.find_element(By.ID, "start").click()
    browser.switch_to.alert.dismiss()  # "Leave this game?": no
    settled(browser)
    assert not visible(browser, "error") and len(app.state.store) == 1
    browser.find_element(By.ID, "start").click()
    browser.switch_to.alert.accept()
    settled(browser)
    assert "unknown agent 'nobody'" in browser.find_element(By.ID, "error").text
    assert browser.find_element(By.ID, "turn").text == "Your turn"
    assert browser.execute_script("return location.hash") == f"#game={game_id}"
    assert len(app.state.store) == 1
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert all("422" in e["message"] for e in severe)  # only the refusals' answers


def test_open_with_no_record_chosen_says_what_to_do(browser, server, tmp_path):
    """Replay "Open" with no record chosen says so: that there are none yet (and where
    they come from), or to choose one from the list."""
    url, _ = server
    browser.get(f"{url}/?delay=20")
    settled(browser)
    choice = Select(browser.find_element(By.ID, "record-choice"))
    assert choice.first_selected_option.text == "(no records yet)"
    browser.find_element(By.ID, "open-record").click()
    settled(browser)
    assert browser.find_element(By.ID, "error").text.startswith("No records yet")
    assert visible(browser, "game-view") and not visible(browser, "replay-view")

    save_record(
        agents_match("spinner", ["random", "random"], seed=1),
        tmp_path / "games" / "records" / "a.json",
    )
    browser.get(f"{url}/?delay=20")
    settled(browser)
    choice = Select(browser.find_element(By.ID, "record-choice"))
    assert choice.first_selected_option.text == "(choose a record)"
    browser.find_element(By.ID, "open-record").click()
    settled(browser)
    assert browser.find_element(By.ID, "error").text.startswith("Choose a record")
    choice.select_by_value("a.json")
    browser.find_element(By.ID, "open-record").click()
    settled(browser)
    assert visible(browser, "replay-view") and not visible(browser, "error")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
