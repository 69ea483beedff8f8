#!/usr/bin/env python3
# hostile.py: a Power-11 program (tests/programs/power11.py's game) that first attacks whoever
# runs it, as a hostile student's program would, then plays. A test fixture for the referee's
# sandbox: each attack must fail, or be held, whoever runs the referee.
#
# Usage: python3 hostile.py ATTACK[=VALUE][,ATTACK[=VALUE]...] [power11.py's arguments]
# (a value is given on the command line: a program under test gets a clean environment)
#
# Attacks (what each tries, and what it says on standard error, one line each):
#   signal-parent   SIGTERM to its parent and to every `power11 referee` above it, and
#                   SIGTERM and SIGINT to their process groups: `signalled PID` or `refused PID`.
#   stop-parent     SIGSTOP to its parent and to every `power11 referee` above it.
#   trace-parent    PTRACE_ATTACH to its parent and to every `power11 referee` above it,
#                   then a write to its /proc/PID/mem: `traced PID` or `refused PID`.
#   shared-memory   maps 3 GiB MAP_SHARED (anonymous) and writes every page of it: `mapped`.
#   sysv            makes a SysV shared memory segment of 64 MiB, writes it, and leaves it:
#                   `segment ID`.
#   fill-tmp        writes /tmp/fill until the disk holding /tmp is full: `filled N`.
#   read-file=PATH  reads the file PATH: `read: FIRST LINE` or `unreadable`.
#   list-home=PATH  lists the folder PATH: `home: NAMES` or `home: unreadable`.
#   link-save=PATH  leaves power11.saved as a hard link to PATH, and, failing that, a
#                   symbolic link to it: `linked`, `symlinked` or `no link`.
#   swap-folder=DIR renames its folder away and puts a link to DIR in its place: `swapped`
#                   or `not swapped`.
#   environment     prints its environment's names: `env: NAMES`.
#   helper=SECONDS  starts a helper in a new session, its environment cleared, that sleeps
#                   SECONDS (give an odd number, to find it): `helper PID`.
#   network=PORT    opens a TCP connection to 127.0.0.1:PORT: `connected` or `no network`.

import ctypes
import mmap
import os
import signal
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import power11  # noqa: E402


def say(text):
    sys.stderr.write("hostile: %s\n" % text)
    sys.stderr.flush()


def referees():
    """Its parent, and every `power11 referee` above it (its ancestors only: never another
    grader's processes)."""
    found = [os.getppid()]
    pid = os.getppid()
    for _ in range(8):
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                words = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
        if len(words) > 1 and words[0].endswith(b"power11") and words[1] == b"referee":
            found.append(pid)
    return [pid for pid in dict.fromkeys(found) if pid > 0]


def signal_parent():
    for pid in referees():
        try:
            os.kill(pid, signal.SIGTERM)
            say("signalled %d" % pid)
        except OSError:
            say("refused %d" % pid)
        try:
            group = os.getpgid(pid)
            if group > 0:
                os.killpg(group, signal.SIGTERM)
                os.killpg(group, signal.SIGINT)
                say("signalled group %d" % group)
        except OSError:
            say("refused group of %d" % pid)


def stop_parent():
    for pid in referees():
        try:
            os.kill(pid, signal.SIGSTOP)
            say("stopped %d" % pid)
        except OSError:
            say("refused %d" % pid)


def trace_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    PTRACE_ATTACH, PTRACE_DETACH = 16, 17
    for pid in referees():
        if libc.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
            say("refused %d" % pid)
            continue
        os.waitpid(pid, getattr(os, "__WALL", 0x40000000))
        wrote = False
        try:
            with open("/proc/%d/mem" % pid, "r+b", buffering=0):
                wrote = True
        except OSError:
            pass
        libc.ptrace(PTRACE_DETACH, pid, None, None)
        say("traced %d%s" % (pid, " (its memory opened to write)" if wrote else ""))


def shared_memory():
    size = 3 << 30
    m = mmap.mmap(-1, size, flags=mmap.MAP_SHARED)
    for at in range(0, size, 4096):
        m[at] = 1
    say("mapped")
    return m


def sysv():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    size = 64 << 20
    segment = libc.shmget(0, size, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment < 0:
        say("no segment")
        return
    address = libc.shmat(segment, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(address, 1, size)
        libc.shmdt(ctypes.c_void_p(address))
    say("segment %d" % segment)


def fill_tmp():
    written = 0
    block = b"x" * (1 << 20)
    try:
        with open("/tmp/fill", "wb") as f:
            while True:
                f.write(block)
                f.flush()
                written += len(block)
    except OSError:
        pass
    say("filled %d" % written)


def read_file(path):
    try:
        with open(path) as f:
            say("read: %s" % f.readline().strip())
    except OSError:
        say("unreadable")


def list_home(path):
    try:
        say("home: %s" % " ".join(sorted(os.listdir(path))))
    except OSError:
        say("home: unreadable")


def link_save(path):
    try:
        os.link(path, power11.SAVE_FILE)
        say("linked")
    except OSError:
        try:
            os.symlink(path, power11.SAVE_FILE)
            say("symlinked")
        except OSError:
            say("no link")


def environment():
    say("env: %s" % " ".join(sorted(os.environ)))


def swap_folder(target):
    here = os.getcwd()
    try:
        os.rename(here, here + "-moved")
        os.symlink(target, here)
        say("swapped")
    except OSError:
        say("not swapped")


def helper(seconds):
    child = subprocess.Popen(["sleep", seconds], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, env={})
    say("helper %d" % child.pid)


def network(port):
    port = int(port)
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        say("connected")
    except OSError:
        say("no network")


ATTACKS = {
    "signal-parent": signal_parent,
    "stop-parent": stop_parent,
    "trace-parent": trace_parent,
    "shared-memory": shared_memory,
    "sysv": sysv,
    "fill-tmp": fill_tmp,
    "read-file": read_file,
    "list-home": list_home,
    "link-save": link_save,
    "swap-folder": swap_folder,
    "environment": environment,
    "helper": helper,
    "network": network,
}


def main():
    attacks = [a.split("=", 1) for a in sys.argv[1].split(",")] if len(sys.argv) > 1 else []
    if not attacks or any(a[0] not in ATTACKS for a in attacks):
        sys.stderr.write("usage: python3 hostile.py ATTACK[=VALUE][,...] [power11.py's arguments]\n"
                         "attacks: %s\n" % " ".join(sorted(ATTACKS)))
        sys.exit(2)
    kept = [ATTACKS[a[0]](*a[1:]) for a in attacks]
    sys.argv = [sys.argv[0]] + sys.argv[2:]
    power11.main()
    del kept


if __name__ == "__main__":
    main()
