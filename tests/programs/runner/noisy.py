# Writes 200 KB of debugging text to standard error, then answers on standard output.
import sys

for i in range(2000):
    sys.stderr.write(f"debug line {i:05d} " + "x" * 82 + "\n")
sys.stderr.flush()
print("done")
