"""The web game's JSON API through an HTTP test client: every endpoint, bad requests
(4xx, state unchanged), hidden information never leaked (S2.5), the bound on games
held, and recovery after a restart; the replay viewer's endpoints (only the records
directory's files, uploads bounded, every frame the record's state) and the analysis
(off unless asked, the table unchanged)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from spinner_env.agents import make_agent

from spinner_env.core.agent import AgentView, MoveView, choose_move_explained
from spinner_env.games import GAMES, game_spec
from spinner_env.games.mexican_train.rules import MexicanTile
from spinner_env.games.spinner.rules import ALL_TILES, SpinnerState, SpinnerTile, parse
from spinner_env.picture import table_scene, to_svg
from spinner_env.play import Table
from spinner_env.records import Recorder, Seat, save_record
from spinner_env.web import __main__ as web_main
from spinner_env.web import create_app
from spinner_env.web.app import _bar_lengths

TILE_TOKEN = re.compile(r"(?<![\w.-])(\d+|S)-(\d+|S)(?![\w.-])")


def client(data_dir: Path, **kwargs) -> TestClient:
    return TestClient(create_app(data_dir, **kwargs))


def new_game(c: TestClient, **body) -> dict:
    body = {"players": 2, "opponents": ["random"], "seed": 5, **body}
    response = c.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def table_of(c: TestClient, game_id: str) -> Table:
    return c.app.state.store.get(game_id)


def first_move(c: TestClient, state: dict) -> dict:
    response = c.post(
        f"/api/games/{state['id']}/move",
        json={"seat": state["you"], "action": state["legal"][0]["action"]},
    )
    assert response.status_code == 200, response.text
    return response.json()


def play_out(c: TestClient, answer: dict, on_answer=None) -> dict:
    """Play the first legal move at every turn, dealing hands, until the match is over."""
    state = answer["state"]
    while not state["match_over"]:
        if state["hand_over"]:
            response = c.post(f"/api/games/{state['id']}/next-hand", json={"seat": state["you"]})
            assert response.status_code == 200, response.text
            answer = response.json()
        else:
            answer = first_move(c, state)
        if on_answer:
            on_answer(answer)
        state = answer["state"]
    return state


def test_page_script_and_options_are_served(tmp_path):
    c = client(tmp_path)
    page = c.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text
    assert c.get("/static/app.js").status_code == 200
    assert c.get("/static/style.css").status_code == 200
    options = c.get("/api/options").json()
    assert options["games"] == ["spinner", "mexican_train"]
    # The page's words for a hand of each game's match: a Mexican Train match has rounds.
    assert options["hand_words"] == {"spinner": "hand", "mexican_train": "round"}
    assert {"random", "greedy", "heuristic", "checkpoint"} <= set(options["agents"])


@pytest.mark.parametrize("game", ["spinner", "mexican_train"])
def test_new_game_answers_at_the_persons_turn_with_the_engines_numbers(tmp_path, game):
    c = client(tmp_path)
    answer = new_game(c, game=game, players=4, seat=2, opponents=["random", "greedy", "heuristic"])
    state = answer["state"]
    table = table_of(c, state["id"])
    engine = table.state
    assert state["to_act"] and engine.current == 2 == state["you"]
    assert state["boneyard"] == len(engine.boneyard)
    assert [s["tiles"] for s in state["seats"]] == [len(h) for h in engine.hands]
    assert [s["player"] for s in state["seats"]] == ["random", "greedy", "you", "heuristic"]
    assert state["hand"] == [str(t) for t in engine.hands[2]]
    encoding = table.game.encoding
    assert sorted(m["action"] for m in state["legal"]) == sorted(
        encoding.action_of(m) for m in engine.legal_moves()
    )
    assert [s["entry"] for s in answer["steps"]] == state["log"]
    assert state["board"].startswith("<svg")


def test_answers_are_gzipped_for_clients_that_accept_it(tmp_path):
    """An 8-player answer carries a board per agent move: several hundred kB as text."""
    c = client(tmp_path)
    body = {"players": 8, "opponents": ["heuristic"], "seed": 3}
    plain = c.post("/api/games", json=body, headers={"Accept-Encoding": "identity"})
    zipped = c.post("/api/games", json=body, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.json()["steps"] == plain.json()["steps"]
    assert zipped.num_bytes_downloaded * 4 < plain.num_bytes_downloaded


def test_a_whole_match_plays_through_the_api(tmp_path):
    c = client(tmp_path)
    answer = new_game(c, players=3, opponents=["heuristic", "random"], hands=2)
    final = play_out(c, answer)
    engine = table_of(c, final["id"]).state
    assert engine.match_over and len(final["results"]) == 2  # S2.2 variant num_hands=2
    assert [s["total"] for s in final["seats"]] == engine.totals
    assert final["winners"] == engine.match_winners()
    again = c.post(f"/api/games/{final['id']}/next-hand", json={"seat": 0})
    assert again.status_code == 409 and "match is over" in again.json()["detail"]


def start_double(engine):
    value = engine.start_value if isinstance(engine, SpinnerState) else engine.engine_value
    return type(engine).TILE.of(value, value)


def tiles_named(text: str, tile_type) -> set:
    return {tile_type.parse(f"{a}-{b}") for a, b in TILE_TOKEN.findall(text)}


@pytest.mark.parametrize(
    ("game", "tile_type"), [("spinner", SpinnerTile), ("mexican_train", MexicanTile)]
)
def test_no_answer_names_a_hidden_tile_or_the_boneyard_order(tmp_path, game, tile_type):
    """S2.5 / M7: every answer over a whole match names only the seat's own tiles and
    tiles already played; the boneyard is a count."""
    c = client(tmp_path)
    checked = []

    def check(answer: dict) -> None:
        text = json.dumps(answer)
        engine = table_of(c, answer["state"]["id"]).state
        # The start double is named by the rules (S2.2, "set 9-9"), wherever it lies.
        hidden = set(engine.boneyard) - {start_double(engine)}
        for seat, hand in enumerate(engine.hands):
            if seat != answer["state"]["you"]:
                hidden |= set(hand) - {start_double(engine)}
        assert not tiles_named(text, tile_type) & hidden
        assert isinstance(answer["state"]["boneyard"], int)
        checked.append(len(hidden))

    answer = new_game(c, game=game, players=3, opponents=["random"], hands=1)
    check(answer)
    play_out(c, answer, check)
    assert len(checked) > 5 and max(checked) > 20


def test_bad_requests_get_a_clear_4xx_and_change_nothing(tmp_path):
    c = client(tmp_path)
    state = new_game(c)["state"]
    game_id = state["id"]
    path = tmp_path / f"{game_id}.json"
    before, on_disk = c.get(f"/api/games/{game_id}").json(), path.read_text()
    legal = {m["action"] for m in state["legal"]}
    illegal = next(a for a in range(1000) if a not in legal)
    cases = [
        (
            "post",
            f"/api/games/{game_id}/move",
            {"seat": 0, "action": illegal},
            422,
            "not a legal move",
        ),
        ("post", f"/api/games/{game_id}/move", {"seat": 1, "action": 0}, 403, "played by random"),
        ("post", f"/api/games/{game_id}/move", {"seat": 7, "action": 0}, 422, "seat must be"),
        ("post", f"/api/games/{game_id}/move", {"seat": 0}, 422, "action: Field required"),
        ("post", f"/api/games/{game_id}/move", {"seat": "me", "action": 1}, 422, "seat: Input"),
        ("post", f"/api/games/{game_id}/next-hand", {"seat": 0}, 409, "still in play"),
        ("post", "/api/games/0123456789abcdef/move", {"seat": 0, "action": 1}, 404, "no game"),
        ("get", "/api/games/..%2Fstore", None, 404, "Not Found"),
        ("get", "/api/games/not-a-game-id", None, 404, "no game"),
        ("get", f"/api/games/{game_id}?seat=1", None, 403, "played by random"),
    ]
    for method, url, body, status, message in cases:
        response = getattr(c, method)(url, **({"json": body} if body is not None else {}))
        assert response.status_code == status, (url, body, response.text)
        assert message in response.json()["detail"]
    assert c.get(f"/api/games/{game_id}").json() == before
    assert path.read_text() == on_disk


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": 1}, "players: Input should be greater than or equal to 2"),
        ({"players": 9}, "players: Input should be less than or equal to 8"),
        ({"seat": 2}, "seat must be from 0 to 1"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"opponents": ["nobody"]}, "unknown agent 'nobody'"),
        ({"players": 4, "opponents": ["random", "greedy"]}, "2 opponents given for 3"),
        ({"opponents": ["/tmp/evil.pt"]}, "not started with (--checkpoint)"),
        ({"opponents": ["evil.safetensors"]}, "not started with (--checkpoint)"),
        ({"game": "mexican_train", "opponents": ["checkpoint"]}, "does not fit Mexican Train"),
        ({"seed": -1}, "seed: Input should be greater than or equal to 0"),
        ({"hands": 11}, "num_hands must be an integer from 1 to 10"),
    ],
)
def test_bad_new_games_are_refused_and_nothing_is_kept(tmp_path, body, message):
    c = client(tmp_path)
    response = c.post("/api/games", json={"opponents": ["random"], **body})
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert len(c.app.state.store) == 0 and not list(tmp_path.glob("*.json"))


def test_a_body_that_is_not_json_is_refused(tmp_path):
    response = client(tmp_path).post(
        "/api/games", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422 and "JSON" in response.json()["detail"]


def test_games_held_are_bounded_least_recently_used_dropped(tmp_path):
    c = client(tmp_path, max_games=3)
    ids = [new_game(c, seed=k)["state"]["id"] for k in range(3)]
    assert c.get(f"/api/games/{ids[0]}").status_code == 200  # ids[1] is now the oldest used
    ids.append(new_game(c, seed=9)["state"]["id"])
    assert c.get(f"/api/games/{ids[1]}").status_code == 404
    assert {p.stem for p in tmp_path.glob("*.json")} == {ids[0], ids[2], ids[3]}
    smaller = client(tmp_path, max_games=2)  # restarted with a lower bound: the oldest go
    assert len(smaller.app.state.store) == 2 and len(list(tmp_path.glob("*.json"))) == 2


def test_a_restarted_server_has_every_game_and_plays_on_the_same(tmp_path):
    first = client(tmp_path)
    state = first_move(first, new_game(first, players=3, opponents=["heuristic"])["state"])["state"]
    restarted = client(tmp_path)
    assert restarted.get(f"/api/games/{state['id']}").json() == state
    # Agents are re-seeded per decision, so both servers answer a move identically.
    assert first_move(restarted, state) == first_move(first, state)


def test_unreadable_saved_games_are_skipped(tmp_path):
    (tmp_path / "0123456789abcdef.json").write_text("{ broken")
    good = new_game(client(tmp_path))["state"]["id"]
    restarted = client(tmp_path)
    assert restarted.get(f"/api/games/{good}").status_code == 200
    assert restarted.get("/api/games/0123456789abcdef").status_code == 404


def test_a_tile_fitting_either_way_offers_both_ends_to_leave_open(tmp_path):
    """S4.3: 9-S on a 9 arm may leave S or 9 open: two moves, same tile and target."""
    hands = [
        "9-S 0-1 0-2 0-3 0-4 0-5 0-6 0-7 0-8 1-2 1-3 1-4 1-5 1-6",
        "9-9 2-3 2-4 2-5 2-6 2-7 2-8 3-4 3-5 3-6 3-7 3-8 4-5 4-6",
    ]
    held = {parse(t) for hand in hands for t in hand.split()}
    state = SpinnerState.from_position(hands, [t for t in ALL_TILES if t not in held])
    table = Table(game_spec("spinner"), ["human", "random"], 0, state)
    (tmp_path / "00000000000000aa.json").write_text(json.dumps(table.to_dict()))
    c = client(tmp_path)
    seen = c.get("/api/games/00000000000000aa").json()
    choices = [m for m in seen["legal"] if m["tile"] == "9-S"]
    assert {(m["target"], m["opens"]) for m in choices} == {("9", "9"), ("9", "S")}
    leave_s = next(m for m in choices if m["opens"] == "S")
    after = first_move(c, {**seen, "legal": [leave_s]})["state"]
    assert "player_0: 9-S on 9 (opens S)" in after["log"]


# ------------------------------------------------------------------ replays
def recorded_match(game: str, players: int, specs: list[str], seed: int = 3, hands: int = 1):
    """A record of agents playing one another, each decision with what the agent saw."""
    spec = game_spec(game)
    rules = {"num_hands" if game == "spinner" else "num_rounds": hands}
    state = spec.new_state(players, seed, **rules)
    agents = [make_agent(s, seed=k, encoding=spec.encoding) for k, s in enumerate(specs)]
    recorder = Recorder(spec, state, [Seat(s, a.name) for s, a in zip(specs, agents, strict=True)])
    while not state.match_over:
        if state.hand_over:
            state.start_next_hand()
            recorder.new_hand(state)
        seat = state.current
        move, view = choose_move_explained(agents[seat], state, spec.encoding)
        state.apply(move)
        recorder.played(state, seat, move, view)
    return recorder.record()


def replay_client(tmp_path: Path, **kwargs) -> tuple[TestClient, Path]:
    records = tmp_path / "records"
    records.mkdir()
    return client(tmp_path / "games", records_dir=records, **kwargs), records


def test_the_listing_names_the_record_files_only(tmp_path):
    c, records = replay_client(tmp_path)
    assert c.get("/api/records").json() == {"records": []}
    save_record(recorded_match("spinner", 2, ["heuristic", "random"]), records / "a.json")
    (records / "notes.txt").write_text("not a record")
    (records / ".hidden.json").write_text("{}")
    listed = c.get("/api/records").json()["records"]
    assert [r["name"] for r in listed] == ["a.json"]
    assert listed[0]["bytes"] == (records / "a.json").stat().st_size


def test_without_a_records_directory_the_listing_is_empty_and_uploads_work(tmp_path):
    c = client(tmp_path / "games", records_dir=tmp_path / "records")
    (tmp_path / "records").rmdir()  # created by the app; gone, the listing is empty
    assert c.get("/api/records").json() == {"records": []}
    text = json.dumps(recorded_match("spinner", 2, ["random", "random"]).to_dict())
    assert c.post("/api/records", content=text).status_code == 201


@pytest.mark.parametrize(("game", "players"), [("spinner", 3), ("mexican_train", 4)])
def test_every_replay_frame_is_the_records_state(tmp_path, game, players):
    """Each frame shows the state Record.states replays to: every hand face up, the
    board drawn from it (the acting seat's hand shown, no seat labelled as the user's),
    the legal moves with the recorded view and the move played."""
    c, records = replay_client(tmp_path)
    specs = ["heuristic", "expert", "random", "greedy"][:players]
    record = recorded_match(game, players, specs, hands=2)
    save_record(record, records / "m.json")
    summary = c.get("/api/records/m.json").json()
    assert summary["game"] == game and summary["totals"] == record.totals
    assert [len(h["moves"]) for h in summary["hands"]] == [len(h.steps) for h in record.hands]
    encoding = record.game.encoding
    shown_views = 0
    for h, hand in enumerate(record.hands):
        states = record.states(h)
        for i, state in enumerate(states):
            frame = c.get(f"/api/records/m.json/hands/{h}/steps/{i}").json()
            assert frame["hands"] == [[str(t) for t in tiles] for tiles in state.hands]
            assert frame["totals"] == state.totals and frame["boneyard"] == len(state.boneyard)
            viewer = None if state.hand_over else state.current
            assert frame["board"] == to_svg(table_scene(state, viewer, you=False))
            assert "(you)" not in frame["board"]  # a replay is nobody's seat
            if i == len(hand.steps):
                assert frame["played"] is None and frame["moves"] == []
                continue
            step = hand.steps[i]
            assert frame["played"]["action"] == step.action and frame["current"] == step.seat
            legal = [encoding.action_of(m) for m in state.legal_moves()]
            assert [m["action"] for m in frame["moves"]] == legal
            assert [m["action"] for m in frame["moves"] if m["chosen"]] == [step.action]
            if step.view is not None:
                shown_views += 1
                assert frame["kind"] == step.view.kind
                for seen in step.view.moves:
                    row = next(m for m in frame["moves"] if m["action"] == seen.action)
                    assert row["score"] == seen.score and row["probability"] == seen.probability
                bars = [m["bar"] for m in frame["moves"] if m["bar"] is not None]
                assert all(0 <= b <= 1 for b in bars)
                numbered = [
                    m for m in step.view.moves if m.score is not None or m.probability is not None
                ]
                assert len(bars) == len(numbered)
    assert shown_views > 5
    assert c.get("/api/records/m.json/hands/2/steps/0").status_code == 404
    assert (
        c.get(f"/api/records/m.json/hands/0/steps/{len(record.hands[0].steps) + 1}").status_code
        == 404
    )


@pytest.mark.parametrize(
    "url",
    [
        "/api/records/../x.json",
        "/api/records/%2e%2e%2fx.json",
        "/api/records/%2e%2e",
        "/api/records/..%2Fgames%2Fsecret.json",
        "/api/records/.x.json",
        "/api/records/outside.json",
        "/api/records/missing.json",
        "/api/records/upload-0123456789abcdef",
    ],
)
def test_records_outside_the_directory_cannot_be_read(tmp_path, url):
    c, records = replay_client(tmp_path)
    text = json.dumps(recorded_match("spinner", 2, ["random", "random"]).to_dict())
    (tmp_path / "x.json").write_text(text)
    (tmp_path / "secret.json").write_text(text)
    (records / "outside.json").symlink_to(tmp_path / "x.json")  # a symlink out
    (records / ".x.json").write_text(text)
    response = c.get(url)
    assert response.status_code == 404, response.text
    assert "outside.json" not in [r["name"] for r in c.get("/api/records").json()["records"]]


def test_a_symlink_to_a_record_inside_the_directory_opens(tmp_path):
    c, records = replay_client(tmp_path)
    save_record(recorded_match("spinner", 2, ["random", "random"]), records / "a.json")
    (records / "b.json").symlink_to(records / "a.json")
    assert c.get("/api/records/b.json").status_code == 200


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: {**d, "version": 2}, "version 2 is not supported"),
        (lambda d: {**d, "totals": [1, 2]}, "totals [1, 2] are not what the hands add up to"),
        (lambda d: {**d, "format": "x"}, "not a match record"),
    ],
)
def test_a_wrong_record_is_refused_with_the_loaders_message(tmp_path, change, message):
    c, records = replay_client(tmp_path)
    data = recorded_match("spinner", 2, ["random", "random"]).to_dict()
    (records / "bad.json").write_text(json.dumps(change(data)))
    opened = c.get("/api/records/bad.json")
    assert opened.status_code == 400 and message in opened.json()["detail"]
    uploaded = c.post("/api/records", content=json.dumps(change(data)))
    assert uploaded.status_code == 400 and message in uploaded.json()["detail"]


def test_a_truncated_upload_is_refused_and_a_good_one_replays(tmp_path):
    c, _ = replay_client(tmp_path)
    record = recorded_match("mexican_train", 3, ["heuristic", "random", "greedy"])
    text = json.dumps(record.to_dict())
    cut = c.post("/api/records", content=text[: len(text) // 2])
    assert cut.status_code == 400 and "truncated or corrupt" in cut.json()["detail"]
    answer = c.post("/api/records", content=text)
    assert answer.status_code == 201
    frame = c.get(f"/api/records/{answer.json()['id']}/hands/0/steps/0").json()
    assert frame["hands"] == [[str(t) for t in tiles] for tiles in record.states(0)[0].hands]


def test_an_oversize_upload_is_refused(tmp_path):
    c, _ = replay_client(tmp_path, max_upload_bytes=1000)
    text = json.dumps(recorded_match("spinner", 2, ["random", "random"]).to_dict())
    assert len(text) > 1000
    response = c.post("/api/records", content=text)
    assert response.status_code == 413 and "larger than 1000 bytes" in response.json()["detail"]

    def chunks():  # no Content-Length: the streamed body is counted
        yield text.encode()[:600]
        yield text.encode()[600:]

    response = c.post("/api/records", content=chunks())
    assert response.status_code == 413


# ----------------------------------------------------------------- analysis
def test_analysis_is_off_by_default_and_leaves_the_table_unchanged(tmp_path):
    c = client(tmp_path)
    state = new_game(c, players=3, opponents=["heuristic", "random"])["state"]
    assert not any("analysis" in key or "view" in key for key in state)
    table = table_of(c, state["id"])
    before = json.dumps(table.to_dict())
    seen = c.post(
        f"/api/games/{state['id']}/analysis", json={"seat": 0, "agent": "heuristic"}
    ).json()
    assert json.dumps(table.to_dict()) == before
    assert seen["kind"] == "scores"
    assert sorted(m["action"] for m in seen["moves"]) == sorted(m["action"] for m in state["legal"])
    # The heuristic's own choice and scores, asked the way the table asks its agents.
    agent = make_agent("heuristic")
    move, view = choose_move_explained(agent, table.state.copy(), table.game.encoding)
    assert seen["move"]["action"] == table.game.encoding.action_of(move)
    if view is not None:
        scores = {m.action: m.score for m in view.moves}
        assert {m["action"]: m["score"] for m in seen["moves"]} == scores
    # The opponents play on exactly as without the analysis.
    twin = client(tmp_path / "twin")
    twin_state = new_game(twin, players=3, opponents=["heuristic", "random"])["state"]
    assert first_move(c, state)["state"]["log"] == first_move(twin, twin_state)["state"]["log"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"seat": 0, "agent": "nobody"}, 422, "unknown agent 'nobody'"),
        ({"seat": 0, "agent": "/etc/passwd"}, 422, "not started with (--checkpoint)"),
        ({"seat": 1, "agent": "heuristic"}, 403, "played by random"),
    ],
)
def test_bad_analysis_requests_are_refused(tmp_path, body, status, message):
    c = client(tmp_path)
    state = new_game(c)["state"]
    response = c.post(f"/api/games/{state['id']}/analysis", json=body)
    assert response.status_code == status and message in response.json()["detail"]


@pytest.mark.parametrize(
    ("view", "bars"),
    [
        (
            AgentView("policy", (MoveView(1, probability=0.75), MoveView(2, probability=0.25))),
            [0.75, 0.25, None],
        ),
        (
            AgentView("search", (MoveView(1, visits=10, value=0.1), MoveView(2, visits=40))),
            [0.25, 1.0, None],
        ),
        (
            AgentView(
                "search", (MoveView(1, value=-3.0), MoveView(2, value=1.0), MoveView(3, value=0.0))
            ),
            [0.0, 1.0, 0.75],
        ),
        (AgentView("scores", (MoveView(1, score=5.0), MoveView(2, score=5.0))), [1.0, 1.0, None]),
        (None, [None, None, None]),
    ],
)
def test_move_bars_are_the_views_numbers_scaled(view, bars):
    """Probabilities as they are, visits over the most, values and scores between the
    lowest and the highest; no bar without a number."""
    shown = list(view.moves) if view is not None else []
    legal = [*shown, *[None] * (3 - len(shown))]  # three legal moves, the view's first
    keys = ("probability", "value", "visits", "score")
    rows = [{key: None if m is None else getattr(m, key) for key in keys} for m in legal]
    assert _bar_lengths(view, rows) == bars


def test_every_game_of_the_registry_has_its_board_and_move_targets():
    """A game added to games.GAMES needs its board and its placements' targets for the page."""
    for game in GAMES.values():
        board = game.board()
        assert callable(board.draw_board) and callable(board.move_target)
        assert callable(board.title) and hasattr(board, "WILD_VALUE")


