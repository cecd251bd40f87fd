#!/usr/bin/env bash
# Builds the .deb (cpack -G DEB in the build folder), checks its contents with dpkg-deb, then, as root,
# installs it for real with dpkg -i, runs /usr/bin/onyx --version, checks that xdg-mime maps *.onnx to
# application/x-onnx and that type to onyx.desktop, and removes the package again (dpkg -r). Not root, or an
# onyx package already installed that this script did not put there: the install part is skipped (exit 77)
# after the content checks, saying why.
#
# usage: test-deb.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: test-deb.sh BUILD_DIR}" && pwd)"
fail() { echo "FAIL: $*"; exit 1; }

for tool in cpack dpkg-deb; do command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed"; exit 77; }; done

# cpack runs the install step of the whole build: the executable and the sample must be built.
for built in "$build/app/onyx" "$build/resources/sample.onnx"; do
  [[ -e "$built" ]] || fail "$built is missing: build the onyx and onyx_sample targets first"
done
scratch="$(mktemp -d)"
installed_by_us=0
cleanup() {
  if [[ $installed_by_us -eq 1 ]]; then dpkg -r onyx >/dev/null 2>&1 || echo "warning: dpkg -r onyx failed"; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

(cd "$build" && cpack -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; fail "cpack -G DEB failed"; }
deb="$(ls "$scratch"/out/onyx_*.deb 2>/dev/null | head -n1)"
[[ -n "$deb" ]] || { cat "$scratch/cpack.log"; fail "cpack made no onyx_*.deb"; }
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

# Contents and control fields.
dpkg-deb -c "$deb" | awk '{print $6}' >"$scratch/contents"
for path in ./usr/bin/onyx ./usr/share/onyx/sample.onnx ./usr/share/applications/onyx.desktop \
            ./usr/share/icons/hicolor/scalable/apps/onyx.svg ./usr/share/mime/packages/onyx.xml; do
  grep -qx "$path" "$scratch/contents" || { cat "$scratch/contents"; fail "$path is not in the package"; }
done
[[ "$(dpkg-deb -f "$deb" Package)" == onyx ]] || fail "the package is not named onyx"
depends="$(dpkg-deb -f "$deb" Depends)"
[[ "$depends" == *libqt6widgets6* ]] || fail "Depends lacks Qt 6 Widgets: $depends"
dpkg-deb -x "$deb" "$scratch/root"
grep -q '^MimeType=application/x-onnx;' "$scratch/root/usr/share/applications/onyx.desktop" || fail "the .desktop entry does not open application/x-onnx"
grep -q '<glob pattern="\*.onnx"/>' "$scratch/root/usr/share/mime/packages/onyx.xml" || fail "the MIME type has no *.onnx glob"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$scratch/root/usr/share/applications/onyx.desktop" || fail "desktop-file-validate rejects onyx.desktop"
fi
"$scratch/root/usr/bin/onyx" --version | grep -qx "onyx 0.1.0" || fail "the packaged onyx --version"
echo "contents: ok (Depends: $depends)"

# A real install, when this is root and nothing else owns the onyx package.
if [[ "$(id -u)" -ne 0 ]]; then echo "SKIPPED: dpkg -i needs root (the content checks passed)"; exit 77; fi
if dpkg-query -W -f='${Status}' onyx 2>/dev/null | grep -q "install ok installed"; then
  echo "SKIPPED: an onyx package is already installed; not replacing it (the content checks passed)"; exit 77
fi
for tool in xdg-mime update-desktop-database; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is missing (packaging/install-deps.sh installs it)"; exit 77; }
done
dpkg -i "$deb" >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log"; dpkg -r onyx >/dev/null 2>&1 || true; fail "dpkg -i failed"; }
installed_by_us=1
version="$(/usr/bin/onyx --version)"
[[ "$version" == "onyx 0.1.0" ]] || fail "/usr/bin/onyx --version printed '$version'"
[[ -f /usr/share/onyx/sample.onnx ]] || fail "the sample model is not installed"
# dpkg's triggers have run update-mime-database and update-desktop-database by now.
touch "$scratch/model.onnx"
filetype="$(XDG_DATA_DIRS=/usr/share xdg-mime query filetype "$scratch/model.onnx")"
[[ "$filetype" == application/x-onnx* ]] || fail "xdg-mime sees model.onnx as '$filetype', not application/x-onnx"
default="$(XDG_DATA_DIRS=/usr/share HOME="$scratch" xdg-mime query default application/x-onnx)"
[[ "$default" == onyx.desktop ]] || fail "xdg-mime query default application/x-onnx names '$default', not onyx.desktop"
echo "installed: /usr/bin/onyx --version = $version; *.onnx -> $filetype -> $default"
echo "PASS"
