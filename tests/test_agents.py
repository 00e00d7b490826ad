"""Agents: legal actions only, at every player count (S2.1), and their documented strategies."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents import GreedyAgent, HeuristicAgent, RandomAgent, make_agent
from spinner_env.agents.policy import PolicyAgent, save_policy
from spinner_env.train.evaluate import tournament

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.core.agent import GameView
from spinner_env.games.mexican_train.rules import MexicanTile, MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.rules import ALL_TILES, S, SpinnerRules, SpinnerState


def untrained_policy_agent(seed: int = 0) -> PolicyAgent:
    policy = MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (spinner_v0.OBSERVATION_SIZE,), np.float32),
        spaces.Discrete(spinner_v0.NUM_ACTIONS),
        lr_schedule=lambda _: 3e-4,
        net_arch=[16],
    )
    return PolicyAgent(policy, name="untrained", deterministic=False, seed=seed)


@pytest.mark.parametrize("num_players", range(2, 9))
def test_agents_choose_only_legal_actions_at_every_player_count(num_players):
    """S2.1: every agent, any seat, any player count; the env raises on an illegal id."""
    env = spinner_v0.raw_env(num_players=num_players, num_hands=2)
    pool = [RandomAgent(seed=1), GreedyAgent(), HeuristicAgent(), untrained_policy_agent()]
    for episode in range(2):
        env.reset(seed=100 * num_players + episode)
        seats = {agent: pool[(i + episode) % len(pool)] for i, agent in enumerate(env.agents)}
        assert play_checking_legality(env, seats) > 0


def play_checking_legality(env, seats: dict) -> int:
    """Play the episode with ``seats[agent]``; every action must be in the mask (the raw
    env would raise anyway). Returns the number of real decisions (two or more legal)."""
    decisions = 0
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = seats[name].act(obs["observation"], mask, env)
        assert mask[action] == 1
        decisions += int(mask.sum() > 1)
        env.step(action)
    return decisions


def test_agents_that_read_the_engine_say_so():
    mask = np.zeros(spinner_v0.NUM_ACTIONS, np.int8)
    mask[[0, 1]] = 1
    obs = np.zeros(spinner_v0.OBSERVATION_SIZE, np.float32)
    with pytest.raises(ValueError, match="view"):
        GreedyAgent().act(obs, mask)
    assert RandomAgent(seed=0).act(obs, mask) in (0, 1)


def decide(agent, view: GameView) -> str:
    game = view.game
    enc = view.encoding
    mask = np.zeros(enc.num_actions, np.int8)
    mask[[enc.action_of(m) for m in game.legal_moves()]] = 1
    return str(enc.move_of(agent.act(enc.observation(game, game.current), mask, view)))


def deal(hand0: str, hand1: str) -> GameView:
    """Seat 0 sets 9-9 (S3.1), seat 1 acts first (S3.5); the boneyard's top tiles hold no
    3, 8, 9 or S, so seat 0 cannot follow those values by drawing."""
    used = set((hand0 + " " + hand1).split())
    rest = [t for t in ALL_TILES if str(t) not in used]
    boneyard = sorted(rest, key=lambda t: any(t.has(v) for v in (3, 8, 9, S)))
    game = SpinnerState.from_position(
        [hand0.split(), hand1.split()], boneyard, SpinnerRules(num_players=2)
    )
    return GameView(game, spinner_v0.raw_env.encoding)


SETTER = "9-9 0-0 0-1 0-2 0-4 0-5 0-6 0-7 1-1 1-2 1-4 1-5 1-6 1-7"


def play(game: SpinnerState, tile: str | None = None) -> None:
    """Seat to act places ``tile``, or plays its only legal moves until its turn ends."""
    if tile is not None:
        game.play_legal(next(m for m in game.legal_moves() if str(m.tile) == tile))
        return
    seat = game.current
    while game.current == seat:
        (move,) = game.legal_moves()
        game.play_legal(move)


def test_greedy_places_the_heaviest_tile_s_counting_ten():
    """S1.4: 6-S (16 points) outweighs 5-9 (14) on the set's 9 arms."""
    view = deal(SETTER, "5-9 6-S 2-2 4-4 5-5 6-6 7-7 2-4 2-5 2-6 4-5 4-6 4-7 5-6")
    assert decide(GreedyAgent(), view).startswith("6-S")


