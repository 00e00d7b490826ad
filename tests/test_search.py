"""The search players (``spinner_env.agents.search``): options, reproducibility, hidden information,
the ISMCTS tree's bookkeeping, and whole matches through ``spinner_env.train.evaluate``."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from spinner_env.agents import make_agent
from spinner_env.agents.features import ObservationFeatures
from spinner_env.agents.search import (
    MIN_TIME,
    VALUE_TARGETS,
    ISMCTSAgent,
    PIMCAgent,
    _Node,
    after_each,
    clearly_ahead,
    match_equity,
)
from spinner_env.train.evaluate import tournament

from spinner_env.belief import Belief
from spinner_env.core.agent import GameView
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome
from spinner_env.core.match import MatchState
from spinner_env.games import game_spec
from spinner_env.games.spinner.rules import SpinnerState


def decision(game: str, num_players: int, seed: int) -> tuple[MatchState, np.ndarray]:
    """The first position of a seeded match where the seat to act has a choice, reached by
    random moves, and its legal action ids."""
    spec = game_spec(game)
    state = spec.new_state(num_players, seed)
    rng = random.Random(seed)
    while True:
        legal = state.legal_moves()
        if len(legal) > 1 and rng.random() < 0.3:
            ids = sorted(spec.encoding.action_of(m) for m in legal)
            return state, np.array(ids)
        state.play_legal(rng.choice(legal))


def choose(agent_spec: str, state: MatchState, legal: np.ndarray, seed: int) -> int:
    agent = make_agent(agent_spec, seed=seed)
    encoding = game_spec("spinner" if isinstance(state, SpinnerState) else "mexican_train").encoding
    return agent.choose(None, legal, GameView(state, encoding))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:iterations=0", "must be positive"),
        ("pimc:determinizations=-3", "must be positive"),
        ("ismcts:time=0", "must be positive"),
        ("ismcts:time=0.0001", "too small to finish one iteration"),
        ("ismcts:time=nan", "positive and finite"),
        ("ismcts:exploration=-1", "exploration must be"),
        ("ismcts:budget=3", "unknown option 'budget' for ismcts"),
        ("pimc:exploration=1", "unknown option 'exploration' for pimc"),
        ("ismcts:iterations=ten", "not int"),
        ("ismcts:iterations", "not key=value"),
        ("ismcts:iterations=5,iterations=6", "given twice"),
        ("ismcts:iterations=5,time=0.1", "not both"),
        ("ismcts:score=wins", "score must be one of"),
        ("ismcts:engine=gpu", "engine must be one of"),
        ("ismcts:final=best", "final must be one of"),
        ("pimc:final=mean", "unknown option 'final' for pimc"),
        ("pimc:margin=-1", "margin must be a finite number"),
        ("pimc:margin=inf", "margin must be a finite number"),
        ("pimc:margin=1,rollout=random", "rollout=random has no move of its own"),
        ("ismcts:margin=1", "unknown option 'margin' for ismcts"),
        ("ismcts:rollout=nobody", "unknown agent 'nobody'"),
        ("pimc:score=equity,spread=0", "spread must be a positive number"),
        ("pimc:score=equity,spread=inf", "spread must be a positive number"),
        ("ismcts:score=equity,cutoff=3", "cutoff needs score=points or score=match"),
        ("mcts:iterations=5", "unknown agent"),
    ],
)
def test_bad_options_are_value_errors_that_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


@pytest.mark.parametrize(
    ("edge", "noise", "margin", "plays_other"),
    [
        (0.2, 1.0, None, True),  # the best mean plays, however noisy
        (0.2, 1.0, 2.0, False),  # 0.2 ahead at a standard error of 0.38: not 2 of them
        (0.2, 1.0, 0.5, True),  # but more than half of one
        (0.2, 0.0, 2.0, True),  # ahead in every determinization: no error at all
    ],
)
def test_pimc_margin_keeps_the_rollout_policys_move_unless_another_clearly_beats_it(
    edge: float, noise: float, margin: float | None, plays_other: bool
) -> None:
    """``margin``: another move plays only where its mean beats the rollout policy's own
    move by that many standard errors of their paired differences (8 determinizations
    whose differences are ``edge`` plus or minus ``noise``)."""
    state, legal = decision("spinner", 2, seed=4)
    encoding = game_spec("spinner").encoding
    moves = [encoding.move_of(int(a)) for a in legal]
    option = "" if margin is None else f",margin={margin}"
    agent = make_agent(f"pimc:determinizations=8,rollout=greedy{option}", seed=0)
    assert isinstance(agent, PIMCAgent)
    greedy = make_agent("greedy").choose(None, legal, GameView(state, encoding))
    own = list(legal).index(greedy)
    other = (own + 1) % len(moves)
    calls = iter(range(8))

    def play_out(worlds: list[MatchState], seed: int) -> list[list[float]]:
        sign = 1 if next(calls) % 2 else -1
        scores = [-1.0] * len(moves)  # every other move far behind
        scores[own] = 0.0
        scores[other] = edge + sign * noise
        return [[scores[k % len(moves)]] * state.num_players for k in range(len(worlds))]

    result = agent.search(state, moves, play_out, random.Random(0))
    assert result.chosen == (other if plays_other else own)


@pytest.mark.parametrize(
    ("differences", "margin", "ahead"),
    [
        ([1.0, 3.0], 1.9, True),  # mean 2, sample standard deviation 1.41, error 1
        ([1.0, 3.0], 2.1, False),
        ([2.0, 2.0], 100.0, True),  # no spread: ahead by any margin
        ([-1.0, 1.0], 0.0, False),  # not ahead at all
        ([5.0], 0.0, False),  # one determinization gives no error
    ],
)
def test_clearly_ahead_counts_standard_errors_of_the_paired_differences(
    differences: list[float], margin: float, ahead: bool
) -> None:
    d = np.array(differences)
    assert clearly_ahead(d.sum(), (d**2).sum(), len(d), margin) is ahead


def test_options_reach_the_agent() -> None:
    agent = make_agent("ismcts:iterations=30,rollout=random,exploration=0.25,score=match")
    assert isinstance(agent, ISMCTSAgent)
    assert agent.name == "ismcts:iterations=30,rollout=random,exploration=0.25,score=match"
    assert (agent.options.budget, agent.options.rollout) == (30, "random")
    assert (agent.options.exploration, agent.options.score) == (0.25, "match")
    pimc = make_agent("pimc:determinizations=7")
    assert isinstance(pimc, PIMCAgent) and pimc.options.budget == 7
    assert make_agent(f"pimc:time={MIN_TIME}").options.time == MIN_TIME


@pytest.mark.parametrize(
    "spec",
    [
        "ismcts:iterations=30",
        "ismcts:iterations=30,engine=reference,final=mean",
        "pimc:determinizations=3",
        "pimc:determinizations=3,rollout=random,engine=reference",
    ],
)
@pytest.mark.parametrize(("game", "num_players"), [("spinner", 2), ("mexican_train", 3)])
def test_iteration_mode_replays_and_reads_no_hidden_information(
    spec: str, game: str, num_players: int
) -> None:
    """Same seed, same decision; and the same decision again in a position that differs
    only in what the seat cannot see (another consistent deal and another match seed)."""
    state, legal = decision(game, num_players, seed=4)
    first = choose(spec, state, legal, seed=1)
    assert choose(spec, state, legal, seed=1) == first
    assert first in legal
    for redeal in range(3):
        other = Belief(state).determinize(random.Random(redeal))
        assert other.hands != state.hands or other.boneyard != state.boneyard
        assert choose(spec, other, legal, seed=1) == first


def test_ismcts_tree_counts_visits_and_availability() -> None:
    """Cowling et al.: every iteration visits one root child; a child was available at
    least as often as it was visited; the root's children are exactly the legal moves."""
    state, legal = decision("spinner", 2, seed=2)
    agent = make_agent("ismcts:iterations=80,rollout=random", seed=0)
    assert isinstance(agent, ISMCTSAgent)
    encoding = game_spec("spinner").encoding
    moves = [encoding.move_of(int(a)) for a in legal]
    root = _Node()
    rng = random.Random(0)
    belief = Belief(state)
    play_out = agent._play_out(state, encoding, rng)
    for _ in range(80):
        agent._iterate(root, belief.determinize(rng), play_out, rng)
    assert set(root.children) == set(moves)
    assert sum(c.visits for c in root.children.values()) == 80
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children.values():
            assert 1 <= child.visits <= child.available
            assert sum(g.visits for g in child.children.values()) <= child.visits
            stack.append(child)


