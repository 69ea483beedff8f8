"""What make.py and record.py share: power11 --tui run in a pseudo-terminal of a given size with
keys typed at set times, what it wrote read back by a small terminal emulator (the sequences
power11 writes: cursor moves, colours, clears, synchronized updates), and screens drawn as SVG,
still or animated. Python's standard library only."""

import html
import os
import pty
import re
import select
import signal
import struct
import termios
import fcntl
import time

# Keys by name, as tmux names them, and anything else typed as it is.
KEYS = {"Left": "\x1b[D", "Right": "\x1b[C", "Up": "\x1b[A", "Down": "\x1b[B", "Enter": "\r",
        "Escape": "\x1b"}

BEGIN_UPDATE, END_UPDATE = "\x1b[?2026h", "\x1b[?2026l"


def run(power11, cols, rows, args, steps, env=None, settle=1.5, tail=1.0, data=None,
        typed=None):
    """Runs `power11 --tui ARGS` in a pseudo-terminal of cols x rows with `env` added to a
    clean environment (no NO_COLOR, COLORTERM or TERM of the caller's), in the folder `data`
    (its save and best scores there too). Once it has taken the screen and `settle` seconds
    passed, each step is typed: a key name or text, or a number of seconds to wait; 0.1 s goes
    by after each key. Returns the output as (seconds since the start, text) chunks; `typed`, a
    list, gets each key's time."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLORTERM")}
    environment.update({"TERM": "xterm-256color", "POWER11_DATA_DIR": os.path.join(data, "data")})
    environment.update(env or {})
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.chdir(data)
        os.execve(power11, [power11, "--tui", *args.split()], environment)
    start = time.monotonic()
    chunks = []
    raw = bytearray()

    def read_for(seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return True
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                raw.extend(data)
                chunks.append((time.monotonic() - start, bytes(data)))

    while b"\x1b[?1049h" not in raw:
        if not read_for(0.05) or time.monotonic() - start > 20:
            raise SystemExit("power11 did not take the screen")
    read_for(settle)
    for step in steps:
        if isinstance(step, (int, float)):
            read_for(step)
            continue
        if typed is not None:
            typed.append(time.monotonic() - start)
        os.write(fd, KEYS.get(step, step).encode())
        read_for(0.1)
    read_for(tail)
    os.kill(pid, signal.SIGTERM)
    while read_for(0.2):
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return decode(chunks)


def decode(chunks):
    """Byte chunks to text chunks, a UTF-8 character cut between two chunks given to the
    second."""
    out, carry = [], b""
    for t, c in chunks:
        data = carry + c
        cut = len(data)
        # Keep back an incomplete character at the end.
        for back in range(1, 4):
            if back > len(data):
                break
            b = data[-back]
            if b & 0xC0 == 0x80:
                continue
            if b & 0x80:
                need = 2 if b & 0xE0 == 0xC0 else 3 if b & 0xF0 == 0xE0 else 4
                if need > back:
                    cut = len(data) - back
            break
        out.append((t, data[:cut].decode("utf-8", "replace")))
        carry = data[cut:]
    return out


class Screen:
    """A terminal's cells: each a character and its (fg, bg, bold, reverse); colours are None
    (the terminal's own), ("sys", n) for the 16 system colours, or "#rrggbb"."""

    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.pen = (None, None, False, False)
        self.clear()
        self.row = self.col = 0
        self.pending = ""

    def clear(self):
        self.cells = [[(" ", (None, None, False, False)) for _ in range(self.cols)]
                      for _ in range(self.rows)]

    def feed(self, text):
        """Processes `text`; returns the number of synchronized updates it ended."""
        text = self.pending + text
        self.pending = ""
        ended = 0
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                m = re.compile(r"\x1b\[([?0-9;]*)([A-Za-z])").match(text, i)
                if not m:
                    if len(text) - i < 32 and re.fullmatch(r"\x1b(\[[?0-9;]*)?", text[i:]):
                        self.pending = text[i:]  # A sequence cut in two: the rest comes next.
                        return ended
                    i += 2
                    continue
                params, final = m.group(1), m.group(2)
                ended += self.control(params, final)
                i = m.end()
                continue
            if ch == "\r":
                self.col = 0
            elif ch == "\n":
                self.row = min(self.row + 1, self.rows - 1)
            elif ch >= " ":
                if self.col >= self.cols:
                    self.col = 0
                    self.row = min(self.row + 1, self.rows - 1)
                self.cells[self.row][self.col] = (ch, self.pen)
                self.col += 1
            i += 1
        return ended

    def control(self, params, final):
        if params.startswith("?"):
            if params == "?2026" and final == "l":
                return 1
            if params == "?1049":
                self.clear()
            return 0
        numbers = [int(p) if p else 0 for p in params.split(";")] if params else []
        if final == "H":
            row = numbers[0] if numbers and numbers[0] else 1
            col = numbers[1] if len(numbers) > 1 and numbers[1] else 1
            self.row, self.col = min(row, self.rows) - 1, min(col, self.cols) - 1
        elif final == "C":
            self.col = min(self.col + (numbers[0] if numbers and numbers[0] else 1), self.cols)
        elif final == "J" and numbers == [2]:
            self.clear()
        elif final == "m":
            self.sgr(numbers or [0])
        return 0

    def sgr(self, codes):
        fg, bg, bold, reverse = self.pen
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                fg, bg, bold, reverse = None, None, False, False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif c == 7:
                reverse = True
            elif c == 27:
                reverse = False
            elif 30 <= c <= 37:
                fg = ("sys", c - 30)
            elif 90 <= c <= 97:
                fg = ("sys", c - 82)
            elif 40 <= c <= 47:
                bg = ("sys", c - 40)
            elif 100 <= c <= 107:
                bg = ("sys", c - 92)
            elif c == 39:
                fg = None
            elif c == 49:
                bg = None
            elif c in (38, 48) and i + 2 < len(codes):
                if codes[i + 1] == 5:
                    color = palette(codes[i + 2])
                    i += 2
                else:
                    color = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                    i += 4
                if c == 38:
                    fg = color
                else:
                    bg = color
            i += 1
        self.pen = (fg, bg, bold, reverse)

    def snapshot(self):
        return tuple(tuple(row) for row in self.cells)

    def text(self):
        return "\n".join("".join(ch for ch, _ in row).rstrip() for row in self.cells)


def frames(chunks, cols, rows):
    """The screens power11 drew: one after each synchronized update, with its time."""
    screen = Screen(cols, rows)
    shown = []
    for t, text in chunks:
        # Split at each update's end, so that each is seen whole.
        parts = re.split(r"(\x1b\[\?2026l)", text)
        for part in parts:
            if screen.feed(part):
                shown.append((t, screen.snapshot()))
    return shown


# xterm's colours for the 16 system entries; the 256-colour cube and greys as xterm draws them.
SYSTEM = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
          "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
DEFAULT_FG, DEFAULT_BG = "#d8d8d8", "#1c1c1c"
CELL_W, CELL_H = 9, 18


def palette(n):
    if n < 16:
        return ("sys", n)
    if n >= 232:
        g = 8 + 10 * (n - 232)
        return f"#{g:02x}{g:02x}{g:02x}"
    levels = [0, 95, 135, 175, 215, 255]
    i = n - 16
    return "#" + "".join(f"{levels[v]:02x}" for v in (i // 36, i // 6 % 6, i % 6))


def colors(style):
    """The (text, background) colours a cell is drawn in: system colours as xterm draws them,
    bold text in the 8 basic colours bright (as most terminals draw it), reverse video
    swapped."""
    fg, bg, bold, reverse = style

    def rgb(c, default, brighten=False):
        if c is None:
            return default
        if isinstance(c, tuple):
            n = c[1] + 8 if brighten and c[1] < 8 else c[1]
            return SYSTEM[n]
        return c

    text, back = rgb(fg, DEFAULT_FG, bold), rgb(bg, DEFAULT_BG)
    if reverse:
        text, back = back, text
    return text, back


def draw_rows(cells, rows=None):
    """SVG elements for the rows `rows` (all by default) of a screen: background runs, half
    and whole blocks as rectangles, text runs with their colour and weight."""
    parts = []
    for y, row in enumerate(cells):
        if rows is not None and y not in rows:
            continue
        parts.extend(draw_row(y, row))
    return parts


def draw_row(y, row):
    parts = []
    top = y * CELL_H
    x = 0
    while x < len(row):
        back = colors(row[x][1])[1]
        end = x
        while end < len(row) and colors(row[end][1])[1] == back:
            end += 1
        if back != DEFAULT_BG:
            parts.append(f'<rect x="{x * CELL_W}" y="{top}" width="{(end - x) * CELL_W}" '
                         f'height="{CELL_H}" fill="{back}"/>')
        x = end
    x = 0
    while x < len(row):
        ch, style = row[x]
        text, _ = colors(style)
        if ch in "▀▄█":
            end = x
            while end < len(row) and row[end][0] == ch and colors(row[end][1])[0] == text:
                end += 1
            y0 = top + (CELL_H // 2 if ch == "▄" else 0)
            h = CELL_H if ch == "█" else CELL_H // 2
            parts.append(f'<rect x="{x * CELL_W}" y="{y0}" width="{(end - x) * CELL_W}" '
                         f'height="{h}" fill="{text}"/>')
            x = end
            continue
        end = x
        while (end < len(row) and row[end][0] not in "▀▄█"
               and (colors(row[end][1])[0], row[end][1][2]) == (text, style[2])):
            end += 1
        run = "".join(c for c, _ in row[x:end])
        stripped = run.rstrip()
        if stripped.strip():
            lead = len(stripped) - len(stripped.lstrip())
            words = stripped.lstrip()
            weight = ' font-weight="bold"' if style[2] else ""
            parts.append(f'<text x="{(x + lead) * CELL_W}" y="{top + 14}" fill="{text}"{weight} '
                         f'textLength="{len(words) * CELL_W}" '
                         f'xml:space="preserve">{html.escape(words)}</text>')
        x = end
    return parts


def header(cols, rows):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * CELL_W}" '
            f'height="{rows * CELL_H}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
            f'font-size="15" shape-rendering="crispEdges">\n'
            f'<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>')


def still(cells, cols, rows):
    """One screen as an SVG document."""
    return "\n".join([header(cols, rows), *draw_rows(cells), "</svg>"]) + "\n"


def animated(shown, cols, rows, hold=3.0):
    """Screens at their times as one looping SVG document: each row drawn once for each
    stretch of time it looks the same, shown during that stretch (SMIL, which browsers play in
    an <img>)."""
    start = shown[0][0]
    times = [t - start for t, _ in shown]
    total = times[-1] + hold
    parts = [header(cols, rows)]
    for y in range(rows):
        since, current = 0.0, shown[0][1][y]
        stretches = []
        for t, (_, cells) in zip(times[1:], shown[1:]):
            if cells[y] != current:
                stretches.append((since, t, current))
                since, current = t, cells[y]
        stretches.append((since, total, current))
        for begin, end, row in stretches:
            drawn = draw_row(y, row)
            # A row drawn over within the same read shows for no time.
            if not drawn or end - begin < 0.001:
                continue
            a, b = begin / total, end / total
            if a <= 0 and b >= 1:
                parts.extend(drawn)
                continue
            if a <= 0:
                values, keys = "visible;hidden", f"0;{b:.4f}"
            elif b >= 1:
                values, keys = "hidden;visible", f"0;{a:.4f}"
            else:
                values, keys = "hidden;visible;hidden", f"0;{a:.4f};{b:.4f}"
            parts.append(f'<g visibility="hidden"><animate attributeName="visibility" '
                         f'values="{values}" keyTimes="{keys}" dur="{total:.2f}s" '
                         f'calcMode="discrete" repeatCount="indefinite"/>')
            parts.extend(drawn)
            parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
