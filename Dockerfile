# Production image: gunicorn behind your TLS proxy. Configure with environment variables
# (see README): SECRET_KEY, DATABASE_URL and ALLOWED_HOSTS are required.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
RUN python -m venv /venv
# Dependencies first, so that code changes reuse this layer.
COPY pyproject.toml constraints.txt README.md ./
RUN /venv/bin/pip install -c constraints.txt .
COPY manage.py ./
COPY deckbuilder deckbuilder
COPY cards cards
COPY templates templates
COPY static static
RUN DEBUG=0 SECRET_KEY=collectstatic-only-not-a-real-secret-0123456789-abcdefghijklmnop \
    /venv/bin/python manage.py collectstatic --noinput

FROM python:3.11-slim-bookworm
ENV PATH=/venv/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 DEBUG=0 PORT=8000 \
    WEB_CONCURRENCY=2
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin app
WORKDIR /app
COPY --from=build /venv /venv
COPY --from=build /app /app
# Numeric, so that a runtime can see without /etc/passwd that it is not root (runAsNonRoot).
USER 10001:10001
EXPOSE 8000
# Sends the first allowed host so that Django's host check accepts the probe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; h = os.environ.get('ALLOWED_HOSTS', 'localhost').split(',')[0].lstrip('.') or 'localhost'; u.urlopen(u.Request('http://127.0.0.1:%s/healthz' % os.environ['PORT'], headers={'Host': h}), timeout=4)"]
# No shell: gunicorn itself binds 0.0.0.0:$PORT and starts $WEB_CONCURRENCY workers. Its control
# socket would go to a home directory the user does not have, and nothing here uses it.
CMD ["gunicorn", "deckbuilder.wsgi", "--access-logfile", "-", "--no-control-socket"]
