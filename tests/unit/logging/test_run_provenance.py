"""params.json traces a run to its code: git commit, dirty flag, command line, rlpyt version."""

import shlex
import shutil
import subprocess
import sys

import pytest

from rlpyt.utils.logging import context


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_commit_and_dirty_flag_of_a_repository(tmp_path):
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "train.py").write_text("print(1)\n")
    git("add", "train.py", cwd=tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", cwd=tmp_path)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert context.git_commit(str(tmp_path)) == head
    assert context.git_dirty(str(tmp_path)) is False
    (tmp_path / "notes.txt").write_text("untracked files do not make the code dirty\n")
    assert context.git_dirty(str(tmp_path)) is False
    (tmp_path / "train.py").write_text("print(2)\n")
    assert context.git_dirty(str(tmp_path)) is True
    outside = tmp_path.parent / f"{tmp_path.name}_no_repo"
    outside.mkdir()
    assert context.git_commit(str(outside)) is None and context.git_dirty(str(outside)) is None


def test_run_params_record_command_line_and_dirty_flag_with_the_commit(monkeypatch):
    monkeypatch.setattr(context, "git_commit", lambda: "abc123")
    monkeypatch.setattr(context, "git_dirty", lambda: True)
    params = context.make_run_params({"algo": {}}, "exp", 0, "exp_0")
    assert (params["git_commit"], params["git_dirty"]) == ("abc123", True)
    assert params["command_line"] == shlex.join(getattr(sys, "orig_argv", sys.argv))
    assert params["package_versions"]["rlpyt"]
    monkeypatch.setattr(context, "git_commit", lambda: None)
    params = context.make_run_params({}, "exp", 0, "exp_0")
    assert "git_commit" not in params and "git_dirty" not in params
