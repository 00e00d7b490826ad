"""Terminal play (``python -m spinner_env.play``) driven through stdin, and its Table."""

from __future__ import annotations

import io
import json

import pytest

from spinner_env.play import Table, main, seat_specs


def run(monkeypatch, capsys, argv: list[str], typed: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_whole_match_plays_to_the_end_choosing_the_first_move(monkeypatch, capsys):
    argv = ["--players", "3", "--opponents", "heuristic", "random", "--hands", "2", "--seed", "4"]
    code, out, _ = run(monkeypatch, capsys, argv, "1\n" * 500)
    assert code == 0
    assert out.count("Hand over") == 2  # S2.2 variant num_hands=2: two hands, then the end
    assert "Match over" in out and "Final totals" in out
    assert "player_1 (heuristic):" in out and "player_2 (random):" in out


def test_mexican_train_says_rounds_in_its_flag_and_its_output(monkeypatch, capsys):
    """A Mexican Train match is counted in rounds (M2.2): ``--rounds`` sets it, and the
    table, the prompt between rounds and the log say "round"; ``--hands`` means the same."""
    argv = ["--game", "mexican_train", "--players", "2", "--opponents", "greedy", "--seed", "2"]
    code, out, _ = run(monkeypatch, capsys, [*argv, "--rounds", "2"], "1\n" * 400)
    assert code == 0
    assert "round 1 of 2" in out and "round 2 of 2" in out and out.count("Round over") == 2
    assert "Enter for the next round" in out
    assert "next hand" not in out and "Hand over" not in out
    _, same, _ = run(monkeypatch, capsys, [*argv, "--hands", "2"], "1\n" * 400)
    assert same == out


def test_a_new_hand_is_logged_in_the_games_word():
    for game, word in (("spinner", "hand"), ("mexican_train", "round")):
        table = Table.new(game, ["human", "greedy"], seed=2, hands=2)
        while not table.state.hand_over:
            if table.agent_to_act():
                table.play_agent()
            else:
                table.play(table.state.legal_moves()[0])
        table.next_hand()
        assert table.log[-1] == f"{word} 2 dealt"


def test_bad_answers_ask_again_and_change_nothing(monkeypatch, capsys):
    argv = ["--players", "2", "--hands", "1", "--seed", "1"]
    code, out, _ = run(monkeypatch, capsys, argv, "x\n0\n999\n\n-1\n")
    assert code == 0
    assert out.count("Not a move") == 5
    assert out.count("player_0, your move [1-4]") == 6  # five re-asks, then end of input
    assert "player_1 (heuristic):" not in out  # no move was played
    assert "Game left unfinished" in out


def test_end_of_input_and_quit_end_cleanly(monkeypatch, capsys):
    for typed in ("", "q\n"):
        code, out, _ = run(monkeypatch, capsys, ["--hands", "1"], typed)
        assert code == 0 and "Game left unfinished" in out


def test_ctrl_c_ends_with_a_message_not_a_traceback(monkeypatch, capsys):
    class Interrupted(io.StringIO):
        def readline(self, *args) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", Interrupted())
    assert main(["--hands", "1"]) == 130
    assert "Interrupted" in capsys.readouterr().out


def test_save_mid_match_then_load_plays_on_exactly_the_same(monkeypatch, capsys, tmp_path):
    """The saved JSON is the engine's to_dict plus the seats; agents are re-seeded per
    decision, so a resumed match ends with the same totals as an uninterrupted one."""
    argv = ["--game", "mexican_train", "--players", "3", "--hands", "1", "--seed", "9"]
    argv += ["--opponents", "random", "greedy"]
    save = tmp_path / "match.json"
    _, straight, _ = run(monkeypatch, capsys, argv, "1\n" * 400)
    code, out, _ = run(monkeypatch, capsys, argv, "1\n1\n1\ns " + str(save) + "\nq\n")
    assert code == 0 and f"Saved to {save}" in out
    saved = json.loads(save.read_text())
    assert saved["seats"] == ["human", "random", "greedy"]
    assert saved["state"]["rules"]["num_rounds"] == 1
    code, resumed, _ = run(monkeypatch, capsys, ["--load", str(save)], "1\n" * 400)
    assert code == 0
    final = [line for line in straight.splitlines() if line.startswith("Final totals")]
    assert final and final == [line for line in resumed.splitlines() if "Final totals" in line]


def test_two_human_seats_take_turns(monkeypatch, capsys):
    argv = ["--players", "3", "--seat", "0", "2", "--opponents", "random", "--hands", "1"]
    code, out, _ = run(monkeypatch, capsys, argv, "1\n" * 300)
    assert code == 0
    assert "player_0, your move" in out and "player_2, your move" in out
    assert "player_1, your move" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--players", "4", "--opponents", "random", "greedy"], "2 opponents given for 3"),
        (["--players", "9"], "--players must be an integer from 2 to 8, got 9"),
        (["--players", "0"], "--players must be an integer from 2 to 8, got 0"),
        (["--game", "mexican_train", "--players", "1"], "--players must be an integer from 2"),
        (["--seat", "5"], "--seat must be seats from 0 to 1"),
        (["--game", "mexican_train", "--opponents", "checkpoint"], "does not fit Mexican Train"),
        (["--load", "/nonexistent/match.json"], "No such file"),
    ],
)
def test_bad_command_lines_say_why_on_one_line_and_exit_2(monkeypatch, capsys, argv, message):
    code, _, err = run(monkeypatch, capsys, argv, "")
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert "--seat" not in err or "--seat" in argv  # the flag at fault is the one named


def test_a_broken_save_file_is_refused(monkeypatch, capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"game": "spinner", "seats": ["human"]}))
    code, _, err = run(monkeypatch, capsys, ["--load", str(path)], "")
    assert code == 2 and "not a saved game" in err


def test_seat_specs_put_humans_and_opponents_in_seat_order():
    assert seat_specs(4, [2], ["a", "b", "c"]) == ["a", "b", "human", "c"]
    assert seat_specs(3, [0, 1], ["heuristic"]) == ["human", "human", "heuristic"]


def test_table_round_trips_through_json():
    table = Table.new("spinner", ["human", "random"], seed=3, hands=2)
    while table.agent_to_act() or (table.state.current == 0 and len(table.log) < 6):
        if table.agent_to_act():
            table.play_agent()
        else:
            table.play(table.state.legal_moves()[0])
    again = Table.from_dict(json.loads(json.dumps(table.to_dict())))
    assert again.to_dict() == table.to_dict()
    assert again.state.legal_moves() == table.state.legal_moves()


def test_a_bare_s_saves_to_the_save_option_or_asks_where(monkeypatch, capsys, tmp_path):
    path = tmp_path / "default.json"
    code, out, _ = run(monkeypatch, capsys, ["--hands", "1", "--save", str(path)], "s\nq\n")
    assert code == 0 and f"Saved to {path}" in out
    assert Table.from_dict(json.loads(path.read_text())).log == []
    code, out, _ = run(monkeypatch, capsys, ["--hands", "1"], "s\nq\n")
    assert code == 0 and "Save where?" in out
    code, out, _ = run(monkeypatch, capsys, ["--hands", "1"], "s /nonexistent/dir/x.json\nq\n")
    assert code == 0 and "Could not save to /nonexistent/dir/x.json" in out
