#!/usr/bin/env bash
# Installs the Debian 12 packages that Onyx needs to build, run and test.
# Idempotent: asks apt only for what is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  # toolchain
  cmake ninja-build g++ ccache pkg-config git
  # Qt 6.4 (Charts needs Qt6OpenGL's dev package, which qt6-charts-dev does not pull in)
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
  # ONNX protobuf classes, text parser/printer and reference shape inference
  libonnx-dev libprotobuf-dev protobuf-compiler
  # layout
  libgraphviz-dev
  # Vulkan compute: headers/loader, shader compiler, validator, lavapipe as the CPU device
  libvulkan-dev glslc spirv-tools mesa-vulkan-drivers vulkan-tools
  # kernels and utilities
  libdnnl-dev libfmt-dev libcli11-dev libgtest-dev nlohmann-json3-dev
  # GUI tests in a real window and screenshots
  xvfb xauth x11-apps imagemagick
  # the .deb (cpack's Depends via dpkg-shlibdeps) and its desktop integration check (packaging/test-deb.sh)
  dpkg-dev xdg-utils desktop-file-utils shared-mime-info libfile-mimeinfo-perl
  # onnx checker / reference runs in tests and the ONNX Runtime benchmark (npm package)
  python3-onnx python3-numpy
)
# node and npm (for the ONNX Runtime benchmark) ship with the machine image; Debian's npm conflicts with them.

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
