"""The ``rlpyt`` command: a click group of train, sweep, plot (and play, tune).

Box: command line. Installed as the ``rlpyt`` console script (``setup.py``) and run by
``python -m rlpyt``. Each subcommand lives in its own module of :mod:`rlpyt.cli` and composes
the library's classes through :func:`rlpyt.cli.compose.build_components`. The group reports a
subcommand's failure as one message (:class:`rlpyt.cli.errors.ReportingGroup`).
"""

from __future__ import annotations

import click

from rlpyt import __version__
from rlpyt.cli.errors import ReportingGroup
from rlpyt.cli.plot import plot
from rlpyt.cli.sweep import sweep
from rlpyt.cli.train import train

MAIN_HELP = """rlpyt: deep reinforcement learning research in PyTorch, from the command line.

Each command composes the same samplers, agents, algorithms and runners a Python script
would; `rlpyt COMMAND --help` describes one.

\b
A day's loop:
  rlpyt train ppo --env CartPole-v1 --target-reward 475
  rlpyt plot runs/ppo_CartPole-v1/run_0
  rlpyt play runs/ppo_CartPole-v1/run_0 --episodes 3 --video ppo.mp4
  rlpyt sweep ppo --env CartPole-v1 --grid algo.learning_rate=3e-4,1e-3 --seeds 2
  rlpyt tune ppo --env CartPole-v1 --trials 20
  rlpyt compare runs/local/<date>/<time>/ppo_CartPole-v1
"""


@click.group(
    cls=ReportingGroup,
    help=MAIN_HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", "-V", prog_name="rlpyt")
def rlpyt() -> None:
    """The command group (see MAIN_HELP)."""


rlpyt.add_command(train)
rlpyt.add_command(sweep)
rlpyt.add_command(plot)

# -- commands of other modules -------------------------------------------------------------------
# (rlpyt play and rlpyt tune: their imports and ``rlpyt.add_command(...)`` lines go here.)
from rlpyt.cli.compare import compare  # noqa: E402
from rlpyt.cli.play import play  # noqa: E402 (grouped here with their add_command lines)
from rlpyt.cli.tune import tune  # noqa: E402

rlpyt.add_command(play)
rlpyt.add_command(tune)
rlpyt.add_command(compare)


def main() -> None:
    """Console-script entry point (``rlpyt``)."""
    rlpyt(prog_name="rlpyt")
