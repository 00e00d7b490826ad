"""The web game's JSON API through an HTTP test client: every endpoint, bad requests
(4xx, state unchanged), hidden information never leaked (S2.5), the bound on games
held, and recovery after a restart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spinner_env.games import game_spec
from spinner_env.mexican_train import MexicanTile
from spinner_env.play import Table
from spinner_env.spinner import ALL_TILES, SpinnerState, SpinnerTile, parse
from spinner_env.web import create_app

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
