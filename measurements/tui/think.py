#!/usr/bin/env python3
"""How long the first advice takes after a game starts in the full screen (issue 74): power11
--tui in an 80x24 pseudo-terminal (docs/screenshots/term.py), a new game's key typed 0.05 s after
the program took the screen, `a` 0.1 s later; the time is from `a` typed to the first output
that holds the advice. Five runs a size. Run from the repository, idle, after
`cargo build --release`:
`python3 measurements/tui/think.py target/release/power11 > measurements/tui/think.txt`."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                                "screenshots"))
import term  # noqa: E402

def first_after(chunks, at, text):
    """Seconds from `at` to the first chunk at or after it that holds `text`."""
    for when, chunk in chunks:
        if when >= at and text in chunk:
            return when - at
    return None


def median(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None


def first_advice(power11, size_key, runs=5):
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as data:
            typed = []
            chunks = term.run(power11, 80, 24, "--seed 1", [size_key, "a", 3], settle=0.05,
                              tail=0.5, data=data, typed=typed)
        times.append(first_after(chunks, typed[1], "Advice:"))
    return times


def main():
    power11 = os.path.abspath(sys.argv[1])
    for name, key in (("4x4 (h)", "h"), ("5x5 (e)", "e")):
        times = first_advice(power11, key)
        print("first advice after a new %s game: median %.0f ms, each %s" % (
            name, 1000 * median(times),
            ", ".join("%.0f" % (1000 * t) if t is not None else "none" for t in times)))


if __name__ == "__main__":
    main()
