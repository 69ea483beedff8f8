# Answers each line it reads after working on it (busy) for the seconds its first argument
# gives, or asleep for them if its second is "sleep"; "ready" first. A correct program, only
# slow.
import sys
import time

work = float(sys.argv[1])
asleep = sys.argv[2:] == ["sleep"]
print("ready")
while True:
    try:
        line = input()
    except EOFError:
        break
    if asleep:
        time.sleep(work)
    until = time.perf_counter() + work
    while not asleep and time.perf_counter() < until:
        pass
    print(f"done {line}")
