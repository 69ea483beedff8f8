#!/usr/bin/env python3
# power11.py: an independent Power-11 console program (Python 3, standard library only), a test
# fixture for `power11 referee`. It plays the assignment's game: the welcome menu, `e`/`h` start a
# 5x5/4x4 game with two tiles (2 at 90%, 4 at 10%) on random cells, `u` `d` `l` `r` slide and
# merge (a merged tile does not merge again; the tiles nearest the wall merge first), a move
# that changes the board adds one new tile (2 at 90%, 4 at 10%) on a random empty cell, `b`
# undoes one move (back to the start, no further), `s` saves the game's states oldest first to
# power11.saved in the current folder, `r` at the menu resumes the save (with its history), `q`
# quits to the menu (and at the menu ends the program), a 2048 prints `YOU WON WITH A SCORE OF
# N`, a board no move changes prints `YOU LOST!`, and the key after either returns to the menu.
# Keys are read like C++ `cin >> c`: every non-blank character is a key, in either case; they
# are read as they come (pipe or terminal), and output is flushed before each read. The end of
# the input ends the program with exit code 0. Its tiles are its own: `--seed N` makes a run
# reproducible (random.Random(N)); without it they are random.
# `r` reads the save oldest first, as the assignment writes it (it does not guess the order), so
# with save-newest-first a later `r` resumes the game's first state. Messages other than the
# assignment's (`Game saved ...`, `Nothing to undo ...`, `Unknown command ...`) are power11's.
#
# Usage: python3 power11.py [--seed N] [--delay SECONDS[/N]] [--fault NAME]...
# (--fault may be given more than once; --delay pauses SECONDS before it answers each key, or
# every Nth key only: a correct program that is slow, or slow now and then)
#
# Faults (`--fault NAME` plants exactly that one; none by default):
#   win-score          YOU WON WITH A SCORE OF N gives the score from before the winning move.
#   early-loss         YOU LOST! (the game ends) as soon as the board is full, even if a merge is possible.
#   one-tile-start     every new game starts with one tile instead of two.
#   no-new-tile        the new tile is tried on n*n random cells (full ones skipped), then given up.
#   merge-twice        a tile made by a merge merges again in the same move (2 2 4 -> 8).
#   undo-unchanged     every 3rd undo (of those with a move to undo) does nothing; the board is printed unchanged.
#   save-newest-first  the save file holds its states newest first.
#   resume-wrong       `r` resumes the state before the last saved one.
#   score-twice        each merge adds its value to the score twice.
#   crash-on-resume    `r` at the menu crashes the program (os.abort(): signal 6).
#   spin-on-save       `s` in a game loops for ever, busy, before it saves.
#   never-exit         at the end of the input it never exits: it reads again and again, sleeping.
#   no-tiles           no move adds a new tile (a game never reaches its win or its loss).
#   skip-tiles         a quarter of the moves that change the board add no new tile (each says
#                      `skipped the new tile of key N` on standard error, N counted from 1).
#   spin-at-end        at the end of the input it loops for ever, busy, printing nothing (as a
#                      `while (true) { cin >> c; ... }` loop does once `cin` fails).
#   stderr-flood       writes 200 KB of debugging text to standard error over the run (correct otherwise).
#   setsid-helper      starts a helper in a new session (setsid) that sleeps 600 s holding stdout open.
#   hog-memory         asks for 3 GiB at start (prints `allocated` if it got it; a note on stderr if not).
#   reader-thread      a second thread reads the input and hands it over; the main thread looks for it
#                      every 5 ms (asleep between looks), then works 10 ms on it before it answers, while
#                      the reader waits in `read` again (correct otherwise).
#   output-child       its output goes through a `cat` it starts just before the menu (correct otherwise).

import codecs
import collections
import os
import queue
import random
import subprocess
import sys
import threading
import time

FAULTS = {
    "win-score", "early-loss", "one-tile-start", "no-new-tile", "merge-twice",
    "undo-unchanged", "save-newest-first", "resume-wrong", "score-twice",
    "crash-on-resume", "spin-on-save", "never-exit", "stderr-flood", "setsid-helper", "hog-memory",
    "reader-thread", "output-child", "spin-at-end", "skip-tiles", "no-tiles",
}

