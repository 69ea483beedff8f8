#!/usr/bin/env python3
"""Makes the guide's screenshots of the full-screen mode: power11 --tui run in a pseudo-terminal
of a given size (term.py), keys typed, the last screen it drew read back and drawn as SVG.
Run from the repository with a release build:
`cargo build --release && python3 docs/screenshots/make.py target/release/power11`."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import term  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TRUECOLOR = {"COLORTERM": "truecolor"}

# (file, columns, rows, environment, arguments, keys typed one at a time)
SHOTS = [
    ("tui-4x4-80x24.svg", 80, 24, TRUECOLOR, "--seed 1", ["h"] + ["Left", "Down"] * 12 + ["a"]),
    ("tui-4x4-120x40.svg", 120, 40, TRUECOLOR, "--seed 1",
     ["h"] + ["Left", "Down"] * 12 + ["a"]),
    ("tui-8x8-80x24.svg", 80, 24, TRUECOLOR, "--variant classic --size 8 --seed 2",
     ["n"] + ["Left", "Down", "Right", "Down"] * 40),
    ("tui-6x6-80x24-8-colours.svg", 80, 24, {"TERM": "xterm"}, "--size 6 --seed 4",
     ["n"] + ["Left", "Down", "Right", "Down"] * 30),
    ("tui-4x4-60x20-no-colour.svg", 60, 20, {"NO_COLOR": "1"}, "--seed 1",
     ["h"] + ["Left", "Down"] * 12),
]


def main():
    power11 = os.path.abspath(sys.argv[1])
    for name, cols, rows, env, args, keys in SHOTS:
        with tempfile.TemporaryDirectory() as data:
            chunks = term.run(power11, cols, rows, args, keys, env=env, data=data)
        shown = term.frames(chunks, cols, rows)
        with open(os.path.join(HERE, name), "w") as f:
            f.write(term.still(shown[-1][1], cols, rows))
        print(name)


if __name__ == "__main__":
    main()
