"""Real servers for the tests that need more than the test client: free ports, start, wait
until /healthz answers, stop. Every process started here is stopped by its context manager."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# Settings a subprocess must not inherit from the test run.
TEST_ONLY = {"TESTING", "DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "CACHE_URL"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(**env) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in TEST_ONLY}
    return {**base, "DEBUG": "1", "PYTHONUNBUFFERED": "1", **env}


def manage(*args, env: dict) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def wait_until_up(url: str, process=None, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {seconds} s")


@contextlib.contextmanager
def running(command: list, *, env: dict, url: str, log: Path):
    """Start COMMAND (a server), wait for URL/healthz, yield, then stop it."""
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    try:
        wait_until_up(url, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def gunicorn(port: int, *, workers: int = 2) -> list:
    return [
        str(BIN / "gunicorn"),
        "deckbuilder.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        "4",
    ]
