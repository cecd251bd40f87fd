#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (the README's second command; CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
export CCACHE_BASEDIR="$PWD"
# Debug-info builds hash the working directory by default, so a fresh clone (CI) would never reuse the cache.
export CCACHE_NOHASHDIR=1
build="${ONYX_BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 1500