def shown_void_in_3_8_and_s() -> GameView:
    """Seat 1 to act on free ends {3, 8}; seat 0 drew on them and passed, so it holds no 3,
    8 or spinner tile (S6.2, S8). Seat 1 holds 3-3 and 3-4 for the 3 end, 7-8 for the 8."""
    view = deal(SETTER, "3-9 8-9 3-3 3-4 7-8 2-2 4-4 5-5 6-6 7-7 2-4 2-5 2-6 4-5")
    game = view.game
    play(game, "3-9")
    play(game)  # seat 0: no 9 or S, draws and passes
    play(game, "8-9")
    play(game)  # seat 0: no 3, 8 or S, draws and passes
    assert game.voids[0] == {3, 8, S} and game.playable_ends() == [3, 8]
    return view


def test_heuristic_plays_a_double_the_next_player_cannot_follow():
    """S5.1: after 3-3, the next three placements go on its arms; seat 0 was shown void in
    3 (it drew on a 3 end, S8), so the heuristic lays that trap before heavier 7-8."""
    view = shown_void_in_3_8_and_s()
    assert decide(GreedyAgent(), view).startswith("7-8")
    assert decide(HeuristicAgent(), view).startswith("3-3")


def test_seeded_agents_replay_exactly():
    env = spinner_v0.raw_env(num_players=3, num_hands=1)

    def run(seed):
        env.reset(seed=5)
        agents = [RandomAgent(seed=seed), untrained_policy_agent(seed=seed), RandomAgent(seed + 1)]
        chosen = []
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = (
                None
                if term or trunc
                else agents[env.agents.index(name)].act(obs["observation"], obs["action_mask"], env)
            )
            chosen.append(action)
            env.step(action)
        return chosen

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_make_agent_names_baselines_and_rejects_unknown_specs(tmp_path):
    assert make_agent("heuristic").name == "heuristic"
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("grandmaster")
    for missing in (tmp_path / "gone.safetensors", "runs/none/final.zip", "policy.safetensors"):
        with pytest.raises(ValueError, match=f"^no such policy file '{missing}'$"):
            make_agent(str(missing))
    path = tmp_path / "tiny.safetensors"
    save_policy(untrained_policy_agent().policy, path, spinner_v0.ENCODING)
    loaded = make_agent(str(path))
    assert isinstance(loaded, PolicyAgent) and loaded.name == "tiny"


def test_the_numpy_forward_pass_matches_torch():
    agent = untrained_policy_agent()
    rng = np.random.default_rng(0)
    obs = rng.random(spinner_v0.OBSERVATION_SIZE, dtype=np.float32)
    batch = rng.random((5, spinner_v0.OBSERVATION_SIZE), dtype=np.float32)
    fast, fast_batch = agent.logits(obs), agent.logits(batch)
    agent._layers = None  # the torch path
    np.testing.assert_allclose(fast, agent.logits(obs), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fast_batch, agent.logits(batch), rtol=1e-5, atol=1e-5)
    assert fast.shape == (spinner_v0.NUM_ACTIONS,)
    assert fast_batch.shape == (5, spinner_v0.NUM_ACTIONS)


def random_masks(rng: np.random.Generator, rows: int, legal: int) -> np.ndarray:
    masks = np.zeros((rows, spinner_v0.NUM_ACTIONS), np.int8)
    for row in masks:
        row[rng.choice(spinner_v0.NUM_ACTIONS, legal, replace=False)] = 1
    return masks


def test_policy_act_batch_decides_as_act_row_by_row():
    agent = untrained_policy_agent()
    agent.deterministic = True
    rng = np.random.default_rng(1)
    obs = rng.random((64, spinner_v0.OBSERVATION_SIZE), dtype=np.float32)
    masks = random_masks(rng, 64, legal=5)
    expected = [agent.act(o, m) for o, m in zip(obs, masks, strict=True)]
    assert agent.act_batch(obs, masks).tolist() == expected


