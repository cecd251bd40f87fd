#!/usr/bin/env bash
# Installs what is missing, builds and opens the GUI on the bundled sample model (the README's first command).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
export CCACHE_BASEDIR="$PWD"
build="${ONYX_BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
exec "$build/app/onyx" "$@"
