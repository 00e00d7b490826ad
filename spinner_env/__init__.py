"""spinner-env: domino games (Spinner, Mexican Train) for reinforcement learning.

``spinner_env.spinner`` is the Spinner rules engine (no RL imports);
``spinner_env.spinner_v0`` is its PettingZoo AEC environment.
"""

from pettingzoo.env_registry.registration import aec_registry, register

from spinner_env import spinner_v0

__version__ = "0.1.0"

if "spinner_env/spinner-v0" not in aec_registry:
    register("aec", "spinner_env/spinner-v0", entry_point="spinner_env.spinner_v0:env")

__all__ = ["spinner_v0"]
