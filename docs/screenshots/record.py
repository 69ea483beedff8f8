#!/usr/bin/env python3
"""Records a short game of the full-screen mode as an animated SVG (the README's): power11 --tui
run in an 80x24 pseudo-terminal in 24-bit colour with a seed and a fixed sequence of keys at set
times (term.py), every frame it drew read back at the time it came, and the frames drawn as one
looping SVG. Run from the repository with a release build:
`cargo build --release && python3 docs/screenshots/record.py target/release/power11`.
The frames' times are the run's own, so two recordings differ by a few milliseconds."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import term  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
COLS, ROWS = 80, 24
ARGS = "--seed 1 --delay 300"

# A Hard game: moves by hand a little apart (each slides, pops and shows +N), advice and the
# move it gives, then the computer plays a few moves at 300 ms a move and any key takes over.
STEPS = (["h", 0.6]
         + [s for key in ["Left", "Down", "Left", "Down", "Right", "Down", "Left", "Down"]
            for s in (key, 0.35)]
         + ["a", 1.2, "Right", 0.6, "p", 3.3, "x", 1.0])


def main():
    power11 = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as data:
        chunks = term.run(power11, COLS, ROWS, ARGS, STEPS, env={"COLORTERM": "truecolor"},
                          settle=1.5, tail=0.5, data=data)
    shown = term.frames(chunks, COLS, ROWS)
    # From the menu's last frame on (the settling time before it is left out).
    first = max(k for k, (_, cells) in enumerate(shown)
                if "Resume the last saved game" in "".join(c for row in cells for c, _ in row))
    shown = shown[first:]
    path = os.path.join(HERE, "tui-game.svg")
    with open(path, "w") as f:
        f.write(term.animated(shown, COLS, ROWS))
    print(f"tui-game.svg: {len(shown)} frames, {shown[-1][0] - shown[0][0]:.1f} s, "
          f"{os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
