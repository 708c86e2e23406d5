#!/usr/bin/env python3
"""Random player for every game, over Arbiter's own protocol (docs/protocols/arbiter.md).

It plays a random move from the `legal` line. Legions sends no `legal` line: there it
sends its five legions, one by one, to random provinces next to its connected ones
(empty, enemy, or its own cut-off ones) read from the `position` line."""
import os
import random
import sys
from collections import Counter

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))


def legions_move(side, position):
    rows = position.split(" ", 1)[1].split("/")
    cells = [row.split(",") for row in rows]
    n = len(cells)
    connected = ("N%d" % side, "V%d" % side)  # upper case: joined to the own city
    targets = set()
    for y in range(n):
        for x in range(n):
            if cells[y][x] in connected:
                for tx, ty in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= tx < n and 0 <= ty < n and cells[ty][tx] not in connected:
                        targets.add((tx, ty))
    if not targets:
        return ""
    sends = Counter(random.choices(sorted(targets), k=5))
    return ";".join("%d %d %d" % (x, y, count) for (x, y), count in sends.items())


def main():
    game, side, position, legal = "", 0, "", []
    for line in sys.stdin:
        word, _, rest = line.rstrip("\r\n").partition(" ")
        if word == "arbiter":
            print("name random-py")
            print("author Arbiter sample bots")
            print("reuse")  # it can play game after game: it keeps nothing between games
            print("ready", flush=True)
        elif word == "game":
            game = rest.split(" ")[0]
        elif word == "side":
            side = int(rest)
        elif word == "position":
            position = rest
        elif word == "legal":
            legal = rest.split(" ")
        elif word == "go":
            move = legions_move(side, position) if game == "legions" else random.choice(legal)
            print("position %s: playing %s" % (position, move), file=sys.stderr, flush=True)
            print("move " + move, flush=True)
        elif word == "quit":
            break
        # Other lines (start, opponent, time, result, anything new) are not needed here.


main()
