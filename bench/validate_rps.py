"""Validate throughput benchmark: POST /api/games/{game}/validate/ under gunicorn, 2 workers.

    make bench                  # both benchmarks, each against a throwaway PostgreSQL 15
    scripts/with-postgres .venv/bin/python bench/validate_rps.py [--duration 3 --rounds 3]

Needs PostgreSQL (DATABASE_URL; refuses SQLite); don't point it at a database whose data
matters. Migrates, loads the sample data, then serves the site with
`gunicorn deckbuilder.wsgi -w 2` on a free loopback port, with production-like settings:
DEBUG=0, TESTING, RULES_CACHE_SECONDS and DB_CONN_MAX_AGE unset (so the rules cache is
rechecked at most once a second, as in production), a random SECRET_KEY,
ALLOWED_HOSTS=127.0.0.1, SECURE_SSL_REDIRECT=0, and DJANGO_SETTINGS_MODULE=bench.settings: the
site's settings and URLs plus bench-only endpoints (bench/urls.py). The workers are asked what
they run with (GET /bench/settings/) before the load.

Endpoints, under the same load:
- `trivial`: GET /bench/trivial/, a plain Django JsonResponse through the same middleware, no
  database. The issue's baseline: the target is validate req/s / trivial req/s >= 0.7.
- `trivial-drf`: GET /bench/trivial-drf/, {"ok": true} from a DRF APIView with the API's
  renderers, parsers and authenticators: the like-for-like baseline (same framework).
- `validate`: the product, with a legal deck: Kellantra and 10 different cards she may use
  (Plant A Seed and nine more, picked from the database), one copy each.
Every POST endpoint must answer "legal" before and after the load.

Load comes from wrk (Debian's; installed with apt when missing and running as root): the same
connections and duration for every endpoint, in rounds where the trivial baseline runs before
and after every two other endpoints (trivial-drf next to validate), so that each is compared
with baselines measured next to it (a shared machine's other work comes and goes); medians of
the rounds are reported. Without wrk, a threaded http.client loop (much weaker: the client then
competes with the server for the CPU and the GIL); the output says which was used.

In-process first (same settings, requests through Django's WSGI handler as gunicorn calls it):
the SQL queries of one warm validate request (CaptureQueriesContext, after one warm-up request)
and of the first one after the recheck time; the time of whole requests and of the view's
steps; and a cProfile of warm validate requests: where the time goes.
This is a benchmark, not a test: it prints figures and ratios, and never fails on them.
"""
# ruff: noqa: E402  (Django must be set up before the project's modules are imported)

import argparse
import cProfile
import http.client
import io
import json
import logging
import os
import platform
import pstats
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_RATIO = 0.7
GAME, LEADER, FIRST_CARD = "card-of-gods", "kellantra", "plant-a-seed"
TRIVIAL_PATH = "/bench/trivial/"
VALIDATE_PATH = f"/api/games/{GAME}/validate/"
SETTINGS_PATH = "/bench/settings/"
HOST = "127.0.0.1"

# One environment for the set-up in this process and for gunicorn: production-like settings.
SERVER_ENV = {
    "DJANGO_SETTINGS_MODULE": "bench.settings",
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(64),
    "ALLOWED_HOSTS": HOST,
    "SECURE_SSL_REDIRECT": "0",
    "LOG_LEVEL": "WARNING",
}
UNSET = ("TESTING", "RULES_CACHE_SECONDS", "DB_CONN_MAX_AGE")  # their production defaults
PRODUCTION = {"DEBUG": False, "TESTING": False, "RULES_CACHE_SECONDS": 1}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3, help="seconds per measurement")
    parser.add_argument("--warmup", type=float, default=1, help="seconds of warm-up each")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per endpoint")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--tool", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--inprocess-reps", type=int, default=2000, help="calls per timing")
    return parser.parse_args()


def refuse_sqlite():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        sys.exit(
            "validate_rps: needs PostgreSQL (DATABASE_URL=postgres://...), not SQLite.\n"
            "  scripts/with-postgres .venv/bin/python bench/validate_rps.py"
        )


