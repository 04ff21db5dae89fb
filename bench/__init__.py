"""Benchmarks (not part of the site): bench.settings and bench.urls serve them under gunicorn."""
