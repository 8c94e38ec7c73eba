"""Packaging metadata for rlpyt (tool settings live in pyproject.toml)."""

from setuptools import find_packages, setup

EXTRAS = {
    # The CLI tests run `rlpyt tune` and `rlpyt play --video`, so the test install has both extras.
    "test": [
        "pytest>=8",
        "pytest-timeout>=2.3",
        "pytest-xdist>=3.5",  # make test runs the suite in two worker processes
        "tensorboard>=2.14",
        "submitit>=1.5",
        "optuna>=4",
        "moviepy>=2",
        "gymnasium[classic-control]>=1.0",
        "wandb>=0.19.10",  # the W&B tests run offline and read back the run files
    ],
    "dev": ["ruff>=0.6", "mypy>=1.10"],
    "tensorboard": ["tensorboard>=2.14"],
    "mujoco": ["gymnasium[mujoco]>=1.0"],
    "plot": ["matplotlib>=3.7"],
    "ray": ["ray[tune]>=2.9"],
    "slurm": ["submitit>=1.5"],
    "tune": ["optuna>=4"],  # rlpyt tune
    # logger_context(wandb=...), rlpyt train --wandb: about 75 MB installed (wandb-core inside).
    # 0.19.10 for wandb.init(reinit="create_new"); tested with 0.31.
    "wandb": ["wandb>=0.19.10"],
    # rlpyt play --video: frames written with moviepy; classic-control envs render with pygame.
    "video": ["moviepy>=2", "gymnasium[classic-control]>=1.0"],
    # Batched Atari/MuJoCo/classic envs in C++ threads (rlpyt.envs.envpool); Linux x86_64 wheels.
    "envpool": ["envpool>=1.2.5"],
    # The documentation site (mkdocs.yml): `make docs` serves it, `make test` builds it strictly.
    "docs": ["mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26"],
}
# Not in "all": envpool has no wheels on some platforms.
EXTRAS["all"] = sorted({req for name, reqs in EXTRAS.items() if name != "envpool" for req in reqs})
# Peers measured by benchmarks/ only.
EXTRAS["bench"] = ["stable-baselines3>=2.3", "envpool>=0.8"]

setup(
    name="rlpyt",
    version="0.2.0",  # keep in step with rlpyt/__init__.py
    description="Deep reinforcement learning research framework in PyTorch (rlpyt, modernised)",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.11",
    packages=find_packages(include=["rlpyt", "rlpyt.*"]),
    install_requires=[
        "torch>=2.4",  # the oldest torch the unit suite was run on: 2.4.1
        "numpy>=1.26",
        "gymnasium>=1.0",
        "ale-py>=0.10",
        "psutil>=5.9",
        "click>=8.1",  # the rlpyt command line
        "tqdm>=4.60",  # the training progress bar
        "pyyaml>=6",  # rlpyt sweep files, --config-file
    ],
    entry_points={"console_scripts": ["rlpyt=rlpyt.cli.main:main"]},
    extras_require=EXTRAS,
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.11",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
