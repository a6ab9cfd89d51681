#!/usr/bin/env bash
# Installs the third-party MCP clients the interop tests drive, apart from the package's own dependencies: the
# conformance runner (npm, its own lockfile), the MCP Inspector's CLI with the Node 22 line it needs (npm, its own
# lockfile; its install scripts only set up a source checkout) and the Python SDK with pypiserver, the package index
# the network tests download from (a venv). Idempotent: each is
# installed again only when its pinned list changed. .ci/run calls it; the tests call it too, so a fresh checkout can
# run them alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

stamp() { sha256sum "$1" | cut -d' ' -f1; }

if [ "$(cat conformance/node_modules/.stamp 2>/dev/null)" != "$(stamp conformance/package-lock.json)" ]; then
  npm ci --prefix conformance --no-audit --no-fund
  stamp conformance/package-lock.json > conformance/node_modules/.stamp
fi

if [ "$(cat inspector/node_modules/.stamp 2>/dev/null)" != "$(stamp inspector/package-lock.json)" ]; then
  npm ci --prefix inspector --no-audit --no-fund --ignore-scripts
  stamp inspector/package-lock.json > inspector/node_modules/.stamp
fi

if [ "$(cat python/.venv/.stamp 2>/dev/null)" != "$(stamp python/requirements.txt)" ]; then
  rm -rf python/.venv
  python3 -m venv python/.venv
  python/.venv/bin/pip install --quiet --disable-pip-version-check -r python/requirements.txt
  stamp python/requirements.txt > python/.venv/.stamp
fi
