/* power11.c: an independent Power-11 console program (C, standard library and POSIX only), a
 * test fixture for `power11 referee`. It is a port of the correct behaviour of
 * tests/programs/power11.py (none of its faults): the welcome menu, `e`/`h` start a 5x5/4x4 game
 * with two tiles, `u` `d` `l` `r` slide and merge, a move that changes the board adds one new
 * tile (2 at 90%, 4 at 10%) on a random empty cell, `b` undoes one move, `s` saves the game's
 * states oldest first to power11.saved, `r` at the menu resumes it, `q` quits to the menu (and at
 * the menu ends the program), 2048 wins, a board no move changes loses, and the key after either
 * returns to the menu. The end of the input ends the program with exit code 0.
 *
 * Keys are read like C++ `cin >> c`: the input is decoded as UTF-8 (a bad byte becomes U+FFFD,
 * as Python's errors="replace" does), every character that is not white space (as Rust's
 * char::is_whitespace says) is a key, in either case; output is flushed before each read.
 * An arrow key's escape sequence is three keys here, as in the Python.
 *
 * The random numbers are Python's random.Random (MT19937), so `--seed N` plays the very tiles
 * `python3 power11.py --seed N` plays: the two programs' outputs can be compared byte for byte.
 *
 * Usage: power11 [--seed N]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SAVE_FILE "power11.saved"
#define GOAL 2048

static const char MENU[] =
    "Welcome to Power-11!\n"
    "  e - start a new Easy (5-by-5) game\n"
    "  h - start a new Hard (4-by-4) game\n"
    "  r - Resume the last saved game\n"
    "  q - Quit the game\n";
static const char KEY_LINES[] =
    "Moves: u = Up, d = Down, l = Left, r = Right\n"
    "Other: s = Save to power11.saved, b = Back (undo), q = Quit to the menu (unsaved moves are lost)\n";

static void *must(void *p)
{
    if (!p) {
        fputs("power11: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* Output is written to stdout (fully buffered) and flushed before each read. A closed output
 * (EPIPE, SIGPIPE being ignored) ends the program quietly with 0, as the Python does. */
static void flush_out(void)
{
    if (fflush(stdout) != 0)
        exit(0);
}

/* ---- Random numbers: CPython's random.Random ----------------------------------------------- */

static uint32_t mt[624];
static int mti;

static void mt_init(uint32_t s)
{
    mt[0] = s;
    for (mti = 1; mti < 624; mti++)
        mt[mti] = 1812433253u * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + (uint32_t)mti;
}

/* init_by_array, as random.seed(int) calls it with the int's 32-bit words, lowest first. */
static void mt_seed(const uint32_t *key, int len)
{
    int i = 1, j = 0, k = len > 624 ? len : 624;
    mt_init(19650218u);
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++, j++;
        if (i >= 624) { mt[0] = mt[623]; i = 1; }
        if (j >= len) j = 0;
    }
    for (k = 623; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000u;
}

