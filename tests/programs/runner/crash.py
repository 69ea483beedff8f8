# Answers each key; aborts (SIGABRT) on the key "r".
import os

print("menu")
while True:
    key = input()
    if key == "r":
        os.abort()
    print(f"key {key}")
