"""Where match records are written: spinner-evaluate --record, the terminal game, the web game."""

from __future__ import annotations

import io
import json

import pytest
from fastapi.testclient import TestClient
from spinner_env.train.evaluate import RecordKeeper, tournament
from spinner_env.train.evaluate import main as evaluate_main

from spinner_env.play import Table
from spinner_env.play import main as play_main
from spinner_env.records import load_record
from spinner_env.web import create_app

AGENTS = ["heuristic", "random"]
RULES = {"num_hands": 2}


def _records(folder):
    return sorted(folder.glob("*.json"))


def test_recording_changes_no_result_and_keeps_every_match(tmp_path):
    plain = tournament(AGENTS, 2, 6, seed=5, rules=RULES, progress=False).as_dict()
    keeper = RecordKeeper(tmp_path / "all")
    recorded = tournament(AGENTS, 2, 6, seed=5, rules=RULES, progress=False, record=keeper)
    assert recorded.as_dict() == plain
    files = _records(tmp_path / "all")
    assert len(files) == 6 and keeper.written == 6
    for path in files:
        record = load_record(path)
        assert record.finished and len(record.hands) == 2
        assert sorted(s.agent for s in record.seats) == sorted(AGENTS)
        assert {"deal", "rotation", "lineup"} <= set(record.info)


def test_lost_and_worst_keep_the_first_agents_bad_matches(tmp_path):
    keeper = RecordKeeper.parse(tmp_path / "lost", "lost")
    tournament(["random", "heuristic"], 2, 10, seed=1, rules=RULES, progress=False, record=keeper)
    lost = [load_record(p) for p in _records(tmp_path / "lost")]
    assert lost, "random never lost to the heuristic in 10 matches"
    for record in lost:
        mine = [s for s, seat in enumerate(record.seats) if seat.name == "random"]
        assert min(record.totals[s] for s in mine) > min(record.totals)

    keeper = RecordKeeper.parse(tmp_path / "worst", "worst:3")
    tournament(["random", "heuristic"], 2, 10, seed=1, rules=RULES, progress=False, record=keeper)
    assert keeper.close() == 3
    worst = [load_record(p) for p in _records(tmp_path / "worst")]

    def margin(record):
        me = next(s for s, seat in enumerate(record.seats) if seat.name == "random")
        return record.totals[me] - record.totals[1 - me]

    all_keeper = RecordKeeper(tmp_path / "every")
    tournament(
        ["random", "heuristic"], 2, 10, seed=1, rules=RULES, progress=False, record=all_keeper
    )
    margins = sorted((margin(load_record(p)) for p in _records(tmp_path / "every")), reverse=True)
    assert sorted(map(margin, worst), reverse=True) == margins[:3]


@pytest.mark.parametrize("choice", ["some", "worst:0", "worst:x", "all:3"])
def test_a_bad_record_choice_is_one_line_and_exit_2(choice, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        evaluate_main(
            [
                "--agents",
                *AGENTS,
                "--matches",
                "2",
                "--record",
                str(tmp_path),
                "--record-matches",
                choice,
            ]
        )
    assert exit_.value.code == 2
    assert "--record-matches" in capsys.readouterr().err


def test_the_command_line_records_with_views(tmp_path, capsys):
    argv = ["--agents", *AGENTS, "--matches", "2", "--rule", "num_hands=1", "--no-progress"]
    evaluate_main([*argv, "--record", str(tmp_path), "--record-views"])
    assert "wrote 2 match records" in capsys.readouterr().out
    assert len(_records(tmp_path)) == 2


def test_the_terminal_game_writes_its_record_and_its_save_carries_it(monkeypatch, tmp_path, capsys):
    path = tmp_path / "match.json"
    save = tmp_path / "save.json"
    argv = ["--players", "2", "--hands", "1", "--seed", "3", "--record", str(path)]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"1\ns {save}\n1\n1\n"))
    assert play_main(argv) == 0
    left = load_record(path)
    assert not left.finished and left.seats[0].agent == "human"
    resumed = Table.from_dict(json.loads(save.read_text()))
    assert (
        resumed.record().hands[0].steps
        == left.hands[0].steps[: len(resumed.record().hands[0].steps)]
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    assert play_main(["--load", str(save), "--record", str(path)]) == 0
    finished = load_record(path)
    saved_steps = resumed.record().hands[0].steps
    assert finished.finished and finished.hands[0].steps[: len(saved_steps)] == saved_steps
    assert finished.hands[0].start.to_dict() == left.hands[0].start.to_dict()


def test_the_web_game_keeps_finished_and_abandoned_games(tmp_path):
    c = TestClient(create_app(tmp_path / "games", max_games=1, records_dir=tmp_path / "records"))
    body = {"game": "spinner", "players": 2, "seat": 0, "opponents": ["random"], "hands": 1}
    answer = c.post("/api/games", json={**body, "seed": 1}).json()
    first = answer["state"]["id"]
    answer = c.post(
        f"/api/games/{first}/move",
        json={"seat": 0, "action": answer["state"]["legal"][0]["action"]},
    ).json()
    c.post("/api/games", json={**body, "seed": 2})  # drops the first game: abandoned
    abandoned = load_record(tmp_path / "records" / f"{first}.json")
    assert not abandoned.finished and abandoned.seats[1].agent == "random"

    answer = c.post("/api/games", json={**body, "seed": 3}).json()
    game_id = answer["state"]["id"]
    while not answer["state"]["match_over"]:
        action = answer["state"]["legal"][0]["action"]
        answer = c.post(f"/api/games/{game_id}/move", json={"seat": 0, "action": action}).json()
    finished = load_record(tmp_path / "records" / f"{game_id}.json")
    assert finished.finished and finished.totals == [s["total"] for s in answer["state"]["seats"]]
