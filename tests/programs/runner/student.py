# A student's program, run from another folder than its own: prints where it runs.
import os

print("cwd", os.getcwd())
print("home", os.environ["HOME"])
print("term", os.environ["TERM"])
