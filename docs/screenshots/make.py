#!/usr/bin/env python3
"""Makes the guide's screenshots of the full-screen mode: power11 --tui run in tmux at a given
size, keys typed, the pane captured with its colours (`tmux capture-pane -e`) and drawn as SVG.
Run from the repository with a built power11 and tmux:
`python3 docs/screenshots/make.py target/release/power11`."""

import html
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
POWER11 = os.path.abspath(sys.argv[1])

# (file, columns, rows, arguments, keys typed one at a time)
SHOTS = [
    ("tui-4x4-80x24.svg", 80, 24, "--seed 1", ["h"] + ["Left", "Down"] * 12 + ["a"]),
    ("tui-4x4-120x40.svg", 120, 40, "--seed 1", ["h"] + ["Left", "Down"] * 12 + ["a"]),
    ("tui-8x8-80x24.svg", 80, 24, "--variant classic --size 8 --seed 2",
     ["n"] + ["Left", "Down", "Right", "Down"] * 40),
]

# xterm's colours for the 16 system entries; the 256-colour cube and greys as xterm draws them.
SYSTEM = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
          "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
DEFAULT_FG, DEFAULT_BG = "#d8d8d8", "#1c1c1c"


def palette(n):
    if n < 16:
        return SYSTEM[n]
    if n >= 232:
        g = 8 + 10 * (n - 232)
        return f"#{g:02x}{g:02x}{g:02x}"
    levels = [0, 95, 135, 175, 215, 255]
    i = n - 16
    return "#" + "".join(f"{levels[v]:02x}" for v in (i // 36, i // 6 % 6, i % 6))


def apply_sgr(params, style):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            style.update(fg=None, bg=None, bold=False)
        elif c == 1:
            style["bold"] = True
        elif c == 22:
            style["bold"] = False
        elif 30 <= c <= 37:
            style["fg"] = SYSTEM[c - 30]
        elif 40 <= c <= 47:
            style["bg"] = SYSTEM[c - 40]
        elif c == 39:
            style["fg"] = None
        elif c == 49:
            style["bg"] = None
        elif c in (38, 48) and i + 1 < len(codes):
            key = "fg" if c == 38 else "bg"
            if codes[i + 1] == 5:
                style[key] = palette(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2:
                r, g, b = codes[i + 2:i + 5]
                style[key] = f"#{r:02x}{g:02x}{b:02x}"
                i += 4
        i += 1


def cells(line):
    """The (character, style) of each column of a captured line."""
    style = {"fg": None, "bg": None, "bold": False}
    out = []
    for part in re.split(r"(\x1b\[[0-9;]*m)", line):
        m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if m:
            apply_sgr(m.group(1), style)
        else:
            out.extend((ch, dict(style)) for ch in part)
    return out


def svg(lines, cols, rows):
    w, h = 8.4, 18
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * w:.0f}" height="{rows * h + 8:.0f}" '
             f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">',
             f'<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>']
    for y, line in enumerate(lines[:rows]):
        row = cells(line)
        x = 0
        while x < len(row):
            ch, st = row[x]
            end = x
            while end < len(row) and row[end][1] == st:
                end += 1
            text = "".join(c for c, _ in row[x:end])
            if st["bg"]:
                parts.append(f'<rect x="{x * w:.1f}" y="{y * h + 4}" width="{(end - x) * w:.1f}" '
                             f'height="{h}" fill="{st["bg"]}"/>')
            if text.strip():
                weight = ' font-weight="bold"' if st["bold"] else ""
                parts.append(f'<text x="{x * w:.1f}" y="{y * h + 17}" fill="{st["fg"] or DEFAULT_FG}"'
                             f'{weight} xml:space="preserve">{html.escape(text)}</text>')
            x = end
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def shoot(name, cols, rows, args, keys):
    data = tempfile.mkdtemp()
    session = "power11-shot"
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    command = (f"cd {data} && POWER11_DATA_DIR={data}/data COLORTERM=truecolor "
               f"TERM=xterm-256color {POWER11} --tui {args}")
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(cols), "-y", str(rows),
                    command], check=True)
    time.sleep(1.5)
    for key in keys:
        subprocess.run(["tmux", "send-keys", "-t", session, key], check=True)
        time.sleep(0.05)
    time.sleep(1.5)
    captured = subprocess.run(["tmux", "capture-pane", "-t", session, "-e", "-N", "-p"],
                              capture_output=True, text=True, check=True).stdout
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    with open(os.path.join(HERE, name), "w") as f:
        f.write(svg(captured.split("\n"), cols, rows))
    print(name)


for shot in SHOTS:
    shoot(*shot)