def test_policy_act_and_act_batch_agree_on_logits_closer_than_a_softmax_tells_apart():
    """Two legal logits 1e-10 apart have equal float probabilities: both paths still play
    the larger, so a network rolls out alike one position or many at a time."""
    agent = untrained_policy_agent()
    agent.deterministic = True
    masks = np.zeros((1, spinner_v0.NUM_ACTIONS), np.int8)
    masks[0, [3, 7]] = 1
    logits = np.zeros(spinner_v0.NUM_ACTIONS, np.float32)  # as a network gives them
    logits[7] = 1e-10
    weight = np.zeros((spinner_v0.NUM_ACTIONS, spinner_v0.OBSERVATION_SIZE), np.float32)
    agent._layers = [(weight, logits, None)]  # a policy whose logits are the bias
    obs = np.zeros((1, spinner_v0.OBSERVATION_SIZE), np.float32)
    assert agent.act(obs[0], masks[0]) == agent.act_batch(obs, masks)[0] == 7


def test_policy_act_batch_samples_legal_actions_by_their_softmax():
    """Gumbel-max sampling: each legal action about as often as its masked softmax says."""
    agent = untrained_policy_agent(seed=3)
    rng = np.random.default_rng(2)
    masks = np.repeat(random_masks(rng, 1, legal=4), 20000, 0)
    legal = np.flatnonzero(masks[0])
    logits = np.full(spinner_v0.NUM_ACTIONS, 5.0, np.float32)  # high, but masked out
    logits[legal] = [0.0, 1.0, 2.0, -1.0]
    weight = np.zeros((spinner_v0.NUM_ACTIONS, spinner_v0.OBSERVATION_SIZE), np.float32)
    agent._layers = [(weight, logits, None)]  # a policy whose logits are the bias
    obs = rng.random((20000, spinner_v0.OBSERVATION_SIZE), dtype=np.float32)
    actions = agent.act_batch(obs, masks)
    softmax = np.exp(logits[legal]) / np.exp(logits[legal]).sum()  # 0.09, 0.24, 0.64, 0.03
    frequencies = np.array([(actions == a).mean() for a in legal])
    assert frequencies.sum() == 1.0
    np.testing.assert_allclose(frequencies, softmax, atol=0.015)


def test_the_committed_checkpoint_loads_and_plays_legally():
    """The 2-player policy shipped in agents/checkpoints plays without training first."""
    agent = make_agent("checkpoint")
    assert isinstance(agent, PolicyAgent) and agent.name == "spinner_2p"
    report = tournament([agent, RandomAgent()], 2, 2, rules={"num_hands": 2}, progress=False)
    assert report.matches == 2


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_agents_choose_only_legal_actions_in_mexican_train(num_players):
    """M2.1: the baselines (heuristic included) play Mexican Train from any seat."""
    env = mexican_train_v0.raw_env(num_players=num_players, num_rounds=2)
    pool = [RandomAgent(seed=1), GreedyAgent(), HeuristicAgent()]
    env.reset(seed=num_players)
    seats = {agent: pool[i % len(pool)] for i, agent in enumerate(env.agents)}
    assert play_checking_legality(env, seats) > 0


def mexican_view(hands: list[str], trains: list[str], **kwargs) -> GameView:
    """A round-0 position (engine 12-12) of the given hands and trains; every other tile
    is in the boneyard, in the set's order."""
    named = {MexicanTile.parse(t) for t in " ".join([*hands, *trains]).split()}
    engine = MexicanTile.of(12, 12)
    rest = [t for t in MexicanTile.all_tiles() if t not in named and t is not engine]
    game = MexicanTrainState.from_position(
        hands, rest, MexicanTrainRules(num_players=len(hands)), trains=trains, **kwargs
    )
    return GameView(game, mexican_train_v0.ENCODING)


def mexican_decision(hands: list[str], trains: list[str], **kwargs) -> str:
    return decide(HeuristicAgent(), mexican_view(hands, trains, **kwargs))


def test_mexican_train_heuristic_plays_a_double_it_can_follow():
    """M5.2: on an own train open at 4, the double 4-4, which 4-9 can then satisfy with
    the extra placement, comes before the heavier 4-9."""
    move = mexican_decision(["4-4 4-9 0-1 0-2", "0-3 0-5 0-6 0-7"], ["12-4", "", ""])
    assert move == "4-4 on own train"


def test_mexican_train_heuristic_lifts_its_own_marker():
    """M3.4: with its own train marked, the same tile goes on the own train, not the
    Mexican train, since that reopens every train to a placement of ours."""
    move = mexican_decision(
        ["5-6 0-1 0-2 0-3", "0-4 0-7 0-8 0-9"], ["12-5", "", "12-6"], markers=[0]
    )
    assert move == "5-6 on own train"
