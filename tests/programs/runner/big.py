# Asks for 3 GiB and says whether it got them.
try:
    block = bytearray(3 << 30)
    print("granted", len(block))
except MemoryError:
    print("refused: MemoryError")