def test_time_mode_tries_every_move_at_least_once() -> None:
    state, legal = decision("spinner", 2, seed=6)
    agent = make_agent(f"ismcts:time={MIN_TIME},rollout=heuristic", seed=0)
    encoding = game_spec("spinner").encoding
    counted: list[int] = []
    original = agent._iterate

    def counting(*args: object) -> None:
        counted.append(1)
        original(*args)  # type: ignore[arg-type]

    agent._iterate = counting  # type: ignore[method-assign]
    agent.choose(None, legal, GameView(state, encoding))
    assert len(counted) >= len(legal)


@pytest.mark.parametrize(
    ("game", "num_players"), [("spinner", 2), ("spinner", 4), ("mexican_train", 2)]
)
def test_whole_matches_through_the_evaluator(game: str, num_players: int) -> None:
    rules = {"num_hands": 1} if game == "spinner" else {"num_rounds": 1}
    agents = [
        make_agent("ismcts:iterations=4,rollout=random"),
        make_agent("pimc:determinizations=1,rollout=greedy"),
        *(make_agent("random") for _ in range(num_players - 2)),
    ]
    report = tournament(
        agents, num_players, matches=num_players, seed=3, game=game, rules=rules, progress=False
    )
    assert report.matches == num_players
    assert set(report.agents) >= {
        "ismcts:iterations=4,rollout=random",
        "pimc:determinizations=1,rollout=greedy",
    }