static uint32_t mt_next(void)
{
    uint32_t y;
    if (mti >= 624) {
        for (int k = 0; k < 624; k++) {
            y = (mt[k] & 0x80000000u) | (mt[(k + 1) % 624] & 0x7fffffffu);
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1) ? 0x9908b0dfu : 0);
        }
        mti = 0;
    }
    y = mt[mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* random.random(): 53 random bits in [0, 1). */
static double rand_unit(void)
{
    uint32_t a = mt_next() >> 5, b = mt_next() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* random.Random._randbelow(m) (m > 0): getrandbits(m.bit_length()) until it is below m. */
static size_t rand_below(size_t m)
{
    int k = 0;
    while (k < 32 && (m >> k) != 0)
        k++;
    for (;;) {
        size_t r = mt_next() >> (32 - k);
        if (r < m)
            return r;
    }
}

/* ---- Text: characters, white space, integers as Python's int() reads them ------------------ */

/* White space as Rust's char::is_whitespace says (keys). */
static int rust_space(long c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f
        || c == 0x205f || c == 0x3000;
}

/* White space as Python's str.isspace says (str.strip(), int()): Rust's and \x1c-\x1f. */
static int py_space(long c)
{
    return rust_space(c) || (c >= 0x1c && c <= 0x1f);
}

/* One UTF-8 character at p (avail bytes): returns the bytes it takes, *cp its code point, or -1
 * for bytes in error (*why says why; the bytes returned are the ones to replace); 0 when more
 * bytes are needed and may still come (at_end false). Errors as CPython's decoder finds them. */
static int utf8_step(const unsigned char *p, size_t avail, int at_end, long *cp, const char **why)
{
    unsigned c = p[0], lo = 0x80, hi = 0xbf;
    int need;
    if (c < 0x80) { *cp = c; return 1; }
    if (c >= 0xc2 && c <= 0xdf)
        need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0) lo = 0xa0;          /* no overlong forms */
        if (c == 0xed) hi = 0x9f;          /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;          /* nothing above U+10FFFF */
    } else {
        *cp = -1, *why = "invalid start byte";
        return 1;
    }
    long v = c & (0x3f >> need);
    for (int i = 1; i <= need; i++) {
        if ((size_t)i >= avail) {
            if (!at_end)
                return 0;
            *cp = -1, *why = "unexpected end of data";
            return i;
        }
        if (p[i] < lo || p[i] > hi) {
            *cp = -1, *why = "invalid continuation byte";
            return i;
        }
        lo = 0x80, hi = 0xbf;
        v = v << 6 | (p[i] & 0x3f);
    }
    *cp = v;
    return need + 1;
}

static void put_char(FILE *f, long c)
{
    if (c < 0x80)
        putc((int)c, f);
    else if (c < 0x800)
        fprintf(f, "%c%c", (int)(0xc0 | c >> 6), (int)(0x80 | (c & 0x3f)));
    else if (c < 0x10000)
        fprintf(f, "%c%c%c", (int)(0xe0 | c >> 12), (int)(0x80 | (c >> 6 & 0x3f)),
                (int)(0x80 | (c & 0x3f)));
    else
        fprintf(f, "%c%c%c%c", (int)(0xf0 | c >> 18), (int)(0x80 | (c >> 12 & 0x3f)),
                (int)(0x80 | (c >> 6 & 0x3f)), (int)(0x80 | (c & 0x3f)));
}

/* A piece of decoded text (code points). */
typedef struct { const uint32_t *p; size_t len; } Text;

static Text strip(Text t)
{
    while (t.len && py_space(t.p[0]))
        t.p++, t.len--;
    while (t.len && py_space(t.p[t.len - 1]))
        t.len--;
    return t;
}

/* Python's int(text) (ASCII digits): white space, a sign, digits with single underscores
 * between them. 0 if it is not a number or does not fit a long long. */
static int py_int(Text t, int allow_sign, unsigned long long *mag, int *negative)
{
    size_t i = 0;
    int digits = 0;
    unsigned long long v = 0;
    t = strip(t);
    *negative = 0;
    if (allow_sign && i < t.len && (t.p[i] == '+' || t.p[i] == '-'))
        *negative = t.p[i++] == '-';
    for (; i < t.len; i++) {
        uint32_t c = t.p[i];
        if (c == '_' && digits && i + 1 < t.len && t.p[i + 1] >= '0' && t.p[i + 1] <= '9')
            continue;
        if (c < '0' || c > '9' || v > (~0ull - 9) / 10)
            return 0;
        v = v * 10 + (c - '0');
        digits++;
    }
    *mag = v;
    return digits > 0;
}

static int py_ll(Text t, long long *out)
{
    unsigned long long mag;
    int neg;
    if (!py_int(t, 1, &mag, &neg) || mag > (unsigned long long)INT64_MAX)
        return 0;
    *out = neg ? -(long long)mag : (long long)mag;
    return 1;
}

