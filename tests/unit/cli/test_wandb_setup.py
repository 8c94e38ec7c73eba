"""``--wandb`` is checked before anything is built or written: wandb installed, and W&B
credentials where the wandb client looks for them (no network), unless the W&B run stays local.

The machine's own W&B login never counts: HOME, the W&B folders and the working directory are
tmp_path's, and every W&B variable is unset.
"""

import sys

import pytest
from click.testing import CliRunner

from rlpyt.cli.main import rlpyt
from rlpyt.utils.logging.wandb import WandbSettings, setup_problem

W_AND_B_VARIABLES = (
    "WANDB_API_KEY",
    "WANDB_IDENTITY_TOKEN_FILE",
    "WANDB_MODE",
    "WANDB_DISABLED",
    "WANDB_BASE_URL",
    "WANDB_CONFIG_DIR",
    "WANDB_DIR",
    "NETRC",
)


@pytest.fixture
def no_login(tmp_path, monkeypatch):
    """A machine without W&B login: returns the fake home folder (the cwd is tmp_path/work)."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in W_AND_B_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path / "work")
    return home


def problem():
    return setup_problem(WandbSettings())


def test_no_credentials_names_login_api_key_and_offline_mode(no_login):
    message = problem()
    assert message is not None
    for words in ("wandb login", "WANDB_API_KEY", "WANDB_MODE=offline"):
        assert words in message


@pytest.mark.parametrize(
    "variable, value",
    [
        ("WANDB_API_KEY", "x" * 40),
        ("WANDB_IDENTITY_TOKEN_FILE", "/some/token"),
        ("WANDB_MODE", "offline"),
        ("WANDB_MODE", "disabled"),
        ("WANDB_DISABLED", "true"),
    ],
)
def test_an_api_key_or_a_local_mode_in_the_environment_is_enough(
    no_login, monkeypatch, variable, value
):
    monkeypatch.setenv(variable, value)
    assert problem() is None


def test_a_local_mode_in_the_settings_is_enough(no_login):
    assert setup_problem(WandbSettings(mode="offline")) is None


@pytest.mark.parametrize("host", ["api.wandb.ai", "api.forge.coreweave.com"])
def test_a_netrc_entry_for_the_default_server_is_a_login(no_login, host):
    (no_login / ".netrc").write_text(f"machine {host}\n  login user\n  password {'k' * 40}\n")
    assert problem() is None


def test_a_netrc_entry_for_another_server_is_no_login(no_login):
    (no_login / ".netrc").write_text(f"machine example.com\n  login user\n  password {'k' * 40}\n")
    assert problem() is not None


def test_wandb_base_url_chooses_the_netrc_entry(no_login, monkeypatch):
    (no_login / ".netrc").write_text(f"machine api.wandb.ai login user password {'k' * 40}\n")
    monkeypatch.setenv("WANDB_BASE_URL", "https://wandb.example.com")
    message = problem()
    assert message is not None and "for https://wandb.example.com" in message
    (no_login / ".netrc").write_text(f"machine wandb.example.com login user password {'k' * 40}\n")
    assert problem() is None


def test_the_netrc_variable_names_the_file(no_login, tmp_path, monkeypatch):
    custom = tmp_path / "my_netrc"
    custom.write_text(f"machine api.wandb.ai login user password {'k' * 40}\n")
    monkeypatch.setenv("NETRC", str(custom))
    assert problem() is None


@pytest.mark.parametrize("entry", ["mode = offline", f"api_key = {'k' * 40}"])
def test_the_settings_files_count(no_login, tmp_path, monkeypatch, entry):
    global_settings = no_login / ".config" / "wandb" / "settings"
    global_settings.parent.mkdir(parents=True)
    global_settings.write_text(f"[default]\n{entry}\n")
    assert problem() is None
    global_settings.unlink()
    workspace = tmp_path / "work" / "wandb" / "settings"
    workspace.parent.mkdir()
    workspace.write_text(f"[default]\n{entry}\n")
    assert problem() is None
    monkeypatch.setenv("WANDB_CONFIG_DIR", str(tmp_path / "config"))
    workspace.unlink()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings").write_text(f"[default]\n{entry}\n")
    assert problem() is None


@pytest.mark.parametrize("command", ["train", "sweep"])
def test_rlpyt_without_login_stops_with_rc_2_before_the_run_folder(no_login, tmp_path, command):
    args = [command, "ppo", "--env", "CartPole-v1", "--steps", "512", "--wandb"]
    result = CliRunner().invoke(rlpyt, args)
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()  # one message, no usage lines
    assert line.startswith("Error: Weights & Biases has no API key") and "wandb login" in line
    assert not (tmp_path / "work" / "runs").exists()


def test_rlpyt_without_wandb_installed_says_how_to_install_it(no_login, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb raises ImportError
    args = ["train", "ppo", "--env", "CartPole-v1", "--steps", "512", "--wandb-project", "p"]
    result = CliRunner().invoke(rlpyt, args)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        "Error: Logging to Weights & Biases (--wandb) needs the wandb package: "
        'pip install "rlpyt[wandb]"'
    )
    assert not (tmp_path / "work" / "runs").exists()
