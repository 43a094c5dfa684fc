# DP Explorer in one container (deploy/README.md). Built and run in the test command with podman (deploy/image.py).
#   docker build -t dp-explorer .
#   docker run -p 8501:8501 -v dpx-data:/data dp-explorer                         # ledgers in SQLite under /data
#   docker run -p 8501:8501 -e DATABASE_URL=postgresql://user:pw@db:5432/dpx dp-explorer   # shared PostgreSQL store
# the base image; deploy/image.py passes a local stand-in where no image registry can be reached
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OPENBLAS_NUM_THREADS=1 \
    OMP_NUM_THREADS=1 \
    DPX_DATA_DIR=/data \
    PYTHONPATH=/app \
    PORT=8501

RUN useradd --create-home --uid 10001 --user-group dpx \
    && mkdir -p /data && chown dpx:dpx /data && chmod 700 /data

WORKDIR /app
# the pinned dependencies (and the two packages); PYTHONPATH=/app makes the app import its own files under /app, so
# app/registry.py finds /app/pages and app/main.py /app/assets next to them
COPY pyproject.toml README.md LICENSE ./
COPY requirements/ requirements/
COPY dpcore/ dpcore/
COPY app/ app/
RUN pip install -c requirements/constraints.txt ".[postgres]"
COPY pages/ pages/
COPY assets/ assets/
COPY .streamlit/ .streamlit/

USER dpx
VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ.get('PORT', '8501'), timeout=4)"
# settings come from the environment: PORT, DPX_DATA_DIR, DATABASE_URL, and any STREAMLIT_* option
# (e.g. STREAMLIT_SERVER_COOKIE_SECRET, shared by every replica behind one load balancer)
CMD ["sh", "-c", "exec streamlit run app/serve.py --server.port \"$PORT\" --server.address 0.0.0.0 --server.headless true --server.fileWatcherType none --browser.gatherUsageStats false"]
