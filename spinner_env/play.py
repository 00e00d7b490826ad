"""Play Spinner or Mexican Train against agents in the terminal.

    python -m spinner_env.play --game spinner --players 4 --seat 0 \\
        --opponents checkpoint heuristic random --seed 0
    python -m spinner_env.play --load saved.json

At each of your turns the table is shown as the text render draws it, with your legal
moves numbered (placements, or draw, or pass): type a number. ``s FILE`` saves the match
as JSON (the engine's ``to_dict``, the seats, the log and the match record so far) and
``--load FILE`` resumes it; ``q`` quits. ``--record FILE`` writes the match record
(:mod:`spinner_env.records`) when the match ends or is left. Opponents are any agent
``spinner_env.agents.make_agent`` builds: ``random``, ``greedy``, ``heuristic``,
``checkpoint`` or a checkpoint path (and the search players where they exist).
:class:`Table` is the match with its seats; the web game (``spinner_env.web``) plays the
same tables.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spinner_env.agents import Agent, make_agent
from spinner_env.core.agent import AgentView, choose_move, choose_move_explained
from spinner_env.core.match import MatchState, check_int
from spinner_env.files import write_text_atomic
from spinner_env.games import GAMES, GameSpec, default_game, game_spec
from spinner_env.records import Record, Recorder, Seat, save_record

HUMAN = "human"
"""The seat spec of a person."""


@dataclass
class Table:
    """A match of one game with a spec per seat: ``"human"`` or an agent spec.

    Agents are re-seeded before every decision from (seed, seat, moves so far), so a
    saved and reloaded match plays on exactly as it would have. ``recorder`` keeps the
    match record from ``state`` on (agents' decisions with what they saw).
    """

    game: GameSpec
    seats: list[str]
    seed: int
    state: MatchState
    log: list[str] = field(default_factory=list)
    agents: dict[int, Agent] = field(default_factory=dict)
    recorder: Recorder = field(init=False)

    def __post_init__(self) -> None:
        names = [
            self.agents[s].name if s in self.agents else spec for s, spec in enumerate(self.seats)
        ]
        seats = [Seat(spec, name) for spec, name in zip(self.seats, names, strict=True)]
        self.recorder = Recorder(self.game, self.state, seats, {"seed": self.seed})

    @classmethod
    def new(
        cls,
        game: str,
        seats: Sequence[str],
        seed: int = 0,
        hands: int | None = None,
    ) -> Table:
        """A fresh match; ``hands`` shortens it (Spinner hands, Mexican Train rounds)."""
        spec = game_spec(game)
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        rules = {} if hands is None else {spec.hands_argument: hands}
        state = spec.new_state(len(seats), seed, **rules)
        table = cls._built(spec, list(seats), seed, state, [])
        # Checked once, here: a saved game's agents passed this when it was new, and a
        # server reloading many games should not make a decision for each of their agents.
        for seat, agent in table.agents.items():
            _check_plays(agent, seats[seat], state, spec)
        return table

    @classmethod
    def _built(
        cls,
        spec: GameSpec,
        seats: list[str],
        seed: int,
        state: MatchState,
        log: list[str],
        record: Record | None = None,
    ) -> Table:
        """The table; ``record``: the match so far (else it is recorded from ``state`` on)."""
        if HUMAN not in seats:
            raise ValueError("no seat is played by a human: name one seat 'human'")
        agents = {}
        for seat, seat_spec in enumerate(seats):
            if seat_spec != HUMAN:
                agents[seat] = make_agent(seat_spec, seed=seed, encoding=spec.encoding)
        table = cls(spec, seats, seed, state, log, agents)
        if record is not None:
            table.recorder.resume(record, state)
        return table

    # ------------------------------------------------------------------ turns
    @property
    def hand_word(self) -> str:
        """What the game calls a hand of its match: ``hand``, or ``round`` (Mexican Train)."""
        return self.game.hand_word

    @property
    def humans(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec == HUMAN]

    def agent_to_act(self) -> bool:
        """Whether an agent's move is due now (the hand in play, an agent's seat to act)."""
        return not self.state.hand_over and self.state.current in self.agents

    def play_agent(self) -> tuple[int, Any]:
        """Let the agent to act play its move; the seat and the move."""
        seat = self.state.current
        agent = self.agents[seat]
        agent.seed([self.seed, seat, len(self.log)])
        move, view = choose_move_explained(agent, self.state, self.game.encoding)
        self.play(move, view)
        return seat, move

    def play(self, move: Any, view: AgentView | None = None) -> None:
        """Play a move for the seat to act (ValueError, nothing changed, if illegal);
        ``view``: what the agent that chose it saw, for the record."""
        seat = self.state.current
        self.state.apply(move)
        self.log.append(f"player_{seat}: {move}")
        self.recorder.played(self.state, seat, move, view)

    def next_hand(self) -> None:
        self.state.start_next_hand()
        self.log.append(f"{self.hand_word} {self.state.hand_number + 1} dealt")
        self.recorder.new_hand(self.state)

    def record(self) -> Record:
        """The match record so far (``finished`` once the match is over)."""
        return self.recorder.record()

    def text(self, viewer: int | None) -> str:
        return self.game.raw_env.renderer(self.state, viewer)

    # ------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "seats": list(self.seats),
            "seed": self.seed,
            "log": list(self.log),
            "state": self.state.to_dict(),
            "record": self.record().to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        """A table written by :meth:`to_dict`; ValueError if it is not one."""
        try:
            spec = game_spec(data["game"])
            state = spec.raw_env.state_class.from_dict(data["state"])
            seats = [str(s) for s in data["seats"]]
            seed = int(data["seed"])
            log = [str(line) for line in data["log"]]
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a saved game: missing or malformed {err}") from err
        if len(seats) != state.num_players:
            raise ValueError(f"{len(seats)} seats for a {state.num_players}-player state")
        # A game saved before records were kept has none: it is recorded from here on.
        record = Record.from_dict(data["record"]) if "record" in data else None
        return cls._built(spec, seats, seed, state, log, record)


def _check_plays(agent: Agent, spec: str, state: MatchState, game: GameSpec) -> None:
    """ValueError unless ``agent`` can decide in this game at this player count.

    A policy file was checked against the game as it loaded (``make_agent``); every agent
    gets one dry decision too (which shows nothing where the first move is forced).
    """
    cannot = f"agent {spec!r} cannot play {game.name} with {state.num_players} players"
    try:
        choose_move(agent, state.copy(), game.encoding)
    except Exception as err:  # any failure means the agent cannot play here
        raise ValueError(f"{cannot}: {err}") from err


def seat_specs(players: int, humans: Sequence[int], opponents: Sequence[str]) -> list[str]:
    """One spec per seat: ``human`` at ``humans``, the opponents in seat order elsewhere.

    One opponent given plays every other seat.
    """
    if not all(0 <= seat < players for seat in humans):
        raise ValueError(f"--seat must be seats from 0 to {players - 1}, got {list(humans)}")
    others = players - len(set(humans))
    if len(opponents) == 1:
        opponents = list(opponents) * others
    if len(opponents) != others:
        raise ValueError(f"{len(opponents)} opponents given for {others} agent seats")
    queue = iter(opponents)
    return [HUMAN if seat in humans else next(queue) for seat in range(players)]


# --------------------------------------------------------------- the terminal
HELP = "type a move's number; s FILE saves the match, q quits"


def play_in_terminal(
    table: Table,
    save_path: Path | None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> None:
    """Play until the match ends (returns) or input ends (EOFError)."""
    rule = "-" * 72
    while True:
        state = table.state
        if state.hand_over:
            write(rule)
            write(table.text(None))
            if state.match_over:
                totals = ", ".join(f"player_{s}: {t}" for s, t in enumerate(state.totals))
                write(f"Final totals: {totals}")
                return
            prompt = f"Enter for the next {table.hand_word} (s FILE saves, q quits): "
            if _command(table, read(prompt), write):
                continue
            table.next_hand()
        elif table.agent_to_act():
            seat, move = table.play_agent()
            write(f"player_{seat} ({table.seats[seat]}): {move}")
        else:
            _human_turn(table, save_path, read, write)


def _human_turn(
    table: Table, save_path: Path | None, read: Callable[[str], str], write: Callable[[str], None]
) -> None:
    seat = table.state.current
    moves = table.state.legal_moves()
    write("-" * 72)
    write(table.text(seat))
    for number, move in enumerate(moves, 1):
        write(f"  {number}. {move}")
    while True:
        answer = read(f"player_{seat}, your move [1-{len(moves)}]: ").strip()
        if _command(table, answer, write, save_path):
            continue
        if answer.isdigit() and 1 <= int(answer) <= len(moves):
            table.play(moves[int(answer) - 1])
            return
        write(f"Not a move: {answer!r}. Choose 1 to {len(moves)} ({HELP}).")


def _command(
    table: Table, answer: str, write: Callable[[str], None], save_path: Path | None = None
) -> bool:
    """Carry out ``s [FILE]`` (save) or ``q`` (quit); whether the answer was a command."""
    words = answer.strip().split(maxsplit=1)
    if not words:
        return False
    if words[0] in ("q", "quit"):
        raise EOFError
    if words[0] in ("s", "save"):
        path = Path(words[1]) if len(words) > 1 else save_path
        if path is None:
            write("Save where? Type s FILE (or start with --save FILE).")
        else:
            try:
                write_text_atomic(path, json.dumps(table.to_dict(), indent=1))
                write(f"Saved to {path}; resume with --load {path}")
            except OSError as err:
                write(f"Could not save to {path}: {err.strerror}")
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", default=default_game().name, choices=list(GAMES), help="the game to play"
    )
    parser.add_argument("--players", type=int, default=2, help="how many seats (2 to 8)")
    parser.add_argument("--seat", type=int, nargs="+", default=[0], help="your seat(s)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["heuristic"],
        help="one agent per other seat, in seat order (or one for all): random, greedy, "
        "heuristic, checkpoint, a checkpoint path",
    )
    parser.add_argument("--seed", type=int, default=0, help="the deals' and agents' seed")
    parser.add_argument(
        "--hands",
        "--rounds",
        type=int,
        default=None,
        metavar="N",
        help="shorten the match to N hands (Spinner, --hands) or rounds (Mexican Train, --rounds)",
    )
    parser.add_argument("--load", type=Path, default=None, help="resume a saved match")
    parser.add_argument("--save", type=Path, default=None, help="where a bare 's' saves")
    parser.add_argument(
        "--record", type=Path, default=None, help="write the match record here at the end"
    )
    args = parser.parse_args(argv)
    try:
        if args.load is not None:
            table = Table.from_dict(json.loads(args.load.read_text(encoding="utf-8")))
        else:
            # The player count first, in the game's bounds: the seats are checked against it.
            state_class = game_spec(args.game).state_class
            check_int("--players", args.players, state_class.MIN_PLAYERS, state_class.MAX_PLAYERS)
            seats = seat_specs(args.players, args.seat, args.opponents)
            table = Table.new(args.game, seats, args.seed, args.hands)
    except (ValueError, OSError) as err:
        print(f"spinner-play: {err}", file=sys.stderr)
        return 2
    print(f"{table.game.name}: " + ", ".join(f"player_{s}: {p}" for s, p in enumerate(table.seats)))
    print(HELP)
    try:
        play_in_terminal(table, args.save)
    except EOFError:
        print("\nGame left unfinished (s FILE saves it; --load FILE resumes).")
    except KeyboardInterrupt:
        print("\nInterrupted: game left unfinished.")
        return 130
    finally:
        if args.record is not None:
            _write_record(table, args.record)
    return 0


def _write_record(table: Table, path: Path) -> None:
    try:
        save_record(table.record(), path)
        print(f"Match record written to {path}")
    except OSError as err:
        print(f"Could not write the match record to {path}: {err.strerror}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
