# Answers each line it reads with "got " and the line's length and start; says bye at the end
# of its input. On a pipe Python would keep its output until it exits: on a terminal it
# flushes each line, without being told to.
print("ready")
while True:
    try:
        line = input()
    except EOFError:
        print("bye")
        break
    print(f"got {len(line)} {line[:10]}")
