#!/usr/bin/env python3
"""Legions random player (the seed's baseline, simplified): reads the map from stdin and
sends its 5 legions one by one, each to a random province it does not own next to one
of its connected provinces (upper case). Empty stdin: prints its name."""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

text = sys.stdin.read()
if not text.strip():
    print("random-py")
    sys.exit()

lines = text.split("\n")
me = lines[0].strip()
n = int(lines[1])
cells = [lines[4 + y].split() for y in range(n)]  # cells[y][x]; any whitespace splits


def connected(x, y):
    return cells[y][x] in ("N" + me, "V" + me)


left, orders = 5, []
while left > 0:
    targets = sorted({(x + dx, y + dy)
                      for y in range(n) for x in range(n) if connected(x, y)
                      for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                      if 0 <= x + dx < n and 0 <= y + dy < n
                      and cells[y + dy][x + dx][-1] != me})
    if not targets:
        break
    x, y = random.choice(targets)
    c = random.randint(1, left)
    orders.append((x, y, c))
    left -= c
    # Assume an empty target is taken, so the next order may go further.
    if cells[y][x] == ".":
        cells[y][x] = "N" + me

print(f"player {me}: {len(orders)} orders {orders}", file=sys.stderr)
for x, y, c in orders:
    print(x, y, c)
