"""``make demo`` (``python -m spinner_env.games.spinner.demo``): a legend of the tables'
terms first, the first hand in full and one line for every later hand; ``--full`` shows
every hand."""

from __future__ import annotations

import re

from spinner_env.games.spinner.demo import LEGEND, main


def demo(capsys, argv: list[str]) -> str:
    main(argv)
    return capsys.readouterr().out


def test_the_default_is_a_legend_the_first_hand_and_a_line_a_hand(capsys):
    out = demo(capsys, ["--players", "4", "--seed", "0"])
    assert out.startswith(LEGEND)
    lines = out.splitlines()
    assert len(lines) < 100  # the whole match, where every hand's table took 527 lines
    assert out.count("Hand over") == 1  # the first hand's table
    hand_lines = [line for line in lines if re.match(r"Hand \d+ of 10 \(start double", line)]
    assert [int(line.split()[1]) for line in hand_lines] == list(range(2, 11))  # S2.2
    assert lines[-1].startswith("Final totals:")


def test_full_shows_every_hands_table(capsys):
    out = demo(capsys, ["--players", "4", "--seed", "0", "--full"])
    assert out.startswith(LEGEND) and out.count("Hand over") == 10
    short = demo(capsys, ["--players", "4", "--seed", "0"])
    assert short.splitlines()[-1] == out.splitlines()[-1]  # the same match, shown shorter


def test_the_legend_explains_the_terms_the_tables_use(capsys):
    """Each term the legend explains appears in the tables it explains (a renamed term in
    the text render shows here), and the tables' terms a newcomer trips on are in it."""
    out = demo(capsys, ["--players", "4", "--seed", "0", "--full"]).removeprefix(LEGEND)
    explained = ["set, opens", "on 9, opens", "Open ends:", "Unfilled doubles", "Boneyard"]
    explained += ["shown void in", "total"]
    for term in explained:
        assert term in LEGEND and term in out, term