def test_the_help_shows_where_records_go_and_the_records_dir_is_used(tmp_path, monkeypatch, capsys):
    """``spinner-web --help`` names the records directory's default; ``--records-dir``
    reaches the app and the start line names it (the server itself is not started)."""
    with pytest.raises(SystemExit):
        web_main.main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert str(web_main.DEFAULT_DATA_DIR / "records") in help_text
    assert str(web_main.DEFAULT_DATA_DIR) in help_text
    served = []
    monkeypatch.setattr(web_main.uvicorn, "run", lambda app, **kw: served.append(app))
    records = tmp_path / "my-records"
    argv = ["--data-dir", str(tmp_path / "games"), "--records-dir", str(records)]
    assert web_main.main(argv) == 0
    assert served[0].state.records_dir == records and records.is_dir()
    assert f"records in {records}" in capsys.readouterr().out
    assert web_main.main(["--data-dir", str(tmp_path / "games")]) == 0
    assert served[1].state.records_dir == tmp_path / "games" / "records"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_web_passes_web_args_through():
    root = Path(__file__).resolve().parents[1]
    dry_run = subprocess.run(
        ["make", "-n", "web", "WEB_ARGS=--records-dir runs/records --port 8081"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "-m spinner_env.web --records-dir runs/records --port 8081" in dry_run