/* Python's repr() of a str, for the messages about a save file. */
static void put_repr(Text t)
{
    int has_single = 0, has_double = 0;
    for (size_t i = 0; i < t.len; i++)
        has_single |= t.p[i] == '\'', has_double |= t.p[i] == '"';
    char q = has_single && !has_double ? '"' : '\'';
    putchar(q);
    for (size_t i = 0; i < t.len; i++) {
        uint32_t c = t.p[i];
        if (c == (uint32_t)q || c == '\\') printf("\\%c", (int)c);
        else if (c == '\t') fputs("\\t", stdout);
        else if (c == '\n') fputs("\\n", stdout);
        else if (c == '\r') fputs("\\r", stdout);
        else if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0xad) printf("\\x%02x", (unsigned)c);
        else put_char(stdout, c);
    }
    putchar(q);
}

/* ---- Keys ----------------------------------------------------------------------------------- */

static unsigned char inbuf[8192];
static size_t in_pos, in_len;
static int in_eof;

/* The next character of the input, or -1 at its end. */
static long next_char(void)
{
    for (;;) {
        if (in_pos < in_len) {
            long cp;
            const char *why;
            int used = utf8_step(inbuf + in_pos, in_len - in_pos, in_eof, &cp, &why);
            if (used > 0) {
                in_pos += (size_t)used;
                return cp < 0 ? 0xfffd : cp;
            }
        } else if (in_eof)
            return -1;
        /* Keep the start of an unfinished character, flush the answer, wait for more. */
        memmove(inbuf, inbuf + in_pos, in_len - in_pos);
        in_len -= in_pos, in_pos = 0;
        flush_out();
        ssize_t got;
        do
            got = read(0, inbuf + in_len, sizeof inbuf - in_len);
        while (got < 0 && errno == EINTR);
        if (got <= 0)
            in_eof = 1;
        else
            in_len += (size_t)got;
    }
}

/* The next key (a character that is not white space), or -1 at the end of the input. */
static long next_key(void)
{
    long c;
    do
        c = next_char();
    while (c >= 0 && rust_space(c));
    return c;
}

static long lower(long c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* A key as the "Unknown command" message shows it: a control character as ^X. */
static void put_key(long c)
{
    if (c < 32)
        printf("^%c", (int)(c + 64));
    else if (c == 127)
        fputs("^?", stdout);
    else
        put_char(stdout, c);
}

/* ---- The game ------------------------------------------------------------------------------- */

typedef struct { long long score; long long *cells; } State;   /* cells: n*n, row by row */

static int n;                        /* the board's size */
static State *hist;                  /* the game's states, oldest first; the last is current */
static size_t hist_len, hist_cap;

static State *cur(void) { return &hist[hist_len - 1]; }

static void push_state(long long score, long long *cells)
{
    if (hist_len == hist_cap) {
        hist_cap = hist_cap ? 2 * hist_cap : 64;
        hist = must(realloc(hist, hist_cap * sizeof *hist));
    }
    hist[hist_len].score = score;
    hist[hist_len++].cells = cells;
}

static void clear_history(void)
{
    while (hist_len)
        free(hist[--hist_len].cells);
}

static long long *new_cells(void)
{
    return must(calloc((size_t)n * (size_t)n, sizeof(long long)));
}

static void render_state(FILE *f, const State *s)
{
    char num[32];
    int width = 4;
    for (int i = 0; i < n * n; i++)
        if (s->cells[i]) {
            int w = snprintf(num, sizeof num, "%lld", s->cells[i]);
            if (w > width)
                width = w;
        }
    fprintf(f, "Score: %lld\n", s->score);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 2 + n * width + (n - 1); i++)
            putc('#', f);
        putc('\n', f);
        for (int r = 0; pass == 0 && r < n; r++) {
            putc('#', f);
            for (int c = 0; c < n; c++) {
                long long v = s->cells[r * n + c];
                if (v)
                    fprintf(f, "%s%*lld", c ? "|" : "", width, v);
                else
                    fprintf(f, "%s%*s", c ? "|" : "", width, "");
            }
            fputs("#\n", f);
        }
    }
}

