"""``subprocess.run`` for Python command lines, started from an interpreter that has torch loaded.

Every test that runs ``python script.py``, ``python -m rlpyt ...`` or ``python -c ...`` in a
child process used to pay for importing torch (about 2.4 s here) and, once the child builds an
optimizer, ``torch._dynamo`` (another 2.2 s: torch's optimizer methods import it on their
first call). :func:`run` takes the same arguments as :func:`subprocess.run` and returns the same
:class:`subprocess.CompletedProcess`, but a command ``[sys.executable, ...]`` runs in a process
forked from a server that imported numpy, torch and ``torch._dynamo`` once, at its start:

- the child gets the command's working folder, environment (``os.environ`` is replaced, so C
  code sees it too), ``sys.argv``, ``sys.path`` (the script's folder, or the working folder for
  ``-m``/``-c``, then ``PYTHONPATH``, then the interpreter's own) and standard streams (files
  read back afterwards; stdin is ``/dev/null``);
- it runs the script, module (as ``python -m`` does) or code as ``__main__``, then shuts down
  the way the interpreter does: non-daemon threads joined, ``atexit`` handlers run, streams
  flushed; an uncaught exception prints its traceback and exits 1, ``SystemExit`` its code;
- the exit status, a timeout (the child is killed, ``TimeoutExpired`` raised) and ``check``
  behave as in :func:`subprocess.run`.

Only those three libraries are preloaded: every rlpyt process imports them, and none registers
anything a script could come to rely on by accident (rlpyt, gymnasium and ale-py are imported by
the command itself, as in a fresh interpreter). What they and the interpreter read from the
environment when they start (``PYTHON*`` other than ``PYTHONPATH``/``PYTHONUNBUFFERED``,
``OMP_*``, ``MKL_*``, ``KMP_*``, ``TORCH*``, ``PYTORCH*``, ``CUDA*``, ``LD_*``) is fixed when a
server starts, so each such environment gets its own server (up to ``MAX_SERVERS``). A command
this cannot reproduce exactly runs as a real subprocess instead: another executable, interpreter
options other than ``-u``, ``input=`` or a ``stdin``, or output not captured (``capture_output``
or ``stdout``/``stderr`` of ``PIPE``/``STDOUT``). ``RLPYT_TEST_COLD_PYTHON=1`` makes every
command a real subprocess (the way to check that a failure is not this module's).

One set of servers per test process (each pytest-xdist worker has its own), started on first use
and stopped at exit (a server also ends when its test process does: its stdin closes). A server
runs one command at a time, as a test does. Servers are child processes of the test process
that outlive each test: leftover-child checks leave out processes whose command line holds
``SERVER_MARK`` (``sampler_helpers.sampler_children`` does).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

COLD_ENV = "RLPYT_TEST_COLD_PYTHON"
_IMPORT_TIME_PREFIXES = ("OMP_", "MKL_", "KMP_", "TORCH", "PYTORCH", "CUDA", "LD_")
_PYTHON_ENV_ALLOWED = ("PYTHONPATH", "PYTHONUNBUFFERED")
# Set in os.environ by importing torch._dynamo, read only when inductor compiles.
_SET_BY_TORCH = ("TORCHINDUCTOR_CACHE_DIR",)

# The server: imports the libraries, says "ready", then serves one JSON request per line on fd 0
# by forking a child for it, answering {"pid": ...} and, once the child has ended, {"status": ...}.
SERVER_MARK = "rlpyt-tests-warm-python-server"  # in the server's command line, to tell it apart
SERVER = r"""
# rlpyt-tests-warm-python-server
import json, os, sys
import numpy, torch, torch._dynamo  # what every command would import first, and slowest

BASE_PATH = sys.path[1:]  # without "" (this server's -c)


def main_module(file):
    import types
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=file, __builtins__=__builtins__, __spec__=None)
    if file is None:
        del module.__file__
    sys.modules["__main__"] = module
    return module


def run_command(request):
    import runpy
    mode, target, args = request["mode"], request["target"], request["args"]
    pythonpath = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    if mode == "script":
        first = os.path.dirname(os.path.realpath(target))
    else:
        first = os.getcwd() if mode == "module" else ""
    sys.path[:] = [first, *map(os.path.abspath, pythonpath), *BASE_PATH]
    sys.orig_argv = request["orig_argv"]
    if mode == "script":
        sys.argv = [target, *args]
        with open(target, "rb") as f:
            code = compile(f.read(), target, "exec")
        exec(code, main_module(os.path.abspath(target)).__dict__)
    elif mode == "code":
        sys.argv = ["-c", *args]
        exec(compile(target, "<string>", "exec"), main_module(None).__dict__)
    else:
        sys.argv = ["-m", *args]
        runpy._run_module_as_main(target, alter_argv=True)


