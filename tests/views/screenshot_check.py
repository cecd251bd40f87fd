#!/usr/bin/env python3
"""Checks a screenshot shows a filled window rather than a blank screen: many distinct colours (text
antialiasing, icons, alternating rows) and a good share of pixels that differ from the dominant colour.
Reads the PNG through ImageMagick's `stream` as raw RGB, so no Python imaging package is needed."""
import collections
import subprocess
import sys

MIN_COLOURS = 40
MIN_FOREGROUND = 0.04  # share of pixels unlike the most common colour


def main() -> int:
    path = sys.argv[1]
    quiet = "--quiet" in sys.argv[2:]
    size = subprocess.run(["identify", "-format", "%w %h", path], capture_output=True, text=True, check=True)
    width, height = map(int, size.stdout.split())
    raw = subprocess.run(["stream", "-map", "rgb", "-storage-type", "char", path, "-"],
                         capture_output=True, check=True).stdout
    pixels = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    counts = collections.Counter(pixels)
    dominant, dominant_count = counts.most_common(1)[0]
    foreground = 1 - dominant_count / len(pixels)
    ok = len(counts) >= MIN_COLOURS and foreground >= MIN_FOREGROUND
    if not quiet or ok:
        print(f"{'ok' if ok else 'FAIL'}: {path}: {width}x{height}, {len(counts)} colours "
              f"(need {MIN_COLOURS}), {foreground:.1%} non-background pixels (need {MIN_FOREGROUND:.0%})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