/* The cell at place i (0 nearest the wall moved toward) of line k, for a move toward dir. */
static int line_cell(char dir, int k, int i)
{
    switch (dir) {
    case 'l': return k * n + i;
    case 'r': return k * n + (n - 1 - i);
    case 'u': return i * n + k;
    default:  return (n - 1 - i) * n + k;
    }
}

/* Slides `in` toward dir into `out` (zeroed); returns the points its merges make. Along each
 * line, from the wall: a tile equal to the unmerged one before it merges with it (so a merged
 * tile does not merge again, and the tiles nearest the wall merge first). */
static long long slide(const long long *in, long long *out, char dir)
{
    long long points = 0;
    for (int k = 0; k < n; k++) {
        long long held = 0;              /* the last tile placed, while it may still merge */
        int w = 0;
        for (int i = 0; i < n; i++) {
            long long v = in[line_cell(dir, k, i)];
            if (!v)
                continue;
            if (v == held) {
                out[line_cell(dir, k, w++)] = 2 * v;
                points += 2 * v;
                held = 0;
            } else {
                if (held)
                    out[line_cell(dir, k, w++)] = held;
                held = v;
            }
        }
        if (held)
            out[line_cell(dir, k, w)] = held;
    }
    return points;
}

static int can_move(const long long *b)
{
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            long long v = b[r * n + c];
            if (v == 0 || (c + 1 < n && b[r * n + c + 1] == v) || (r + 1 < n && b[(r + 1) * n + c] == v))
                return 1;
        }
    return 0;
}

/* A new tile on a random empty cell (the cell drawn first, then 2 at 90%, 4 at 10%). */
static void place_tile(long long *b)
{
    size_t empty = 0, k;
    for (int i = 0; i < n * n; i++)
        empty += b[i] == 0;
    if (!empty)
        return;
    k = rand_below(empty);
    for (int i = 0; i < n * n; i++)
        if (b[i] == 0 && k-- == 0) {
            b[i] = rand_unit() < 0.1 ? 4 : 2;
            return;
        }
}

static void new_game(int size)
{
    clear_history();
    n = size;
    long long *b = new_cells();
    place_tile(b);
    place_tile(b);
    push_state(0, b);
}

/* The end message of the current state, or NULL while the game goes on. */
static const char *ended(void)
{
    static char msg[64];
    for (int i = 0; i < n * n; i++)
        if (cur()->cells[i] >= GOAL) {
            snprintf(msg, sizeof msg, "YOU WON WITH A SCORE OF %lld", cur()->score);
            return msg;
        }
    return can_move(cur()->cells) ? NULL : "YOU LOST!";
}

static void show_game(void)
{
    render_state(stdout, cur());
    fputs(KEY_LINES, stdout);
}

static void show_end(const char *message)
{
    render_state(stdout, cur());
    printf("%s\nPress Enter to return to the menu.\n", message);
}

/* Plays a move; returns the end message if the game ended. A move that changes nothing is
 * no move: no new tile, no new state. */
static const char *move(char dir)
{
    long long *b = new_cells();
    long long points = slide(cur()->cells, b, dir);
    if (memcmp(b, cur()->cells, (size_t)n * (size_t)n * sizeof *b) == 0) {
        free(b);
        return NULL;
    }
    place_tile(b);
    push_state(cur()->score + points, b);
    return ended();
}

static void undo(void)
{
    if (hist_len < 2)
        fputs("Nothing to undo: this is the start of the game.\n", stdout);
    else
        free(hist[--hist_len].cells);
}

/* Saves every state, oldest first, each as the screen shows it (the file without the last
 * newline), through a temporary file renamed over the save. */
