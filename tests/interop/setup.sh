#!/usr/bin/env bash
# Create or update .venv with the pinned packages of the interoperability tests
# (tests/interop/requirements.txt). Idempotent: does nothing when .venv already holds
# exactly these requirements.
set -euo pipefail
cd "$(dirname "$0")/../.."
requirements=tests/interop/requirements.txt
stamp=.venv/.interop-requirements
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then
    exit 0
fi
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --requirement "$requirements"
cp "$requirements" "$stamp"
echo "interop: .venv ready ($(.venv/bin/python -m pip --disable-pip-version-check show mcp | grep '^Version'))"
