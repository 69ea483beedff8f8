# Waits for its input in select(), not in read(): the runner sees it waiting only by its
# quiet.
import select
import sys

print("ready", flush=True)
while True:
    select.select([sys.stdin], [], [])
    line = sys.stdin.readline()
    if not line:
        break
    print("got", line.strip(), flush=True)
