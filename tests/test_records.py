"""Match records (spinner_env.records): round trips through the engine, and refusals."""

from __future__ import annotations

import copy
import json

import pytest
from spinner_env.agents import make_agent

from spinner_env.core.agent import AgentView, MoveView, choose_move, choose_move_explained
from spinner_env.core.match import Draw
from spinner_env.games import game_spec
from spinner_env.records import (
    FORMAT,
    MAX_RECORD_BYTES,
    VERSION,
    Record,
    Recorder,
    Seat,
    load_record,
    parse_record,
    save_record,
)

SHORT = {"spinner": {"num_hands": 3}, "mexican_train": {"num_rounds": 2}}


def played(game: str, players: int, seed: int, stop_after: int | None = None):
    """A match recorded as it is played, with the states it went through, hand by hand."""
    spec = game_spec(game)
    state = spec.new_state(players, seed, **SHORT[game])
    agents = [make_agent(name, seed=seat) for seat, name in enumerate(["heuristic", "random"] * 4)]
    seats = [Seat(a.name, a.name) for a in agents[:players]]
    recorder = Recorder(spec, state, seats, {"test": True})
    seen = [[state.to_dict()]]
    moves = 0
    while stop_after is None or moves < stop_after:
        seat = state.current
        move = choose_move(agents[seat], state, spec.encoding)
        legal = spec.encoding.action_ids(state.legal_moves())
        view = AgentView("scores", tuple(MoveView(a, score=float(a)) for a in legal))
        state.play_legal(move)
        recorder.played(state, seat, move, view if moves % 3 == 0 else None)
        seen[-1].append(state.to_dict())
        moves += 1
        if state.hand_over:
            if state.match_over:
                break
            state.start_next_hand()
            recorder.new_hand(state)
            seen.append([state.to_dict()])
    return recorder.record(), seen, state


@pytest.mark.parametrize("game", ["spinner", "mexican_train"])
@pytest.mark.parametrize("players", [2, 5])
def test_replay_reproduces_every_state_and_the_totals(game, players, tmp_path):
    record, seen, final = played(game, players, seed=11 + players)
    path = tmp_path / "match.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded.to_dict() == record.to_dict()
    assert loaded.finished and loaded.totals == final.totals
    assert len(loaded.hands) == len(seen)
    for h, states in enumerate(seen):
        assert [s.to_dict() for s in loaded.states(h)] == states
    assert any(step.view is not None for hand in loaded.hands for step in hand.steps)
    draws = [s for hand in loaded.hands for s in hand.steps if s.move == "draw"]
    assert draws and all(s.drew for s in draws)  # every chance event is in the record


def test_an_unfinished_match_round_trips():
    record, seen, _ = played("spinner", 3, seed=2, stop_after=12)
    loaded = parse_record(json.dumps(record.to_dict()))
    assert not loaded.finished and loaded.hands[-1].result is None
    assert loaded.states(0)[-1].to_dict() == seen[0][-1]


@pytest.fixture(scope="module")
def good() -> dict:
    record, _, _ = played("spinner", 2, seed=4)
    return record.to_dict()


def _draw_step(data: dict) -> tuple[int, int]:
    for h, hand in enumerate(data["hands"]):
        for i, step in enumerate(hand["steps"]):
            if step["move"] == "draw":
                return h, i
    raise AssertionError("no draw in the match")