SAVE_FILE = "power11.saved"
GOAL = 2048

MENU = (
    "Welcome to Power-11!\n"
    "  e - start a new Easy (5-by-5) game\n"
    "  h - start a new Hard (4-by-4) game\n"
    "  r - Resume the last saved game\n"
    "  q - Quit the game\n"
)
KEY_LINES = (
    "Moves: u = Up, d = Down, l = Left, r = Right\n"
    "Other: s = Save to power11.saved, b = Back (undo), q = Quit to the menu (unsaved moves are lost)\n"
)

# What Rust's char::is_whitespace calls white space (the referee reads keys so).
WHITE = set(" \t\n\x0b\x0c\r\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000")
WHITE.update(chr(c) for c in range(0x2000, 0x200B))


def usage(message):
    sys.stderr.write("power11.py: %s\nusage: python3 power11.py [--seed N] [--fault NAME]...\n"
                     "faults: %s\n" % (message, " ".join(sorted(FAULTS))))
    sys.exit(2)


DELAY = [0.0, 1]


def parse_args(argv):
    seed = None
    faults = set()
    i = 0
    while i < len(argv):
        arg = argv[i]
        value = None
        if "=" in arg and arg.startswith("--"):
            arg, value = arg.split("=", 1)
        if arg in ("--seed", "--fault", "--delay"):
            if value is None:
                i += 1
                if i >= len(argv):
                    usage("%s wants a value" % arg)
                value = argv[i]
            if arg == "--seed":
                try:
                    seed = int(value)
                except ValueError:
                    usage("--seed wants a whole number, not %r" % value)
            elif arg == "--delay":
                seconds, _, every = value.partition("/")
                try:
                    DELAY[0] = float(seconds)
                    DELAY[1] = int(every) if every else 1
                except ValueError:
                    usage("--delay wants SECONDS or SECONDS/N, not %r" % value)
            else:
                if value not in FAULTS:
                    usage("unknown fault %r" % value)
                faults.add(value)
        elif arg in ("-h", "--help"):
            sys.stdout.write("usage: python3 power11.py [--seed N] [--fault NAME]...\n"
                             "faults: %s\n" % " ".join(sorted(FAULTS)))
            sys.exit(0)
        else:
            usage("unknown argument %r" % arg)
        i += 1
    return seed, faults


class Debug:
    """stderr-flood: about 200 KB of debugging text on standard error over the run."""

    TOTAL = 200 * 1024

    def __init__(self, on):
        self.on = on
        self.written = 0

    def log(self, text):
        if not self.on or self.written >= self.TOTAL:
            return
        line = ("debug: %s " % text).ljust(1023, ".")[:1023] + "\n"
        self.written += len(line)
        try:
            sys.stderr.write(line)
            sys.stderr.flush()
        except OSError:
            self.on = False

    def finish(self):
        while self.on and self.written < self.TOTAL:
            self.log("the end of the run: %d bytes of debugging so far" % self.written)


class Keys:
    """Keys as `cin >> c` reads them: every non-blank character, as it comes."""

    def __init__(self, out, never_exit, reader_thread, spin_at_end=False):
        self.out = out
        self.never_exit = never_exit
        self.spin_at_end = spin_at_end
        self.count = 0
        self.pending = collections.deque()
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.eof = False
        self.handed = None
        if reader_thread:
            self.handed = queue.Queue()
            threading.Thread(target=self._reader, daemon=True).start()

    def _read_input(self):
        try:
            return os.read(0, 4096)
        except OSError:
            return b""

    def _reader(self):
        while True:
            data = self._read_input()
            self.handed.put(data)
            if not data:
                return

    def _read(self):
        if self.handed is None:
            return self._read_input()
        while True:
            try:
                data = self.handed.get_nowait()
                break
            except queue.Empty:
                time.sleep(0.005)
        # reader-thread: work on what came, the reader already back in `read`.
        busy_until = time.perf_counter() + 0.01
        while time.perf_counter() < busy_until:
            pass
        return data

    def next(self):
        """The next key, or None at the end of the input."""
        while True:
            while self.pending:
                c = self.pending.popleft()
                if c not in WHITE:
                    self.count += 1
                    if DELAY[0] > 0 and self.count % DELAY[1] == 0:
                        time.sleep(DELAY[0])
                    return c
            if self.eof:
                return None
            self.out.flush()
            data = self._read()
            if not data:
                self.pending.extend(self.decoder.decode(b"", final=True))
                if not self.pending:
                    if self.never_exit:
                        self.hang()
                    if self.spin_at_end:
                        while True:
                            pass
                    self.eof = True
                continue
            self.pending.extend(self.decoder.decode(data))

    def hang(self):
        # never-exit: a program that loops on a failed read.
        while True:
            time.sleep(0.05)
            self._read_input()


