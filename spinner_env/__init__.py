"""spinner-env: domino games (Spinner, Mexican Train) for reinforcement learning.

Each game is a package of :mod:`spinner_env.games` (its rules engine, encoding,
PettingZoo env, batched engine, ...), registered in :data:`spinner_env.games.GAMES`.
Its PettingZoo env is imported under its versioned name, ``from spinner_env import
spinner_v0`` (or ``mexican_train_v0``). Importing the package registers the PettingZoo
ids and the single-agent views (:func:`spinner_env.wrappers.single_agent_env`) as the
Gymnasium ids ``spinner_env/Spinner-v0`` and ``spinner_env/MexicanTrain-v0``; it loads
no env until one is asked for.
"""

import importlib
from types import ModuleType

import gymnasium

from spinner_env.games import GAMES

__version__ = "0.1.0"

try:
    from pettingzoo.env_registry.registration import aec_registry, register
except ImportError:  # every install has PettingZoo; the core and engines need it not
    aec_registry, register = {}, None

# Entry points are strings: registering imports nothing beyond the games' records.
for _game in GAMES.values():
    if register is not None and _game.aec_id not in aec_registry:
        register("aec", _game.aec_id, entry_point=f"{_game.env_path.partition(':')[0]}:env")
    if _game.gym_id not in gymnasium.registry:
        gymnasium.register(
            _game.gym_id,
            entry_point="spinner_env.wrappers:single_agent_env",
            kwargs={"game": _game.name},
        )

__all__ = sorted(game.env_name for game in GAMES.values())


def __getattr__(name: str) -> ModuleType:
    """A game's env module by its versioned name (``spinner_env.spinner_v0``, as ``from
    spinner_env import spinner_v0`` reads it), loaded on first use."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