@pytest.mark.parametrize("engine", ["auto", "reference"])
def test_a_rollout_policy_of_the_other_game_is_a_value_error(engine: str) -> None:
    """A policy network rolls out on either engine, but only in its own game."""
    for game, policy in (("spinner", "mexican_train_4p"), ("mexican_train", "checkpoint")):
        state, legal = decision(game, 2, seed=1)
        name = game_spec(game).encoding.game_name
        with pytest.raises(
            ValueError, match=f"rollout={policy} is a policy for a game of .* not for {name}"
        ):
            choose(f"pimc:iterations=1,engine={engine},rollout={policy}", state, legal, 0)


@pytest.mark.parametrize(
    ("game", "rollout"),
    [
        (game, rollout)
        for game in ("spinner", "mexican_train")
        for rollout in ("heuristic", "expert", "greedy")
    ],
)
def test_both_engines_find_the_same_pimc_scores(game: str, rollout: str) -> None:
    """A PIMC decision with heuristic, expert or greedy rollouts (no randomness in them)
    sums the same scores on both engines: the batched path changes the speed, not the
    search. (The Mexican Train expert plays there through its batched twin.)"""
    batched, reference = engine_scores(game, 3, f"pimc:iterations=4,rollout={rollout}", 4)
    np.testing.assert_allclose(batched, reference)


@pytest.mark.parametrize("game", ["spinner", "mexican_train"])
def test_both_engines_find_the_same_equity_scores(game: str) -> None:
    """``score=equity`` turns the same hand play-outs into the same expected outcomes on
    both engines, each a zero-sum row (S7.2 / M6.3)."""
    batched, reference = engine_scores(game, 3, "pimc:iterations=3,rollout=expert,score=equity", 3)
    np.testing.assert_allclose(batched, reference)
    np.testing.assert_allclose(batched.sum(axis=1), 0, atol=1e-6)


def test_s7_2_m6_3_after_the_last_hand_equity_is_the_match_outcome() -> None:
    """With no hand to follow, a hand's points decide: the lowest total wins, ties share."""
    totals = [40, 31, 52]
    for points in ([0, 9, 1], [0, 10, 3], [5, 14, 0]):
        (row,) = match_equity(totals, [hand_score_difference(points)], 0, 25.0)
        ends = [t + p for t, p in zip(totals, points, strict=True)]
        np.testing.assert_allclose(row, zero_sum_outcome(ends))
    assert match_equity(totals, [hand_score_difference([0, 9, 3])], 0, 25.0)[0][:2] == [
        0.25,
        0.25,
    ]  # 40 and 40: a tie for the win