refuse_sqlite()
for name in UNSET:
    os.environ.pop(name, None)
os.environ.update(SERVER_ENV)
# WhiteNoise's "No directory at .../staticfiles/": no collectstatic here, no static files asked.
warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)

import django

django.setup()

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.management import call_command
from django.db import connection
from django.template.response import SimpleTemplateResponse
from django.test.utils import CaptureQueriesContext
from rest_framework import serializers as drf_serializers
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from cards import catalogue, legality
from cards.models import Card, Leader
from deckbuilder import api

LEGAL = {
    "legal": True,
    "card_count": 10,
    "problems": [],
    "format": "standard",
    "sections": {"main": 10},
}
ENDPOINTS = {  # name: (method, path)
    "trivial": ("GET", TRIVIAL_PATH),
    "trivial-drf": ("GET", "/bench/trivial-drf/"),
    "validate": ("POST", VALIDATE_PATH),
}

# --- set-up -----------------------------------------------------------------------------------


def set_up() -> dict:
    """Migrate, load the sample data; the body of a legal 10-card deck for Kellantra."""
    assert connection.vendor == "postgresql", connection.vendor
    call_command("migrate", interactive=False, verbosity=0)
    out = io.StringIO()
    call_command("load_sample_data", stdout=out)
    print(out.getvalue().strip())
    leader = Leader.objects.select_related("game").get(game__slug=GAME, slug=LEADER)
    usable = list(Card.objects.usable_by(leader).order_by("name").values_list("slug", flat=True))
    if FIRST_CARD not in usable or len(usable) < 10:
        sys.exit(f"validate_rps: {LEADER} may use {len(usable)} cards, {FIRST_CARD} not among them")
    slugs = [FIRST_CARD] + [s for s in usable if s != FIRST_CARD][:9]
    return {"leader": LEADER, "cards": [{"card": slug, "count": 1} for slug in slugs]}


def check_answer(status: int, body: bytes, what: str) -> None:
    data = json.loads(body)
    if status != 200 or data != LEGAL:
        sys.exit(f"validate_rps: {what} answered {status} {data!r}, wanted {LEGAL}")


def check_settings(found: dict, where: str) -> None:
    if found != PRODUCTION:
        sys.exit(f"validate_rps: {where} runs with {found}, wanted {PRODUCTION}")


# --- in-process: queries, timings, profile ------------------------------------------------------

_wsgi = None


def wsgi(method: str, path: str, body: bytes = b"") -> tuple[int, str, bytes]:
    """One request through Django's WSGI handler, as a gunicorn worker makes it."""
    global _wsgi
    _wsgi = _wsgi or WSGIHandler()
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": HOST,
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": HOST,
        "HTTP_ACCEPT": "*/*",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if body:
        environ.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
    started = []
    response = _wsgi(environ, lambda status, headers, exc_info=None: started.append(status))
    try:
        content = b"".join(response)
    finally:
        response.close()
    status, headers = int(started[0].split()[0]), dict(response.items())
    return status, headers.get("Content-Type", ""), content