class Output:
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        if self.parts:
            sys.stdout.write("".join(self.parts))
            self.parts = []
        sys.stdout.flush()


def render_board(board):
    n = len(board)
    width = max([4] + [len(str(v)) for row in board for v in row if v])
    frame = "#" * (2 + n * width + (n - 1)) + "\n"
    rows = []
    for row in board:
        cells = [(str(v) if v else "").rjust(width) for v in row]
        rows.append("#" + "|".join(cells) + "#\n")
    return frame + "".join(rows) + frame


def render_state(score, board):
    return "Score: %d\n" % score + render_board(board)


def copy(board):
    return [row[:] for row in board]


def slide_line(line, merge_twice):
    """A line slid toward its start (index 0): (new line, points)."""
    tiles = [v for v in line if v]
    out = []
    points = 0
    if merge_twice:
        # Fault: a tile merges into the one placed before it, merged or not.
        for v in tiles:
            if out and out[-1] == v:
                out[-1] *= 2
                points += out[-1]
            else:
                out.append(v)
    else:
        i = 0
        while i < len(tiles):
            if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
                out.append(tiles[i] * 2)
                points += tiles[i] * 2
                i += 2
            else:
                out.append(tiles[i])
                i += 1
    return out + [0] * (len(line) - len(out)), points


def slide(board, direction, merge_twice=False):
    """The board moved in `direction` ('u', 'd', 'l', 'r'), and the points its merges make."""
    n = len(board)
    out = [[0] * n for _ in range(n)]
    total = 0
    for k in range(n):
        if direction == "l":
            cells = [(k, i) for i in range(n)]
        elif direction == "r":
            cells = [(k, n - 1 - i) for i in range(n)]
        elif direction == "u":
            cells = [(i, k) for i in range(n)]
        else:
            cells = [(n - 1 - i, k) for i in range(n)]
        line, points = slide_line([board[r][c] for r, c in cells], merge_twice)
        total += points
        for (r, c), v in zip(cells, line):
            out[r][c] = v
    return out, total


def can_move(board):
    n = len(board)
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            if v == 0:
                return True
            if c + 1 < n and board[r][c + 1] == v:
                return True
            if r + 1 < n and board[r + 1][c] == v:
                return True
    return False


def is_full(board):
    return all(v for row in board for v in row)


def won(board):
    return any(v >= GOAL for row in board for v in row)


class SaveError(Exception):
    pass


