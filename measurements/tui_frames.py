#!/usr/bin/env python3
"""Counts what the full-screen mode writes for a move: bytes and frames (synchronized updates),
at 80x24 and 120x40, in 256 colours and 24-bit colour, with and without motion. Drives the
release binary in a pseudo-terminal (docs/screenshots/term.py): a Hard game with `--seed 1`,
MOVES moves typed 0.4 s apart (the motion ends 150 ms after its key), each move's output the
bytes read between its key and the next. Moves that move nothing are left out. Counts, not
timings: they do not depend on the machine. Run from the repository:
`cargo build --release && python3 measurements/tui_frames.py target/release/power11`."""

import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "docs", "screenshots"))
import term  # noqa: E402

MOVES = 40
SIZES = [(80, 24), (120, 40)]
COLOURS = [("256 colours", {"TERM": "xterm-256color"}),
           ("24-bit", {"TERM": "xterm-256color", "COLORTERM": "truecolor"})]


def measure(power11, cols, rows, env, motion):
    keys = ["Left", "Down", "Right", "Down"] * (MOVES // 4)
    steps = ["h", 0.5] + [s for key in keys for s in (key, 0.3)] + ["s"]
    typed = []
    args = "--seed 1" + ("" if motion else " --no-animation")
    with tempfile.TemporaryDirectory() as data:
        chunks = term.run(power11, cols, rows, args, steps, env=env, settle=1.0, tail=0.5,
                          data=data, typed=typed)
    # typed: h, the moves, s. A move's output: what was read from its key to the next key.
    bounds = typed[1:]
    sizes, frames = [], []
    for k in range(len(bounds) - 1):
        out = "".join(text for t, text in chunks if bounds[k] <= t < bounds[k + 1])
        if "nothing moves" in out:
            continue
        sizes.append(len(out.encode()))
        frames.append(out.count(term.END_UPDATE))
    first = "".join(text for t, text in chunks if typed[0] <= t < typed[1])
    return sizes, frames, len(first.encode())


def main():
    power11 = os.path.abspath(sys.argv[1])
    print("| window | colours | motion | moves | bytes a move: median, mean, max | "
          "frames a move: median, min, max | the game's first frame, bytes |")
    print("|---|---|---|---|---|---|---|")
    for cols, rows in SIZES:
        for name, env in COLOURS:
            for motion in (False, True):
                sizes, frames, first = measure(power11, cols, rows, env, motion)
                print(f"| {cols}x{rows} | {name} | {'on' if motion else 'off'} | {len(sizes)} | "
                      f"{statistics.median(sizes):.0f}, {statistics.mean(sizes):.0f}, "
                      f"{max(sizes)} | {statistics.median(frames):.0f}, {min(frames)}, "
                      f"{max(frames)} | {first} |", flush=True)


if __name__ == "__main__":
    main()