def median_ms(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def one_line(sql: str, width: int = 150) -> str:
    sql = re.sub(r"\s+", " ", sql)
    return sql if len(sql) <= width else sql[: width - 3] + "..."


def show_queries(payload: bytes) -> int:
    wsgi("POST", VALIDATE_PATH, payload)  # warm-up: loads or rechecks the rules cache
    with CaptureQueriesContext(connection) as warm:
        check_answer(*wsgi("POST", VALIDATE_PATH, payload)[::2], "in-process validate")
    time.sleep(settings.RULES_CACHE_SECONDS + 0.05)
    with CaptureQueriesContext(connection) as stale:
        wsgi("POST", VALIDATE_PATH, payload)
    print(
        f"\nSQL queries of one warm validate request (CaptureQueriesContext, after one warm-up "
        f"request; RULES_CACHE_SECONDS={settings.RULES_CACHE_SECONDS}): {len(warm)}"
    )
    for q in warm.captured_queries:
        print(f"  {one_line(q['sql'])}")
    print(
        f"  the first request after the recheck time ({settings.RULES_CACHE_SECONDS} s): "
        f"{len(stale)}: {'; '.join(one_line(q['sql']) for q in stale)}"
    )
    return len(warm)


class Profile:
    """cProfile of `reps` calls; cumulative µs per call of chosen functions."""

    def __init__(self, fn, reps: int):
        fn()
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(reps):
            fn()
        profile.disable()
        self.reps, self.stats = reps, pstats.Stats(profile)
        self.by_code = {(f, line, name): row for (f, line, name), row in self.stats.stats.items()}

    def us(self, function) -> float:
        code = function.__code__
        row = self.by_code.get((code.co_filename, code.co_firstlineno, code.co_name))
        return row[3] / self.reps * 1e6 if row else 0.0  # cumulative time

    def top(self, n: int) -> list[tuple[str, float]]:
        rows = sorted(self.stats.stats.items(), key=lambda kv: -kv[1][2])[:n]  # own time
        out = []
        for (filename, line, name), row in rows:
            where = filename.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
            out.append((f"{where}:{line}({name})", row[2] / self.reps * 1e6))
        return out


def view_function():
    """The function under deckbuilder.api.validate's @api_view."""
    handler = api.validate.cls.post
    return next(c.cell_contents for c in handler.__closure__ if callable(c.cell_contents))


def in_process(body: dict, reps: int) -> list[str]:
    """Queries, timings and profile of validate; the endpoints to measure under load."""
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # the 400s and 404s below
    check_settings({k: getattr(settings, k) for k in PRODUCTION}, "this process")
    payload = json.dumps(body).encode()
    show_queries(payload)

    names = ["trivial", "trivial-drf", "validate"]

    # Where the time goes: the steps of the view, each timed alone, then a profile.
    rules = catalogue.game_rules(GAME)
    serializer = api.ValidateSerializer(data=body, context={"catalogue": rules})
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    entries = [(card, n, section) for (card, section), n in data["cards"].items()]
    report = legality.check(rules.format(), data["leader"], entries).as_dict()
    print(f"\nIn-process, median of {reps} calls (WSGI handler, same settings as gunicorn):")
    steps = [
        (f"whole request: {n}", lambda m=ENDPOINTS[n][0], p=ENDPOINTS[n][1]: wsgi(m, p, payload))
        for n in names
    ] + [
        ("  catalogue.game_rules (cached)", lambda: catalogue.game_rules(GAME)),
        ("  JSONParser().parse of the body", lambda: JSONParser().parse(io.BytesIO(payload))),
        (
            "  ValidateSerializer(...).is_valid()",
            lambda: api.ValidateSerializer(data=body, context={"catalogue": rules}).is_valid(),
        ),
        ("    of which building its fields (top level)", lambda: api.ValidateSerializer().fields),
        (
            "  legality.check",
            lambda: legality.check(rules.format(), data["leader"], entries),
        ),
        ("  JSONRenderer().render", lambda: JSONRenderer().render(report)),
    ]
    for label, fn in steps:
        print(f"  {label:<44} {median_ms(fn, reps):7.3f} ms")

    profile = Profile(lambda: wsgi("POST", VALIDATE_PATH, payload), reps)
    whole = profile.us(WSGIHandler.__call__)
    view = profile.us(view_function())
    dispatch = profile.us(APIView.dispatch)
    render = profile.us(SimpleTemplateResponse.render)
    parts = [
        ("whole request (WSGIHandler)", whole),
        ("Django: middleware, URL resolving, signals", whole - dispatch - render),
        ("DRF dispatch around the view", dispatch - view),
        ("  of which initial(): auth, permissions, negotiation", profile.us(APIView.initial)),
        ("the view, deckbuilder.api.validate", view),
        ("  request.data: parsing the JSON body", profile.us(Request.data.fget)),
        ("  ValidateSerializer.is_valid", profile.us(drf_serializers.BaseSerializer.is_valid)),
        (
            "    building fields (deepcopies; both serializers)",
            profile.us(drf_serializers.Serializer.get_fields),
        ),
        (
            "    the 10 card rows (incl. the row serializer's fields)",
            profile.us(drf_serializers.ListSerializer.to_internal_value),
        ),
        (
            "    validate_leader + validate (cards per section, catalogue)",
            profile.us(api.DeckContentSerializer.validate_leader)
            + profile.us(api.DeckContentSerializer.validate),
        ),
        ("  catalogue.game_rules", profile.us(catalogue.game_rules)),
        ("  legality.check", profile.us(legality.check)),
        ("  with_rule_urls", profile.us(api.with_rule_urls)),
        ("rendering the response (JSONRenderer)", render),
    ]
    print(
        f"\ncProfile of {reps} warm validate requests (cumulative µs per request; the profiler "
        "inflates Python-heavy code, so read the shares, not the µs):"
    )
    for label, us in parts:
        print(f"  {label:<56} {us:7.0f} µs {us / whole:6.1%}")
    print("  own time, top 10:")
    for where, us in profile.top(10):
        print(f"    {us:6.1f} µs  {where}")
    return names


# --- gunicorn -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def request(port: int, method: str, path: str, body: bytes | None = None, timeout: float = 5):
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Gunicorn:
    def __init__(self, workers: int, log_dir: Path):
        self.port = free_port()
        self.log = log_dir / "gunicorn.log"
        binary = Path(sys.executable).parent / "gunicorn"
        self.cmd = [
            str(binary) if binary.exists() else shutil.which("gunicorn") or "gunicorn",
            "deckbuilder.wsgi",
            "-w",
            str(workers),
            "--bind",
            f"{HOST}:{self.port}",
        ]
        self.proc = None

    def __enter__(self):
        env = {k: v for k, v in os.environ.items() if k not in UNSET} | SERVER_ENV
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                self.cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            self._wait()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait(self, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"validate_rps: gunicorn exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                status, _ = request(self.port, "GET", TRIVIAL_PATH, timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        sys.exit(f"validate_rps: gunicorn did not answer within {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the master stops its workers
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __exit__(self, *exc):
        self.stop()


# --- load ---------------------------------------------------------------------------------------


def find_wrk(tool: str) -> str | None:
    if tool == "python":
        return None
    wrk = shutil.which("wrk")
    if wrk is None and os.geteuid() == 0:
        print("validate_rps: installing wrk with apt", file=sys.stderr)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-qq", "wrk"]
        quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        if subprocess.run(install, **quiet, timeout=300).returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], **quiet, timeout=300)
            subprocess.run(install, **quiet, timeout=300)
        wrk = shutil.which("wrk")
    if wrk is None and tool == "wrk":
        sys.exit("validate_rps: wrk is missing (apt-get install wrk) and --tool wrk was asked")
    return wrk


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * _UNITS[unit]


def run_wrk(wrk: str, port: int, path: str, body: bytes | None, seconds: float, conns: int, tmp):
    cmd = [wrk, "-t1", f"-c{conns}", f"-d{seconds:g}s", "--latency", "--timeout", "5s"]
    if body is not None:
        script = Path(tmp) / "post.lua"
        script.write_text(
            'wrk.method = "POST"\n'
            f"wrk.body = {json.dumps(body.decode())}\n"  # a JSON string is a valid Lua string
            'wrk.headers["Content-Type"] = "application/json"\n'
        )
        cmd += ["-s", str(script)]
    cmd.append(f"http://{HOST}:{port}{path}")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60, check=True)
    text = out.stdout
    result = {
        "rps": float(re.search(r"Requests/sec:\s*([\d.]+)", text)[1]),
        "requests": int(re.search(r"(\d+) requests in", text)[1]),
        "p50": _ms(re.search(r"^\s*50%\s+(\S+)", text, re.M)[1]),
        "p99": _ms(re.search(r"^\s*99%\s+(\S+)", text, re.M)[1]),
        "bad": 0,
        "errors": 0,
    }
    if match := re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text):
        result["bad"] = int(match[1])
    if match := re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    ):
        result["errors"] = sum(int(n) for n in match.groups())
    return result


