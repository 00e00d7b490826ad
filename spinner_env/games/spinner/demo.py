"""Play and render a whole Spinner match between masked random players, in the terminal.

    python -m spinner_env.games.spinner.demo --players 4 --seed 0
    python -m spinner_env.games.spinner.demo --players 2 --every-move

A legend first says what the table's terms mean; then the first hand is shown as it
starts and as it ends, and every later hand in one line (``--full`` shows each hand's
table as it ends). It drives the rules engine directly, so each hand can be shown as it
ends, before the next is dealt.
"""

from __future__ import annotations

import argparse
import random

from spinner_env.games.spinner.rules import SpinnerRules, SpinnerState, SpinnerTile
from spinner_env.games.spinner.text import render_spinner

LEGEND = """\
How to read the tables (every rule: RULES.md)
  3-7, 7-S           tiles, lower end first; S is the wild spinner: it matches every number
  S-S set, opens 9   the hand's first tile: the start double (9-9 in hand 1, 8-8 in hand 2,
                     ...), or S-S standing in for it with arms of the start number
  3-9 on 9, opens 3  placed on an open end of 9, leaving a 3 open in its place
  Open ends: 5 x2    the open ends, how many of each (an unfilled double's arms: below)
  Unfilled doubles   a placed double's arms must be filled before play goes elsewhere
  Boneyard           the tiles not dealt: a player with no tile that fits draws from it
  shown void in 3 S  the player drew or passed when a 3 or an S fitted: holds neither
  total              points left in hand at each hand's end (pips, S counting 10), summed
                     over the hands; the lowest total wins the match"""

RULE = "-" * 72


def hand_line(game: SpinnerState) -> str:
    """One line for a hand just over: its start double, winner, points and the totals."""
    start = SpinnerTile.symbol(game.start_value)
    result = game.results[-1]
    how = "blocked" if result.blocked else "went out"
    return (
        f"Hand {game.hand_number + 1} of {game.num_hands} (start double {start}-{start}): "
        f"player_{result.winner} wins ({how}); points added {list(result.points)}, "
        f"totals {list(game.totals)}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="2 to 8")
    parser.add_argument("--seed", type=int, default=0, help="the deals' and the players' seed")
    parser.add_argument("--hands", type=int, default=10, help="hands in the match (1-10)")
    parser.add_argument("--full", action="store_true", help="every hand's table as it ends")
    parser.add_argument("--every-move", action="store_true", help="render after every move")
    args = parser.parse_args(argv)
    game = SpinnerState.new(SpinnerRules(num_players=args.players, num_hands=args.hands), args.seed)
    rng = random.Random(args.seed)
    print(LEGEND, RULE, render_spinner(game, game.current), RULE, sep="\n")
    while True:
        seat = game.current
        move = rng.choice(game.legal_moves())
        game.play_legal(move)
        if args.every_move:
            print(f"player_{seat}: {move}")
            print(render_spinner(game, None if game.hand_over else game.current), RULE, sep="\n")
        if game.hand_over and not args.every_move:  # else its end is shown already
            if args.full or game.hand_number == 0:
                print(render_spinner(game), RULE, sep="\n")
                if not args.full and not game.match_over:
                    print("The later hands, one line each (--full shows their tables):")
            else:
                print(hand_line(game))
        if game.hand_over:
            if game.match_over:
                break
            game.start_next_hand()
    print("Final totals:", {f"player_{s}": t for s, t in enumerate(game.totals)})


if __name__ == "__main__":
    main()
