#!/usr/bin/env bash
# Opens the real window on a virtual X server (Xvfb) with the sample model, takes a screenshot of the
# screen with ImageMagick's `import`, and checks it shows a window with content, not a blank screen.
# The screen is the window's default size, so the PNG is also the README's screenshot. The graph canvas must
# show node items: the sample's Conv boxes (op category Layer) and Relu/Softmax boxes (Activation) are filled
# with their category colours (views/graph/graph_style.cpp), which the check counts.
#
# usage: screenshot_test.sh ONYX_BINARY MODEL OUT.png
set -euo pipefail
onyx="$1" model="$2" out="$3"
for tool in xvfb-run import python3; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed"; exit 77; }
done
here="$(cd "$(dirname "$0")" && pwd)"
node_colours=(--expect-colour 51,102,187:300 --expect-colour 178,58,58:300)
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# A private data folder too: an autosave left by a real session would open the restore prompt.
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch/runtime" QT_QPA_PLATFORM=xcb
mkdir -m 700 -p "$XDG_RUNTIME_DIR"

# Inside the X session: start onyx, then screenshot until the summary is drawn (or time runs out).
session='
  "$1" "$2" >"$4/onyx.log" 2>&1 &
  pid=$!
  status=1
  for attempt in $(seq 1 60); do
    sleep 0.5
    kill -0 "$pid" 2>/dev/null || { echo "onyx exited early:"; cat "$4/onyx.log"; break; }
    import -window root "$4/shot.png" 2>/dev/null || continue
    if python3 "$5/screenshot_check.py" "$4/shot.png" --quiet "${@:6}"; then status=0; break; fi
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  exit $status
'
rc=0
xvfb-run -a -s "-screen 0 1280x720x24" bash -c "$session" session "$onyx" "$model" "$out" "$scratch" "$here" "${node_colours[@]}" || rc=$?
if [[ -f "$scratch/shot.png" ]]; then
  cp "$scratch/shot.png" "$out"
  python3 "$here/screenshot_check.py" "$out" "${node_colours[@]}" || rc=1
else
  echo "FAIL: no screenshot was taken"
  rc=1
fi
exit $rc