def test_equity_is_the_chance_of_the_lowest_total_after_normal_later_hands() -> None:
    """Two players, one hand to follow: seat 0 wins when its later points stay below seat
    1's plus the gap, a normal difference of standard deviation spread * sqrt(2)."""
    (row,) = match_equity([30, 20], [hand_score_difference([0, 25])], 1, 20.0)
    chance = 0.5 * (1 + math.erf(15 / (20.0 * math.sqrt(2)) / math.sqrt(2)))
    np.testing.assert_allclose(row, [2 * chance - 1, 1 - 2 * chance], atol=1e-6)
    # The more hands to follow, the less a lead is worth; equal seats stay level.
    leads = [
        match_equity([0, 30, 30, 30], [[0, 0, 0, 0]], later, 25.0)[0][0] for later in (1, 4, 12)
    ]
    assert leads[0] > leads[1] > leads[2] > 0
    level = match_equity([5, 5, 5, 5], [[0, 0, 0, 0]], 6, 25.0)[0]
    np.testing.assert_allclose(level, 0, atol=1e-6)


def engine_scores(
    game: str, num_players: int, spec: str, determinizations: int
) -> tuple[np.ndarray, np.ndarray]:
    """The scores of PIMC's positions (every legal move of a seeded decision, in each of
    ``determinizations``) played out by the search player ``spec`` (without its engine)
    on the batched engine and on the reference engine."""
    state, legal = decision(game, num_players, seed=7)
    encoding = game_spec(game).encoding
    moves = [encoding.move_of(int(a)) for a in legal]
    rng = random.Random(0)
    belief = Belief(state)
    worlds = [
        w for _ in range(determinizations) for w in after_each(belief.determinize(rng), moves)
    ]
    batched, reference = (
        np.asarray(
            make_agent(f"{spec},engine={engine}", seed=0)._play_out(
                state, encoding, random.Random(0)
            )([w.copy() for w in worlds], 5)
        )
        for engine in ("batched", "reference")
    )
    return batched, reference


def test_the_mexican_train_expert_rolls_out_through_its_batched_twin() -> None:
    """No compiled twin, but a batched one: its rollouts play on the batched engine, many
    positions per call, as a policy network's do."""
    state, _ = decision("mexican_train", 3, seed=7)
    agent = make_agent("pimc:iterations=1,rollout=expert", seed=0)
    agent._play_out(state, game_spec("mexican_train").encoding, random.Random(0))
    assert agent._by_policy(state)


def test_a_policy_checkpoint_can_roll_out() -> None:
    """The rollout policy may be any agent, a trained one reading observations included."""
    state, legal = decision("spinner", 2, seed=5)
    assert choose("pimc:determinizations=1,rollout=checkpoint", state, legal, seed=0) in legal


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:determinizations=3,rollout=random",
        "ismcts:iterations=6,rollout=random",
        "ismcts:iterations=40,rollout=greedy,final=mean",
    ],
)
@pytest.mark.parametrize(("game", "num_players"), [("spinner", 2), ("mexican_train", 3)])
def test_the_search_view_is_the_search_that_chose(spec: str, game: str, num_players: int) -> None:
    """One MoveView per legal move, in legal order; the move played is the best by the
    final rule and the same as ``choose`` plays from the same seed; visits add up to the
    budget (PIMC: every move in every determinization)."""
    state, legal = decision(game, num_players, seed=4)
    view = GameView(state, game_spec(game).encoding)
    agent = make_agent(spec, seed=2)
    action, seen = agent.choose_explained(None, legal, view)
    assert action == make_agent(spec, seed=2).choose(None, legal, view)
    assert seen is not None and seen.kind == "search"
    assert [m.action for m in seen.moves] == list(legal)
    chosen = next(m for m in seen.moves if m.action == action)
    assert seen.value == chosen.value
    visits = [m.visits for m in seen.moves]
    tried = [m.value for m in seen.moves if m.value is not None]
    assert all((m.visits == 0) == (m.value is None) for m in seen.moves)
    if spec.startswith("pimc"):
        assert visits == [3] * len(legal)
        assert chosen.value == max(tried)
    else:
        assert sum(visits) == agent.options.budget
        key = "value" if "final=mean" in spec else "visits"
        assert getattr(chosen, key) == max(getattr(m, key) for m in seen.moves if m.visits)