static void save(void)
{
    const char *tmp = SAVE_FILE ".tmp";
    char *text = NULL;
    size_t len = 0;
    FILE *m = must(open_memstream(&text, &len));
    for (size_t i = 0; i < hist_len; i++)
        render_state(m, &hist[i]);
    fclose(m);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666), err = 0;
    if (fd < 0) {
        err = errno;
        printf("Could not save the game: [Errno %d] %s: '%s'\n", err, strerror(err), tmp);
        free(text);
        return;
    }
    for (size_t done = 0; !err && done < len - 1;) {
        ssize_t w = write(fd, text + done, len - 1 - done);
        if (w < 0 && errno != EINTR)
            err = errno;
        else if (w > 0)
            done += (size_t)w;
    }
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    free(text);
    if (err)
        printf("Could not save the game: [Errno %d] %s\n", err, strerror(err));
    else if (rename(tmp, SAVE_FILE) != 0) {
        err = errno;
        printf("Could not save the game: [Errno %d] %s: '%s' -> '%s'\n", err, strerror(err), tmp,
               SAVE_FILE);
    }
    if (err)
        unlink(tmp);
    else
        printf("Game saved to %s.\n", SAVE_FILE);
}

/* ---- Resume: reading a save file, as leniently as the Python does --------------------------- */

static int is_frame(Text t)     /* only '#' (and not empty) */
{
    for (size_t i = 0; i < t.len; i++)
        if (t.p[i] != '#')
            return 0;
    return t.len > 0;
}

static void cannot(int line, const char *what)
{
    fputs("Cannot resume: " SAVE_FILE ": ", stdout);
    if (line)
        printf("line %d: ", line);
    fputs(what, stdout);
}

/* The states of the text (oldest first, as the file holds them) into *out; 0 after printing
 * why not. The checks and messages are parse_save's in power11.py. */
static int parse_save(const uint32_t *t, size_t tlen, State **out, size_t *count, int *size)
{
    size_t nlines = 1, i = 0, nstates = 0;
    for (size_t k = 0; k < tlen; k++)
        nlines += t[k] == '\n';
    Text *lines = must(malloc(nlines * sizeof *lines));
    State *states = must(malloc(nlines * sizeof *states));
    for (size_t k = 0, start = 0, l = 0; k <= tlen; k++)
        if (k == tlen || t[k] == '\n') {
            lines[l].p = t + start, lines[l++].len = k - start;
            start = k + 1;
        }
    long long score = 0;
    int have_score = 0, ok = 0;
    *size = 0;
    while (i < nlines) {
        Text line = strip(lines[i++]);
        if (!line.len)
            continue;
        int scoreword = line.len >= 5;
        for (int k = 0; k < 5 && scoreword; k++)
            scoreword = lower(line.p[k]) == "score"[k];
        if (scoreword) {
            Text rest = { line.p + 5, line.len - 5 };
            while (rest.len && (rest.p[0] == ':' || rest.p[0] == '=' || rest.p[0] == ' ' || rest.p[0] == '\t'))
                rest.p++, rest.len--;
            if (!py_ll(rest, &score)) {
                cannot((int)i, "not a score: "), put_repr(line), putchar('\n');
                goto done;
            }
            have_score = 1;
            continue;
        }
        unsigned long long mag;
        int neg;
        if (!have_score && line.p[0] >= '0' && line.p[0] <= '9' && py_int(line, 0, &mag, &neg)
            && mag <= (unsigned long long)INT64_MAX) {
            int digits = 1;      /* str.isdigit(): digits only, no underscore */
            for (size_t k = 0; k < line.len; k++)
                digits &= line.p[k] >= '0' && line.p[k] <= '9';
            if (digits) {
                score = (long long)mag, have_score = 1;
                continue;
            }
        }
        if (!(is_frame(line) && line.len >= 3)) {
            cannot((int)i, "unexpected "), put_repr(line), putchar('\n');
            goto done;
        }
        if (!have_score) {
            cannot((int)i, "a board without a score line\n");
            goto done;
        }
        /* The board's rows, up to its bottom frame; their cells, n a row. */
        size_t rows = 0, cells = 0, cap = 16, first = 0;
        long long *b = must(malloc(cap * sizeof *b));
        int square = 1;
        for (;;) {
            if (i >= nlines) {
                cannot((int)i, "the board has no bottom frame\n");
                free(b);
                goto done;
            }
            Text row = strip(lines[i++]);
            if (is_frame(row))
                break;
            if (!(row.len >= 2 && row.p[0] == '#' && row.p[row.len - 1] == '#')) {
                cannot((int)i, "not a board row: "), put_repr(row), putchar('\n');
                free(b);
                goto done;
            }
            Text inner = { row.p + 1, row.len - 2 };
            if (inner.len && inner.p[0] == '|' && inner.p[inner.len - 1] == '|')
                inner.p++, inner.len = inner.len >= 2 ? inner.len - 2 : 0;
            size_t in_row = 0;
            for (size_t k = 0, start = 0; k <= inner.len; k++) {
                if (k < inner.len && inner.p[k] != '|')
                    continue;
                Text cell = strip((Text){ inner.p + start, k - start });
                long long v = 0;
                start = k + 1;
                if (!(cell.len == 0 || (cell.len == 1 && cell.p[0] == '0'))
                    && (!py_ll(cell, &v) || v < 2 || (v & (v - 1)))) {
                    cannot((int)i, "not a tile: "), put_repr(cell), putchar('\n');
                    free(b);
                    goto done;
                }
                if (cells == cap)
                    b = must(realloc(b, (cap *= 2) * sizeof *b));
                b[cells++] = v;
                in_row++;
            }
            if (rows == 0)
                first = in_row;
            else if (in_row != first)
                square = 0;      /* a row not as long as the first */
            rows++;
        }
        if (rows < 2 || !square || first != rows) {
            cannot((int)i, "the board is not square\n");
            free(b);
            goto done;
        }
        if (*size && (size_t)*size != rows) {
            cannot((int)i, "boards of different sizes\n");
            free(b);
            goto done;
        }
        *size = (int)rows;
        states[nstates].score = score;
        states[nstates++].cells = b;
        have_score = 0;
    }
    if (have_score)
        cannot(0, "a score line with no board after it\n");
    else if (!nstates)
        cannot(0, "no state in the file\n");
    else
        ok = 1;
done:
    free(lines);
    if (!ok) {
        while (nstates)
            free(states[--nstates].cells);
        free(states);
        return 0;
    }
    *out = states, *count = nstates;
    return 1;
}