def _refused(data: dict, *words: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_record(json.dumps(data))
    for word in words:
        assert word in str(err.value), str(err.value)


def test_a_corrupt_or_truncated_file_is_refused(good, tmp_path):
    text = json.dumps(good)
    with pytest.raises(ValueError, match="truncated or corrupt"):
        parse_record(text[: len(text) // 2])
    with pytest.raises(ValueError, match="not UTF-8"):
        parse_record(b"\xff\xfe" + text.encode())
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_RECORD_BYTES + 1))
    with pytest.raises(ValueError, match="larger than"):
        load_record(path)
    path.write_text(text[:-3])
    with pytest.raises(ValueError, match=r"big\.json"):
        load_record(path)


def test_a_wrong_format_or_version_is_refused(good):
    _refused({**good, "version": VERSION + 1}, f"version {VERSION + 1}", "not supported")
    _refused({**good, "format": "something else"}, "not a match record")
    _refused([good], "JSON object")
    missing = dict(good)
    del missing["totals"]
    _refused(missing, "'totals'")
    assert good["format"] == FORMAT


def test_moves_that_the_engine_does_not_allow_are_refused(good):
    bad = copy.deepcopy(good)
    step = bad["hands"][0]["steps"][0]
    step["seat"] = 1 - step["seat"]
    _refused(bad, "hands[0].steps[0]", "was to act")

    bad = copy.deepcopy(good)
    bad["hands"][0]["steps"][1]["action"] = 10**6
    _refused(bad, "hands[0].steps[1]", "not legal")

    bad = copy.deepcopy(good)
    bad["hands"][0]["steps"][1]["move"] = "something"
    _refused(bad, "hands[0].steps[1]", "not 'something'")

    bad = copy.deepcopy(good)
    h, i = _draw_step(bad)
    bad["hands"][h]["steps"][i]["drew"] = (
        "S-S" if bad["hands"][h]["steps"][i]["drew"] != "S-S" else "0-0"
    )
    _refused(bad, f"hands[{h}].steps[{i}]", "boneyard's top tile")

    bad = copy.deepcopy(good)
    del bad["hands"][0]["steps"][-1]
    _refused(bad, "hands[0].result", "in play")


def test_results_totals_and_deals_must_be_what_the_moves_give(good):
    bad = copy.deepcopy(good)
    bad["totals"][0] += 1
    _refused(bad, "totals")

    bad = copy.deepcopy(good)
    bad["hands"][0]["result"]["points"][0] += 1
    _refused(bad, "hands[0].result")

    bad = copy.deepcopy(good)
    bad["finished"] = False
    _refused(bad, "unfinished")

    bad = copy.deepcopy(good)
    start = bad["hands"][1]["start"]
    start["hands"][0], start["hands"][1] = start["hands"][1], start["hands"][0]
    _refused(bad, "hands[1].start", "as the seed deals it")

    bad = copy.deepcopy(good)
    bad["hands"][0]["start"]["boneyard"].pop()
    _refused(bad, "hands[0]")


def test_views_name_legal_moves_and_finite_numbers(good):
    bad = copy.deepcopy(good)
    step = next(s for s in bad["hands"][0]["steps"] if "view" in s)
    step["view"]["moves"][0]["action"] = 10**6
    _refused(bad, ".view", "not a legal move")
    step["view"] = {"kind": "policy", "moves": [{"action": step["action"], "probability": "x"}]}
    _refused(bad, ".view", "finite")
    step["view"] = {"kind": "mystery", "moves": []}
    _refused(bad, ".view", "kind")


def test_a_draw_records_the_tile_it_took():
    record, _, _ = played("mexican_train", 3, seed=1)
    for h, hand in enumerate(record.hands):
        states = record.states(h)
        for k, step in enumerate(hand.steps):
            move = record.game.encoding.move_of(step.action)
            assert (step.drew is not None) == isinstance(move, Draw)
            if step.drew is not None:
                assert str(states[k].boneyard[0]) == step.drew
    assert isinstance(record, Record)


@pytest.mark.parametrize(
    ("game", "name"),
    [("spinner", "heuristic"), ("spinner", "expert"), ("mexican_train", "heuristic")],
)
def test_hand_written_players_show_their_scores_and_play_the_best(game, name):
    """act_explained plays what act plays; a heuristic's view scores every legal move,
    and the move played has the highest score."""
    spec = game_spec(game)
    state = spec.new_state(3, 4, **SHORT[game])
    agent = make_agent(name, seed=0)
    explained = 0
    for _ in range(60):
        if state.hand_over:
            break
        legal = spec.encoding.action_ids(state.legal_moves())
        move, view = choose_move_explained(agent, state, spec.encoding)
        assert move == choose_move(agent, state, spec.encoding)
        if len(legal) > 1 and view is not None:
            assert view.kind == "scores" and [m.action for m in view.moves] == sorted(legal)
            scored = [m for m in view.moves if m.score is not None]
            best = max(scored, key=lambda m: m.score)
            assert spec.encoding.action_of(move) in {m.action for m in scored}
            assert (
                next(m.score for m in scored if m.action == spec.encoding.action_of(move))
                == best.score
            )
            explained += 1
        state.play_legal(move)
    assert explained > 5