POLICIES = {"spinner": "spinner_2p", "mexican_train": "mexican_train_4p"}


@pytest.mark.parametrize("score", ["points", "match"])
@pytest.mark.parametrize(("game", "num_players"), [("spinner", 2), ("mexican_train", 4)])
def test_a_policy_network_rolls_out_alike_on_both_engines(
    game: str, num_players: int, score: str
) -> None:
    """The committed networks (argmax) play positions out with the same scores on the
    batched engine, many positions per forward pass, as on the reference engine, one
    position and one decision at a time."""
    spec = f"pimc:iterations=1,rollout={POLICIES[game]},score={score}"
    batched, reference = engine_scores(game, num_players, spec, 3)
    np.testing.assert_allclose(batched, reference)


@pytest.mark.parametrize("player", ["pimc:iterations=12", "ismcts:iterations=30"])
@pytest.mark.parametrize(("game", "num_players"), [("spinner", 2), ("mexican_train", 4)])
def test_network_guided_search_decides_alike_on_both_engines_and_replays(
    player: str, game: str, num_players: int
) -> None:
    """Iteration mode replays from the seed, and a network's rollouts make the same
    decision on either engine (PIMC plays all 12 determinizations in one call there)."""
    state, legal = decision(game, num_players, seed=3)
    spec = f"{player},rollout={POLICIES[game]}"
    batched = choose(f"{spec},engine=batched", state, legal, seed=1)
    assert choose(f"{spec},engine=batched", state, legal, seed=1) == batched
    assert choose(f"{spec},engine=reference", state, legal, seed=1) == batched


def test_network_guided_pimc_in_time_mode_decides() -> None:
    state, legal = decision("spinner", 2, seed=5)
    agent = make_agent("pimc:time=0.02,rollout=spinner_2p", seed=0)
    action, seen = agent.choose_explained(
        None, legal, GameView(state, game_spec("spinner").encoding)
    )
    assert action in legal and seen is not None
    assert len({m.visits for m in seen.moves}) == 1 and seen.moves[0].visits >= 1


def value_policy(path: Path, game: str, target: tuple[str, str, float]) -> str:
    """A small untrained policy file of ``game`` whose value head predicts ``target``."""
    from spinner_env.agents.policy import PolicyHeader, ValueTarget, save_policy

    encoding = game_spec(game).encoding
    value = ValueTarget(*target)
    header = PolicyHeader(
        game=encoding.game_name,
        obs_size=ObservationFeatures((), encoding).size,
        num_actions=encoding.num_actions,
        policy_layers=(32,),
        value_layers=(32,),
        activation="tanh",
        value=value,
    )
    return str(save_policy(header.build(), path / f"{game}.safetensors", encoding, value=value))


@pytest.mark.parametrize("score", ["points", "match"])
@pytest.mark.parametrize(("game", "num_players"), [("spinner", 2), ("mexican_train", 4)])
def test_a_value_head_cuts_rollouts_off_alike_on_both_engines(
    tmp_path: Path, game: str, num_players: int, score: str
) -> None:
    policy = value_policy(tmp_path, game, (*VALUE_TARGETS[score], 1.0))
    for cutoff in (0, 3):
        spec = f"pimc:iterations=1,rollout={policy},score={score},cutoff={cutoff}"
        batched, reference = engine_scores(game, num_players, spec, 2)
        np.testing.assert_allclose(batched, reference, rtol=1e-5, atol=1e-6)
    full = engine_scores(game, num_players, f"pimc:iterations=1,rollout={policy},score={score}", 2)
    assert not np.allclose(batched, full[0])  # the value head, not the end, scored them


def test_a_cutoff_needs_a_value_head_that_predicts_the_score(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cutoff needs a rollout policy with a value head"):
        make_agent("pimc:rollout=spinner_2p,cutoff=3")
    with pytest.raises(ValueError, match="cutoff must be a number of decisions >= 0"):
        make_agent("pimc:rollout=spinner_2p,cutoff=-1")
    policy = value_policy(tmp_path, "spinner", ("match", "match", 1.0))
    assert make_agent(f"ismcts:rollout={policy},cutoff=3,score=match")
    with pytest.raises(ValueError, match="predicts the hand_score return per hand, undiscounted"):
        make_agent(f"ismcts:rollout={policy},cutoff=3")