def run_python(port: int, path: str, body: bytes | None, seconds: float, conns: int, tmp=None):
    """Fallback load: one thread per connection, keep-alive where the server allows it."""
    method = "GET" if body is None else "POST"
    headers = {"Content-Type": "application/json"} if body is not None else {}
    latencies: list[list[float]] = [[] for _ in range(conns)]
    counts = {"bad": 0, "errors": 0}
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def worker(mine: list[float]):
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                ok = 200 <= response.status < 400
            except (OSError, http.client.HTTPException):
                conn.close()
                with lock:
                    counts["errors"] += 1
                continue
            mine.append(time.perf_counter() - start)
            if not ok:
                with lock:
                    counts["bad"] += 1
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(lat,)) for lat in latencies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    all_ms = sorted(x * 1e3 for lat in latencies for x in lat)
    pick = lambda q: all_ms[min(len(all_ms) - 1, int(q * len(all_ms)))] if all_ms else 0.0  # noqa: E731
    return {
        "rps": len(all_ms) / elapsed,
        "requests": len(all_ms),
        "p50": pick(0.50),
        "p99": pick(0.99),
        **counts,
    }


RUN_FIGURES = ("rps", "p50", "p99")
RATIOS = ("ratio", "ratio_drf")


def schedule(names: list[str], rounds: int) -> list[list[str]]:
    """Per round: the trivial baseline before and after every two other endpoints, in pairs as
    listed (trivial-drf next to validate); every other round, pairs and pair members reversed,
    so that each figure has baselines measured next to it."""
    others = [n for n in names if n != "trivial"]
    pairs = [others[i : i + 2] for i in range(0, len(others), 2)]
    plan = []
    for r in range(rounds):
        runs = ["trivial"]
        for pair in pairs if r % 2 == 0 else [p[::-1] for p in pairs[::-1]]:
            runs += [*pair, "trivial"]
        plan.append(runs)
    return plan


