"""What every registered game's environment keeps, whatever the game."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.render import counted

ENV_MODULES = [spinner_v0, mexican_train_v0]


@pytest.mark.parametrize("module", ENV_MODULES, ids=lambda m: m.__name__)
def test_env_shows_the_raw_envs_arguments(module):
    """``help(env)`` lists the arguments, not ``**kwargs``."""
    raw = inspect.signature(module.raw_env).parameters
    shown = inspect.signature(module.env).parameters
    assert list(shown) == [name for name in raw if name != "unknown"]
    assert "num_players" in shown and "render_mode" in shown
    assert "Args:" in module.env.__doc__ and "num_players" in module.env.__doc__


def test_the_batched_package_exports_lazily():
    code = (
        "import sys, spinner_env.batched as b\n"
        "assert 'numba' not in sys.modules\n"
        "from spinner_env.batched import SpinnerVectorEnv, BatchedSpinner\n"
        "assert 'numba' in sys.modules and SpinnerVectorEnv.__name__ == 'SpinnerVectorEnv'\n"
        "assert 'SpinnerVectorEnv' in dir(b)\n"
        "try:\n    b.nothing\nexcept AttributeError:\n    print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout == "ok\n", result.stderr


def test_counts_are_plural_but_for_one():
    assert [counted(n, "tile") for n in (0, 1, 2)] == ["0 tiles", "1 tile", "2 tiles"]
