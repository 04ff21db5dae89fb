#!/usr/bin/env python3
"""The production topology on one machine: nginx in front of two app servers (gunicorn) that
share one PostgreSQL (DATABASE_URL) and one Redis, every part on a free local port.

    scripts/with-postgres .venv/bin/python scripts/cluster.py [--sample] [-- COMMAND ...]

Migrates and collects static files, starts Redis, two gunicorns and nginx, then runs COMMAND
(with CLUSTER_URL = nginx and CLUSTER_APPS = the two app servers, comma-separated) or, without
one, serves until Ctrl-C. Everything it started is stopped on the way out. `make cluster` runs
it on a throwaway PostgreSQL with the sample data. Needs Debian's nginx and redis-server.
"""

import argparse
import fcntl
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
NGINX = """
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
daemon off;
worker_processes 1;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    client_max_body_size 3m;
    upstream app {{ server 127.0.0.1:{app1}; server 127.0.0.1:{app2}; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://app;
            proxy_set_header Host $http_host;
            # The edge proxy sets the client's address; it never passes one a client sent.
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
        location /admin/ {{
            client_max_body_size 12m;  # art uploads: up to ART_MAX_BYTES (10 MB) and the form
            proxy_pass http://app;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
        # Uploaded art (cards.art): files named by their content, so cached for good.
        location /media/ {{
            alias {media}/;
            add_header Cache-Control "public, max-age=31536000, immutable";
            add_header X-Content-Type-Options nosniff;
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"cluster: {process.args[0]} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"cluster: {url} did not answer within {seconds} s")


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"cluster: {process.args[0]} exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    sys.exit(f"cluster: nothing listens on port {port} after {seconds} s")


def start(stack: ExitStack, command: list, log: Path, env: dict) -> subprocess.Popen:
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)

    def stop():
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()

    stack.callback(stop)
    return process


def binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if not found:
        sys.exit(f"cluster: {name} is missing: apt-get install -y nginx redis-server")
    return found


def settings(redis_port: int) -> dict:
    """Production settings (DEBUG off) as an operator would set them, on plain local HTTP."""
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("cluster: set DATABASE_URL to a PostgreSQL database (scripts/with-postgres does)")
    return {
        **{k: v for k, v in os.environ.items() if k not in {"TESTING", "DEBUG", "CACHE_URL"}},
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",  # no TLS here; nginx would terminate it in production
        "CACHE_URL": f"redis://127.0.0.1:{redis_port}/0",
        "TRUSTED_PROXIES": "127.0.0.1",
        "PYTHONUNBUFFERED": "1",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", action="store_true", help="load the sample data first")
    parser.add_argument("--port", type=int, default=0, help="nginx's port (default: a free one)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND to run, then stop")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    redis_port, app_ports = free_port(), [free_port(), free_port()]
    port = args.port or free_port()
    env = settings(redis_port)
    manage = [PYTHON, "manage.py"]
    quiet = {"stdout": subprocess.DEVNULL}
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    with open(ROOT / ".collectstatic.lock", "w") as lock:  # clusters started side by side
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(
            [*manage, "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )

    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="deckbuilder-cluster-") as tmp:
        tmp_path = Path(tmp)
        os.chmod(tmp, 0o755)  # nginx's workers (user nobody) write their temp files here
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (tmp_path / sub).mkdir(mode=0o777)
            os.chmod(tmp_path / sub, 0o777)
        redis = start(
            stack,
            [
                binary("redis-server"),
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            tmp_path / "redis.log",
            env,
        )
        wait_for_port(redis_port, redis)
        if args.sample:  # with Redis up: the vocabulary it reads goes to the shared cache
            subprocess.run([*manage, "load_sample_data"], cwd=ROOT, env=env, check=True, **quiet)
        apps = []
        for n, app_port in enumerate(app_ports, 1):
            gunicorn = [
                str(Path(PYTHON).parent / "gunicorn"), "deckbuilder.wsgi",
                "--bind", f"127.0.0.1:{app_port}", "--workers", "2", "--threads", "2",
                "--access-logfile", "-",
            ]  # fmt: skip
            apps.append(start(stack, gunicorn, tmp_path / f"app{n}.log", env))
        for app, app_port in zip(apps, app_ports, strict=True):
            wait_for(f"http://127.0.0.1:{app_port}/healthz", app)
        conf = tmp_path / "nginx.conf"
        media = Path(env.get("MEDIA_ROOT") or ROOT / "media").resolve()
        conf.write_text(
            NGINX.format(tmp=tmp, port=port, app1=app_ports[0], app2=app_ports[1], media=media)
        )
        nginx = start(
            stack,
            [binary("nginx"), "-c", str(conf), "-p", tmp, "-e", f"{tmp}/nginx-error.log"],
            tmp_path / "nginx.log",
            env,
        )
        wait_for(f"http://127.0.0.1:{port}/healthz", nginx)

        urls = {
            "CLUSTER_URL": f"http://127.0.0.1:{port}",
            "CLUSTER_APPS": ",".join(f"http://127.0.0.1:{p}" for p in app_ports),
        }
        print(f"cluster: nginx {urls['CLUSTER_URL']} → app servers {urls['CLUSTER_APPS']}")
        print(f"cluster: Redis on port {redis_port}; logs in {tmp} while it runs", flush=True)
        if command:
            return subprocess.run(command, cwd=ROOT, env={**env, **urls}).returncode
        print("cluster: serving; Ctrl-C stops every part", flush=True)
        for stop in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: a background job ignores it
            signal.signal(stop, lambda *_: sys.exit(0))
        while all(p.poll() is None for p in (redis, nginx, *apps)):
            time.sleep(1)
        died = next(p for p in (redis, nginx, *apps) if p.poll() is not None)
        print(f"cluster: {Path(died.args[0]).name} exited ({died.returncode}): stopping the rest")
        return 1


if __name__ == "__main__":
    sys.exit(main())