def measure(args, body: dict, names: list[str]) -> None:
    wrk = find_wrk(args.tool)
    why = "--tool python" if args.tool == "python" else "wrk unavailable"
    tool = f"wrk ({wrk}, 1 thread)" if wrk else f"Python http.client threads ({why})"
    load = (lambda *a: run_wrk(wrk, *a)) if wrk else run_python
    payload = json.dumps(body).encode()
    endpoints = {
        n: (ENDPOINTS[n][1], payload if ENDPOINTS[n][0] == "POST" else None) for n in names
    }
    plan = schedule(names, args.rounds)

    with (
        tempfile.TemporaryDirectory(prefix="validate-rps-") as tmp,
        Gunicorn(args.workers, Path(tmp)) as server,
    ):
        command = " ".join([Path(server.cmd[0]).name, *server.cmd[1:]])
        print(f"\ngunicorn: {command}")
        seen = [json.loads(request(server.port, "GET", SETTINGS_PATH)[1]) for _ in range(4)]
        for found in seen:
            check_settings(found, "gunicorn")
        print(
            "gunicorn workers run with "
            + ", ".join(f"{k}={v}" for k, v in seen[0].items())
            + " (DJANGO_SETTINGS_MODULE=bench.settings; "
            + ", ".join(UNSET)
            + " unset)"
        )
        for name, (path, data) in endpoints.items():
            if data is not None:
                check_answer(*request(server.port, "POST", path, data), f"gunicorn {name}")
        print(f"check: every POST endpoint answers 200 {json.dumps(LEGAL)} through gunicorn")
        print(
            f"load: {tool}; {args.connections} connections, {args.duration:g} s per run, "
            f"{args.rounds} rounds of {len(plan[0])} runs (trivial before and after every two "
            "others), after a warm-up"
        )
        for path, data in endpoints.values():
            load(server.port, path, data, args.warmup, args.connections, tmp)
        results: dict[str, list[dict]] = {name: [] for name in endpoints}
        for runs in plan:
            done = []
            for name in runs:
                path, data = endpoints[name]
                done.append(load(server.port, path, data, args.duration, args.connections, tmp))
                done[-1]["name"] = name
            drf = next(x["rps"] for x in done if x["name"] == "trivial-drf")
            for i, result in enumerate(done):
                if result["name"] == "trivial":
                    continue
                # x trivial: against the mean of the baselines just before and after it.
                before = next(x for x in done[i::-1] if x["name"] == "trivial")
                after = next(x for x in done[i:] if x["name"] == "trivial")
                result["ratio"] = result["rps"] / ((before["rps"] + after["rps"]) / 2)
                result["ratio_drf"] = result["rps"] / drf  # trivial-drf of the same round
                results[result["name"]].append(result)
            baselines = [x for x in done if x["name"] == "trivial"]
            results["trivial"].append(
                {
                    **{k: statistics.median(x[k] for x in baselines) for k in RUN_FIGURES},
                    **{k: sum(x[k] for x in baselines) for k in ("bad", "errors")},
                    "ratio": 1.0,
                    "ratio_drf": statistics.median(x["rps"] for x in baselines) / drf,
                }
            )
        for name, (path, data) in endpoints.items():
            if data is not None:
                check_answer(*request(server.port, "POST", path, data), f"{name}, after the load")
        if server.proc.poll() is not None:
            sys.exit(f"validate_rps: gunicorn died during the run:\n{server.tail()}")

    def median(name, key):
        return statistics.median(x[key] for x in results[name])

    print(
        f"\n{'endpoint':<17} {'req/s':>7} {'rounds':>17} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'errors':>6} {'x trivial':>9} {'x trivial-drf':>13}"
    )
    for name in endpoints:
        rounds = "/".join(f"{x['rps']:.0f}" for x in results[name])
        errors = sum(x["bad"] + x["errors"] for x in results[name])
        print(
            f"{name:<17} {median(name, 'rps'):7.0f} {rounds:>17} {median(name, 'p50'):7.2f}"
            f" {median(name, 'p99'):7.2f} {errors:6d} {median(name, 'ratio'):9.2f}"
            f" {median(name, 'ratio_drf'):13.2f}"
        )
    print()
    for name in [n for n in ("validate",) if n in results]:
        ratio = median(name, "ratio")
        drf = median(name, "ratio_drf")
        verdicts = ["MISS", "PASS"]
        per_round = {k: "/".join(f"{x[k]:.2f}" for x in results[name]) for k in RATIOS}
        print(
            f"{name} / trivial = {ratio:.2f} ({per_round['ratio']}), target >= {TARGET_RATIO}: "
            f"{verdicts[ratio >= TARGET_RATIO]};  {name} / trivial-drf = {drf:.2f} "
            f"({per_round['ratio_drf']}, same framework), issue 11's goal >= {TARGET_RATIO}: "
            f"{verdicts[drf >= TARGET_RATIO]}"
        )
    print(
        "req/s, p50, p99: medians of the rounds; rounds: req/s of each round (trivial: the "
        "median of its runs in the round); ratios: medians (each round's)\n"
        "x trivial: each round's req/s / the mean of the trivial runs just before and after it; "
        "x trivial-drf: / trivial-drf's req/s in the same round; medians of the rounds"
    )


def main():
    args = parse_args()
    start_load = os.getloadavg()[0]
    connection.ensure_connection()
    pg = connection.connection.info.server_version
    print(
        f"validate_rps: Python {platform.python_version()}, Django {django.get_version()}, "
        f"{os.cpu_count()} CPUs, PostgreSQL {pg // 10000}.{pg % 10000}, load average "
        f"{start_load:.1f}"
    )
    body = set_up()
    print(f"deck: {LEADER} + {', '.join(c['card'] for c in body['cards'])} (1 copy each)")
    names = in_process(body, args.inprocess_reps)
    connection.close()
    measure(args, body, names)
    end_load = os.getloadavg()[0]
    print(
        f"load average (1 min): {start_load:.1f} at the start, {end_load:.1f} at the end; other "
        "work on the machine slows the endpoints unevenly, so compare figures of quiet runs"
    )


if __name__ == "__main__":
    main()
