"""spinner-env: domino games (Spinner, Mexican Train) for reinforcement learning.

``spinner_env.spinner`` is the Spinner rules engine (no RL imports);
``spinner_env.spinner_v0`` is its PettingZoo AEC environment;
``spinner_env.mexican_train`` and ``spinner_env.mexican_train_v0`` are the same for
Mexican Train. Importing the package registers the single-agent views
(:func:`spinner_env.wrappers.single_agent_env`) as the Gymnasium ids
``spinner_env/Spinner-v0`` and ``spinner_env/MexicanTrain-v0``.
"""

import gymnasium
from pettingzoo.env_registry.registration import aec_registry, register

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.games import GAMES

__version__ = "0.1.0"

# Entry points are strings: registering imports nothing beyond the environments.
for _game in GAMES.values():
    if _game.aec_id not in aec_registry:
        register("aec", _game.aec_id, entry_point=f"{_game.raw_env.__module__}:env")
    if _game.gym_id not in gymnasium.registry:
        gymnasium.register(
            _game.gym_id,
            entry_point="spinner_env.wrappers:single_agent_env",
            kwargs={"game": _game.name},
        )

__all__ = ["mexican_train_v0", "spinner_v0"]