def child(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    if request["stderr"] is None:
        os.dup2(out, 2)
    else:
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    sys.stdin = open(0, closefd=False)
    if request["unbuffered"]:  # as -u or PYTHONUNBUFFERED make the interpreter's streams
        import io
        for fd, name in ((1, "stdout"), (2, "stderr")):
            old = getattr(sys, name)
            setattr(sys, name, io.TextIOWrapper(
                io.FileIO(fd, "w", closefd=False), encoding=old.encoding, errors=old.errors,
                write_through=True,
            ))
    code = 0
    try:
        run_command(request)
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    try:
        import threading
        threading._shutdown()
        import atexit
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def serve():
    pending = b""
    os.write(1, b"ready\n")
    while True:
        while b"\n" not in pending:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(request)
        os.write(1, (json.dumps({"pid": pid}) + "\n").encode())
        _, status = os.waitpid(pid, 0)
        os.write(1, (json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\n").encode())


serve()
"""


class _Server:
    """The forking server of this process (see the module docstring)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={k: v for k, v in env.items() if k != "PYTHONPATH"},
            cwd=os.path.dirname(os.path.abspath(__file__)),
        )
        self.pending = b""
        if self._read_line(timeout=120) != b"ready":
            raise RuntimeError("the warm Python server did not start")

    def alive(self) -> bool:
        return self.process.poll() is None

    def _read_line(self, timeout: float | None) -> bytes | None:
        """The next line from the server; None when ``timeout`` passed first."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError("the warm Python server exited")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def run(self, request: dict[str, Any], timeout: float | None) -> int | None:
        """Run ``request``; returns its exit code, or None when ``timeout`` passed (killed)."""
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        started = self._read_line(timeout=60)
        if started is None:
            raise RuntimeError("the warm Python server did not fork the command within 60 s")
        pid = json.loads(started)["pid"]
        line = self._read_line(timeout=timeout)
        if line is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._read_line(timeout=60)  # the killed child's status
            return None
        return json.loads(line)["status"]

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
            self.process.wait()


# This process's servers, by the environment their preloaded libraries read at import.
_SERVERS: dict[tuple[tuple[str, str], ...], _Server] = {}
MAX_SERVERS = 4


@atexit.register
def _stop_servers() -> None:
    for server in _SERVERS.values():
        server.stop()
    _SERVERS.clear()


def _import_time_env(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The variables of ``env`` that numpy, torch or the interpreter read when they start."""
    return tuple(
        sorted(
            (key, value)
            for key, value in env.items()
            if (key.startswith(_IMPORT_TIME_PREFIXES) and key not in _SET_BY_TORCH)
            or (key.startswith("PYTHON") and key not in _PYTHON_ENV_ALLOWED)
        )
    )


def _server_for(env: dict[str, str]) -> _Server | None:
    """A running server started with ``env``'s import-time variables (None: too many already)."""
    key = _import_time_env(env)
    server = _SERVERS.get(key)
    if server is not None and server.alive():
        return server
    if server is None and len(_SERVERS) >= MAX_SERVERS:
        return None
    _SERVERS[key] = server = _Server(env)
    return server


def _parse(args: list[str]) -> tuple[str, str, list[str], bool] | None:
    """(mode, target, arguments, -u) of a Python command line this module can run, else None."""
    if not args or args[0] != sys.executable:
        return None
    rest = list(args[1:])
    unbuffered = False
    while rest and rest[0] == "-u":
        rest.pop(0)
        unbuffered = True
    if not rest:
        return None
    if rest[0] in ("-c", "-m"):
        if len(rest) < 2:
            return None
        return ("code" if rest[0] == "-c" else "module"), rest[1], rest[2:], unbuffered
    if rest[0].startswith("-"):
        return None
    return "script", rest[0], rest[1:], unbuffered


def run(args: Any, **kwargs: Any) -> subprocess.CompletedProcess:
    """:func:`subprocess.run`, through the warm server where it can run the command exactly."""
    stdout, stderr = kwargs.get("stdout"), kwargs.get("stderr")
    piped = stdout == subprocess.PIPE and stderr in (subprocess.PIPE, subprocess.STDOUT)
    to_files = kwargs.get("capture_output", False) or piped
    allowed = {"capture_output", "stdout", "stderr", "cwd", "env", "timeout", "check", "text"}
    parsed = _parse([str(a) for a in args]) if isinstance(args, (list, tuple)) else None
    env = {str(k): str(v) for k, v in (kwargs.get("env") or os.environ).items()}
    if (
        os.environ.get(COLD_ENV) == "1"
        or parsed is None
        or not to_files
        or set(kwargs) - allowed
        or (server := _server_for(env)) is None
    ):
        return subprocess.run(args, **kwargs)  # noqa: PLW1510 (check is in kwargs)
    mode, target, arguments, unbuffered = parsed
    timeout: float | None = kwargs.get("timeout")
    with tempfile.TemporaryDirectory(prefix="warm-python-") as folder:
        out_path = os.path.join(folder, "stdout")
        err_path = None if stderr == subprocess.STDOUT else os.path.join(folder, "stderr")
        request = dict(
            orig_argv=[str(a) for a in args],
            mode=mode,
            target=target,
            args=arguments,
            cwd=os.path.abspath(str(kwargs.get("cwd") or os.getcwd())),
            env=env,
            stdout=out_path,
            stderr=err_path,
            unbuffered=unbuffered or bool(env.get("PYTHONUNBUFFERED")),
        )
        status = server.run(request, timeout)
        out = _read(out_path, kwargs.get("text", False))
        err = None if err_path is None else _read(err_path, kwargs.get("text", False))
    if status is None:  # only with a timeout
        raise subprocess.TimeoutExpired(list(args), timeout or 0.0, output=out, stderr=err)
    result = subprocess.CompletedProcess(list(args), status, out, err)
    if kwargs.get("check"):
        result.check_returncode()
    return result


def _read(path: str, text: bool) -> str | bytes:
    with open(path, "rb") as f:
        data = f.read()
    return data.decode() if text else data