def parse_save(text):
    """The states of a save file (oldest first, as the file holds them)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    states = []
    i = 0
    score = None
    size = None
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        if line.lower().startswith("score"):
            rest = line[5:].lstrip(":= \t")
            try:
                score = int(rest)
            except ValueError:
                raise SaveError("line %d: not a score: %r" % (i, line))
            continue
        if line.isdigit() and score is None:
            score = int(line)
            continue
        if set(line) == {"#"} and len(line) >= 3:
            if score is None:
                raise SaveError("line %d: a board without a score line" % i)
            rows = []
            while True:
                if i >= len(lines):
                    raise SaveError("line %d: the board has no bottom frame" % i)
                row = lines[i].strip()
                i += 1
                if row and set(row) == {"#"}:
                    break
                if not (row.startswith("#") and row.endswith("#") and len(row) >= 2):
                    raise SaveError("line %d: not a board row: %r" % (i, row))
                inner = row[1:-1]
                if inner.startswith("|") and inner.endswith("|"):
                    inner = inner[1:-1]
                cells = []
                for cell in inner.split("|"):
                    cell = cell.strip()
                    if cell in ("", "0"):
                        cells.append(0)
                        continue
                    try:
                        v = int(cell)
                    except ValueError:
                        raise SaveError("line %d: not a tile: %r" % (i, cell))
                    if v < 2 or v & (v - 1):
                        raise SaveError("line %d: not a tile: %r" % (i, cell))
                    cells.append(v)
                rows.append(cells)
            n = len(rows)
            if n < 2 or any(len(r) != n for r in rows):
                raise SaveError("line %d: the board is not square" % i)
            if size is not None and n != size:
                raise SaveError("line %d: boards of different sizes" % i)
            size = n
            states.append((score, rows))
            score = None
            continue
        raise SaveError("line %d: unexpected %r" % (i, line))
    if score is not None:
        raise SaveError("a score line with no board after it")
    if not states:
        raise SaveError("no state in the file")
    return states


class Program:
    def __init__(self, rng, faults, out, debug):
        self.rng = rng
        self.faults = faults
        self.out = out
        self.debug = debug
        self.history = []  # (score, board), oldest first; the last is the current state
        self.undos = 0

    def fault(self, name):
        return name in self.faults

    # --- the game ------------------------------------------------------------------------

    @property
    def board(self):
        return self.history[-1][1]

    @property
    def score(self):
        return self.history[-1][0]

    def random_tile(self):
        return 4 if self.rng.random() < 0.1 else 2

    def place_tile(self, board):
        n = len(board)
        if self.fault("no-new-tile"):
            for _ in range(n * n):
                r, c = self.rng.randrange(n), self.rng.randrange(n)
                if board[r][c] == 0:
                    board[r][c] = self.random_tile()
                    return
            self.debug.log("gave up placing a tile")
            return
        empty = [(r, c) for r in range(n) for c in range(n) if board[r][c] == 0]
        if empty:
            r, c = self.rng.choice(empty)
            board[r][c] = self.random_tile()

    def new_game(self, n):
        board = [[0] * n for _ in range(n)]
        for _ in range(1 if self.fault("one-tile-start") else 2):
            self.place_tile(board)
        self.history = [(0, board)]

    def ended(self):
        """The end message of the current state, or None while the game goes on."""
        board = self.board
        if won(board):
            return "win"
        if self.fault("early-loss"):
            if is_full(board):
                return "YOU LOST!"
        elif not can_move(board):
            return "YOU LOST!"
        return None

    def show_game(self):
        self.out.write(render_state(self.score, self.board))
        self.out.write(KEY_LINES)

    def show_end(self, message):
        self.out.write(render_state(self.score, self.board))
        self.out.write(message + "\n")
        self.out.write("Press Enter to return to the menu.\n")

    def move(self, key):
        """Plays a move; returns the end message if the game ended."""
        before = self.score
        board, points = slide(self.board, key, self.fault("merge-twice"))
        if board == self.board:
            return None
        if self.fault("score-twice"):
            points *= 2
        if self.fault("no-tiles"):
            pass
        elif self.fault("skip-tiles") and self.skips.random() < 0.25:
            sys.stderr.write("skipped the new tile of key %d\n" % self.keys.count)
        else:
            self.place_tile(board)
        self.history.append((before + points, board))
        end = self.ended()
        if end == "win":
            shown = before if self.fault("win-score") else self.score
            return "YOU WON WITH A SCORE OF %d" % shown
        return end

    def undo(self):
        if len(self.history) < 2:
            self.out.write("Nothing to undo: this is the start of the game.\n")
            return
        self.undos += 1
        if self.fault("undo-unchanged") and self.undos % 3 == 0:
            self.debug.log("undo %d skipped" % self.undos)
            return
        self.history.pop()

    def save(self):
        if self.fault("spin-on-save"):
            while True:
                pass
        states = list(self.history)
        if self.fault("save-newest-first"):
            states.reverse()
        text = "".join(render_state(s, b) for s, b in states)[:-1]
        tmp = SAVE_FILE + ".tmp"
        try:
            with open(tmp, "w", newline="") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, SAVE_FILE)
        except OSError as e:
            self.out.write("Could not save the game: %s\n" % e)
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return
        self.out.write("Game saved to %s.\n" % SAVE_FILE)

    def resume(self):
        """Loads the save; True if a game was resumed."""
        if self.fault("crash-on-resume"):
            self.out.flush()
            os.abort()
        try:
            with open(SAVE_FILE, newline="") as f:
                text = f.read()
        except FileNotFoundError:
            self.out.write("No saved game to resume: %s does not exist.\n" % SAVE_FILE)
            return False
        except (OSError, UnicodeDecodeError) as e:
            self.out.write("Cannot resume: %s: %s\n" % (SAVE_FILE, e))
            return False
        try:
            states = parse_save(text)
        except SaveError as e:
            self.out.write("Cannot resume: %s: %s\n" % (SAVE_FILE, e))
            return False
        if self.fault("resume-wrong") and len(states) > 1:
            states = states[:-1]
        self.history = states
        return True

    # --- the screens ---------------------------------------------------------------------

    def run(self, keys):
        self.keys = keys
        self.skips = random.Random(7)
        self.out.write(MENU)
        while True:
            # The menu.
            key = keys.next()
            if key is None:
                return
            k = key.lower()
            self.debug.log("menu key %r" % key)
            if k == "q":
                return
            if k in ("e", "h"):
                self.new_game(5 if k == "e" else 4)
            elif k == "r":
                if not self.resume():
                    self.out.write(MENU)
                    continue
            else:
                self.out.write("Unknown command '%s': type e, h, r or q.\n" % printable(key))
                self.out.write(MENU)
                continue
            if not self.play(keys):
                return
            self.out.write(MENU)

    def play(self, keys):
        """Plays the current game; False at the end of the input."""
        end = self.ended()
        if end is not None:
            if end == "win":
                end = "YOU WON WITH A SCORE OF %d" % self.score
            self.show_end(end)
        else:
            self.show_game()
        while end is None:
            key = keys.next()
            if key is None:
                return False
            k = key.lower()
            self.debug.log("game key %r, score %d, board %r" % (key, self.score, self.board))
            if k in ("u", "d", "l", "r"):
                end = self.move(k)
            elif k == "b":
                self.undo()
            elif k == "s":
                self.save()
            elif k == "q":
                return True
            else:
                self.out.write("Unknown command '%s': type u, d, l, r, s, b or q.\n"
                               % printable(key))
            if end is None:
                self.show_game()
            else:
                self.show_end(end)
        # The key after the end of a game returns to the menu.
        return keys.next() is not None


def printable(c):
    o = ord(c)
    if o < 32:
        return "^" + chr(o + 64)
    if o == 127:
        return "^?"
    return c


def main():
    seed, faults = parse_args(sys.argv[1:])
    try:
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    except (AttributeError, ValueError):
        pass
    debug = Debug("stderr-flood" in faults)
    if "setsid-helper" in faults:
        subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, start_new_session=True)
    hog = None
    if "hog-memory" in faults:
        try:
            hog = bytearray(3 << 30)
            sys.stdout.write("allocated\n")
        except MemoryError:
            sys.stderr.write("power11.py: could not allocate 3 GiB; going on without it\n")
    relay = None
    if "output-child" in faults:
        # Its standard output becomes a pipe to a `cat` that prints to the terminal.
        relay = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
        os.dup2(relay.stdin.fileno(), 1)
        relay.stdin.close()
    rng = random.Random(seed) if seed is not None else random.Random()
    out = Output()
    program = Program(rng, faults, out, debug)
    keys = Keys(out, "never-exit" in faults, "reader-thread" in faults, "spin-at-end" in faults)
    try:
        program.run(keys)
        out.flush()
    except BrokenPipeError:
        # A closed standard output ends the program quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        debug.finish()
        sys.exit(0)
    debug.finish()
    del hog
    if relay is not None:
        # The pipe closed, `cat` prints the rest and ends.
        sys.stdout.flush()
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        relay.wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
