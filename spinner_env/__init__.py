"""spinner-env: domino games (Spinner, Mexican Train) for reinforcement learning.

``spinner_env.spinner`` is the Spinner rules engine (no RL imports);
``spinner_env.spinner_v0`` is its PettingZoo AEC environment;
``spinner_env.mexican_train`` and ``spinner_env.mexican_train_v0`` are the same for
Mexican Train.
"""

from pettingzoo.env_registry.registration import aec_registry, register

from spinner_env import mexican_train_v0, spinner_v0

__version__ = "0.1.0"

if "spinner_env/spinner-v0" not in aec_registry:
    register("aec", "spinner_env/spinner-v0", entry_point="spinner_env.spinner_v0:env")

if "spinner_env/mexican_train-v0" not in aec_registry:
    register("aec", "spinner_env/mexican_train-v0", entry_point="spinner_env.mexican_train_v0:env")

__all__ = ["mexican_train_v0", "spinner_v0"]
