#!/usr/bin/env python3
"""The board's share of the window in the full screen: power11 --tui run in a pseudo-terminal
(docs/screenshots/term.py) at each window size, a Hard game started (`--seed 1`, `h`), and the
board (the cells drawn in the board's or a tile's colour, 24-bit) measured on the screen: its
columns and lines, and its share of the window's area and height.
Run from the repository with a release build:
`cargo build --release && python3 measurements/tui/board_share.py target/release/power11`."""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "docs", "screenshots"))
import term  # noqa: E402

SIZES = [(40, 12), (60, 20), (80, 24), (120, 40), (200, 60)]


def main():
    power11 = os.path.abspath(sys.argv[1])
    print("| window | board (columns x lines) | share of the area | share of the height |")
    print("|---|---|---|---|")
    for cols, rows in SIZES:
        with tempfile.TemporaryDirectory() as data:
            chunks = term.run(power11, cols, rows, "--seed 1", ["h"],
                              env={"COLORTERM": "truecolor"}, data=data)
        cells = term.frames(chunks, cols, rows)[-1][1]
        on = [(r, c) for r, row in enumerate(cells) for c, (_, style) in enumerate(row)
              if style[1] is not None]
        top, bottom = min(r for r, _ in on), max(r for r, _ in on)
        left, right = min(c for _, c in on), max(c for _, c in on)
        w, h = right - left + 1, bottom - top + 1
        print(f"| {cols}x{rows} | {w} x {h} | {100 * w * h / (cols * rows):.0f}% "
              f"| {100 * h / rows:.0f}% |")


if __name__ == "__main__":
    main()
