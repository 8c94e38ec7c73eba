"""tests/warm_python.py runs a Python command line as a fresh interpreter would.

Each case runs the same command through :func:`warm_python.run` and through
:func:`subprocess.run` and compares exit status, stdout and stderr.
"""

import os
import subprocess
import sys
import textwrap

import pytest

from tests import warm_python

SCRIPT = textwrap.dedent(
    """
    import atexit, os, sys, threading, time

    import mod_on_path  # from PYTHONPATH

    atexit.register(lambda: print("atexit ran"))

    def late():
        time.sleep(0.2)
        print("thread joined", flush=True)

    threading.Thread(target=late).start()  # not a daemon: the interpreter waits for it
    print("argv", sys.argv[1:], "cwd", os.path.basename(os.getcwd()), "env", os.environ["MARK"])
    first = os.path.basename(sys.path[0])
    print("name", __name__, "file", os.path.basename(__file__), "path0", first)
    print("module", mod_on_path.VALUE, "stdin", repr(sys.stdin.read()))
    print("to stderr", file=sys.stderr)
    sys.exit(int(sys.argv[1]))
    """
)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "mod_on_path.py").write_text("VALUE = 42\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "script.py").write_text(SCRIPT)
    (tmp_path / "work").mkdir()
    (tmp_path / "pkg_a").mkdir()
    (tmp_path / "pkg_a" / "__init__.py").write_text("")
    (tmp_path / "pkg_a" / "__main__.py").write_text(
        "import sys; print('main of', __name__, sys.argv[1:]); raise ValueError('boom')\n"
    )
    return tmp_path


def both(command, **kwargs):
    warm = warm_python.run(command, **kwargs)
    cold = subprocess.run(command, check=False, **kwargs)
    return warm, cold


def same(warm, cold):
    assert (warm.returncode, warm.stdout, warm.stderr) == (
        cold.returncode,
        cold.stdout,
        cold.stderr,
    )


@pytest.mark.parametrize("exit_code", [0, 3])
def test_a_script_sees_its_argv_cwd_env_path_and_exits_like_python(folder, exit_code):
    env = dict(os.environ, MARK="marked", PYTHONPATH=str(folder / "lib"))
    command = [sys.executable, str(folder / "scripts" / "script.py"), str(exit_code), "x y"]
    warm, cold = both(command, cwd=folder / "work", env=env, capture_output=True, text=True)
    same(warm, cold)
    assert warm.returncode == exit_code
    assert warm.stdout.splitlines() == [
        f"argv ['{exit_code}', 'x y'] cwd work env marked",
        "name __main__ file script.py path0 scripts",
        "module 42 stdin ''",
        "thread joined",
        "atexit ran",
    ]
    assert warm.stderr == "to stderr\n"


def test_a_module_with_an_uncaught_exception_prints_its_traceback_and_exits_1(folder):
    command = [sys.executable, "-m", "pkg_a", "--flag"]
    warm, cold = both(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert warm.returncode == cold.returncode == 1
    assert warm.stdout.splitlines()[0] == b"main of __main__ ['--flag']"
    assert warm.stdout.splitlines()[-1] == cold.stdout.splitlines()[-1] == b"ValueError: boom"
    assert b"Traceback (most recent call last):" in warm.stdout


def test_code_gets_minus_c_as_argv0_and_system_exit_messages_go_to_stderr(folder):
    code = "import sys; print(sys.argv, repr(sys.path[0])); sys.exit('bad input')"
    warm, cold = both([sys.executable, "-c", code, "a"], cwd=folder, capture_output=True, text=True)
    same(warm, cold)
    assert (warm.returncode, warm.stdout, warm.stderr) == (1, "['-c', 'a'] ''\n", "bad input\n")


def test_unbuffered_output_keeps_the_order_of_stdout_and_stderr(folder):
    code = "import sys; print('one'); print('two', file=sys.stderr); print('three')"
    command = [sys.executable, "-u", "-c", code]
    warm, cold = both(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    same(warm, cold)
    assert warm.stdout == b"one\ntwo\nthree\n"


def test_timeout_kills_the_child_and_check_raises(folder):
    with pytest.raises(subprocess.TimeoutExpired):
        warm_python.run(
            [sys.executable, "-c", "import time; time.sleep(60)"], capture_output=True, timeout=1
        )
    with pytest.raises(subprocess.CalledProcessError) as raised:
        warm_python.run(
            [sys.executable, "-c", "raise SystemExit(4)"], capture_output=True, check=True
        )
    assert raised.value.returncode == 4
    # the server serves the next command after both
    done = warm_python.run([sys.executable, "-c", "print(1 + 1)"], capture_output=True, text=True)
    assert done.stdout == "2\n"


def test_it_runs_in_a_preloaded_child_and_honours_import_time_variables(folder, monkeypatch):
    probe = "import sys; print('torch' in sys.modules, sys.orig_argv[1:])"
    warm = warm_python.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert (
        warm.stdout
        == "True ['-c', \"import sys; print('torch' in sys.modules, sys.orig_argv[1:])\"]\n"
    )
    # torch reads OMP_NUM_THREADS when it loads, the interpreter PYTHONHASHSEED when it starts
    code = "import torch; print(torch.get_num_threads(), hash('rlpyt'))"
    for threads, seed in (("1", "5"), ("2", "6")):
        env = dict(os.environ, OMP_NUM_THREADS=threads, PYTHONHASHSEED=seed)
        warm, cold = both([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        same(warm, cold)
        assert warm.stdout.split()[0] == threads
    for key in [key for key in warm_python._SERVERS if "OMP_NUM_THREADS" in dict(key)]:
        warm_python._SERVERS.pop(key).stop()  # not needed by later tests
    cold = warm_python.run([sys.executable, "-c", probe], input="", capture_output=True, text=True)
    assert cold.stdout.startswith("False")  # input= runs a real subprocess
    monkeypatch.setenv(warm_python.COLD_ENV, "1")
    cold = warm_python.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert cold.stdout.startswith("False")


def test_leftover_child_checks_leave_out_the_servers():
    from tests.unit.samplers.sampler_helpers import sampler_children

    warm_python.run([sys.executable, "-c", "pass"], capture_output=True, check=True)
    assert warm_python._SERVERS  # a server runs, a child of this process
    assert not sampler_children()
