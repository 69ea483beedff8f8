# Answers each line it reads after working on it (busy, not asleep) for the seconds its
# first argument gives; "ready" first. A correct program, only slow.
import sys
import time

work = float(sys.argv[1])
print("ready")
while True:
    try:
        line = input()
    except EOFError:
        break
    until = time.perf_counter() + work
    while time.perf_counter() < until:
        pass
    print(f"done {line}")