/* Loads the save (with its history); 1 if a game was resumed. */
static int resume(void)
{
    int fd = open(SAVE_FILE, O_RDONLY), err = 0;
    struct stat st;
    if (fd < 0 && errno == ENOENT) {
        printf("No saved game to resume: %s does not exist.\n", SAVE_FILE);
        return 0;
    }
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        err = EISDIR;
    if (fd < 0 || err) {
        err = err ? err : errno;
        printf("Cannot resume: %s: [Errno %d] %s: '%s'\n", SAVE_FILE, err, strerror(err), SAVE_FILE);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    size_t len = 0, cap = 4096;
    unsigned char *raw = must(malloc(cap));
    for (;;) {
        if (len == cap)
            raw = must(realloc(raw, cap *= 2));
        ssize_t got = read(fd, raw + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            err = errno;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (err) {
        printf("Cannot resume: %s: [Errno %d] %s\n", SAVE_FILE, err, strerror(err));
        free(raw);
        return 0;
    }
    /* Decode it (strict UTF-8), with "\r\n" and "\r" read as "\n". */
    uint32_t *text = must(malloc((len + 1) * sizeof *text));
    size_t tlen = 0;
    for (size_t k = 0; k < len;) {
        long cp;
        const char *why;
        int used = utf8_step(raw + k, len - k, 1, &cp, &why);
        if (cp < 0) {
            if (used == 1)
                printf("Cannot resume: %s: 'utf-8' codec can't decode byte 0x%02x in position %zu: %s\n",
                       SAVE_FILE, raw[k], k, why);
            else
                printf("Cannot resume: %s: 'utf-8' codec can't decode bytes in position %zu-%zu: %s\n",
                       SAVE_FILE, k, k + (size_t)used - 1, why);
            free(raw);
            free(text);
            return 0;
        }
        k += (size_t)used;
        if (cp == '\r' && k < len && raw[k] == '\n')
            continue;
        text[tlen++] = cp == '\r' ? '\n' : (uint32_t)cp;
    }
    free(raw);
    State *states;
    size_t count;
    int size;
    int ok = parse_save(text, tlen, &states, &count, &size);
    free(text);
    if (!ok)
        return 0;
    clear_history();
    n = size;
    for (size_t k = 0; k < count; k++)
        push_state(states[k].score, states[k].cells);
    free(states);
    return 1;
}

/* ---- The screens ---------------------------------------------------------------------------- */

/* Plays the current game; 0 at the end of the input. */
static int play(void)
{
    const char *end = ended();
    if (end)
        show_end(end);
    else
        show_game();
    while (!end) {
        long key = next_key();
        if (key < 0)
            return 0;
        long k = lower(key);
        if (k == 'u' || k == 'd' || k == 'l' || k == 'r')
            end = move((char)k);
        else if (k == 'b')
            undo();
        else if (k == 's')
            save();
        else if (k == 'q')
            return 1;
        else {
            fputs("Unknown command '", stdout);
            put_key(key);
            fputs("': type u, d, l, r, s, b or q.\n", stdout);
        }
        if (end)
            show_end(end);
        else
            show_game();
    }
    /* The key after the end of a game (whatever it is) returns to the menu. */
    return next_key() >= 0;
}

static void run(void)
{
    fputs(MENU, stdout);
    for (;;) {
        long key = next_key();
        if (key < 0)
            return;
        long k = lower(key);
        if (k == 'q')
            return;
        if (k == 'e' || k == 'h')
            new_game(k == 'e' ? 5 : 4);
        else if (k == 'r') {
            if (!resume()) {
                fputs(MENU, stdout);
                continue;
            }
        } else {
            fputs("Unknown command '", stdout);
            put_key(key);
            fputs("': type e, h, r or q.\n", stdout);
            fputs(MENU, stdout);
            continue;
        }
        if (!play())
            return;
        fputs(MENU, stdout);
    }
}

static void usage(const char *message, const char *arg)
{
    fprintf(stderr, "power11: %s%s\nusage: power11 [--seed N]\n", message, arg);
    exit(2);
}

int main(int argc, char **argv)
{
    int seeded = 0;
    uint32_t key[2] = { 0, 0 };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            puts("usage: power11 [--seed N]");
            return 0;
        }
        if (strncmp(arg, "--seed=", 7) == 0)
            value = arg + 7;
        else if (strcmp(arg, "--seed") == 0) {
            if (++i >= argc)
                usage("--seed wants a value", "");
            value = argv[i];
        } else
            usage("unknown argument ", arg);
        /* random.Random(N) seeds with |N|'s 32-bit words, lowest first. */
        size_t vlen = strlen(value);
        uint32_t *chars = must(malloc((vlen + 1) * sizeof *chars));
        for (size_t k = 0; k < vlen; k++)
            chars[k] = (unsigned char)value[k];
        unsigned long long mag;
        int neg;
        if (!py_int((Text){ chars, vlen }, 1, &mag, &neg))
            usage("--seed wants a whole number (of at most 64 bits), not ", value);
        free(chars);
        key[0] = (uint32_t)mag, key[1] = (uint32_t)(mag >> 32);
        seeded = 1;
    }
    if (!seeded) {
        /* Unseeded: from the system's randomness (or the time and process id). */
        int fd = open("/dev/urandom", O_RDONLY);
        if (fd < 0 || read(fd, key, sizeof key) != (ssize_t)sizeof key)
            key[0] = (uint32_t)time(NULL), key[1] = (uint32_t)getpid();
        if (fd >= 0)
            close(fd);
    }
    mt_seed(key, key[1] ? 2 : 1);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    run();
    flush_out();
    return 0;
}
