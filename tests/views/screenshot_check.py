#!/usr/bin/env python3
"""Checks a screenshot shows a filled window rather than a blank screen: many distinct colours (text
antialiasing, icons, alternating rows) and a good share of pixels that differ from the dominant colour.
With --expect-colour R,G,B:PIXELS (repeatable) it also checks that at least PIXELS pixels have exactly that
colour: the graph canvas fills node boxes with their op category's colour, so this shows node items are
drawn. Reads the PNG through ImageMagick's `stream` as raw RGB, so no Python imaging package is needed."""
import collections
import subprocess
import sys

MIN_COLOURS = 40
MIN_FOREGROUND = 0.04  # share of pixels unlike the most common colour


def main() -> int:
    path = sys.argv[1]
    quiet = "--quiet" in sys.argv[2:]
    expected = []  # (rgb bytes, minimum pixels, text)
    arguments = sys.argv[2:]
    for i, argument in enumerate(arguments):
        if argument == "--expect-colour":
            rgb, minimum = arguments[i + 1].split(":")
            expected.append((bytes(int(c) for c in rgb.split(",")), int(minimum), arguments[i + 1]))
    size = subprocess.run(["identify", "-format", "%w %h", path], capture_output=True, text=True, check=True)
    width, height = map(int, size.stdout.split())
    raw = subprocess.run(["stream", "-map", "rgb", "-storage-type", "char", path, "-"],
                         capture_output=True, check=True).stdout
    pixels = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    counts = collections.Counter(pixels)
    dominant, dominant_count = counts.most_common(1)[0]
    foreground = 1 - dominant_count / len(pixels)
    ok = len(counts) >= MIN_COLOURS and foreground >= MIN_FOREGROUND
    colour_notes = []
    for rgb, minimum, text in expected:
        found = counts.get(rgb, 0)
        ok = ok and found >= minimum
        colour_notes.append(f"{found} pixels of {text.split(':')[0]} (need {minimum})")
    if not quiet or ok:
        print(f"{'ok' if ok else 'FAIL'}: {path}: {width}x{height}, {len(counts)} colours "
              f"(need {MIN_COLOURS}), {foreground:.1%} non-background pixels (need {MIN_FOREGROUND:.0%})"
              + "".join(", " + note for note in colour_notes))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
