#!/usr/bin/env python3
"""Nupud random player: one process per call. `place white|black`: a random set-up (a
permutation of 432111, file a first). `move white|black` and the board: a uniformly
random legal move, e.g. `c1c3`. Empty stdin: prints its name."""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

lines = sys.stdin.read().split("\n")
if not lines[0].strip():
    print("random-py")
    sys.exit()

verb, side = lines[0].split()
if verb == "place":
    values = list("432111")
    random.shuffle(values)
    print(f"{side}: set-up {''.join(values)}", file=sys.stderr)
    print("".join(values))
    sys.exit()

me = "W" if side == "white" else "B"
ahead = 1 if me == "W" else -1  # White moves up the ranks, Black down
board = {}  # (file, rank) -> cell, both from 0; lines hold rank 6 first
for row in range(6):
    for file, cell in enumerate(lines[1 + row].split(" ")):
        board[(file, 5 - row)] = cell


def square(file, rank):
    return "abcdef"[file] + str(rank + 1)


moves = []
for (file, rank), cell in board.items():
    if cell[0] != me:
        continue
    value = int(cell[1])
    if value == 1:
        # One step forward onto an empty square, or a diagonal capture.
        if board.get((file, rank + ahead)) == ".":
            moves.append((file, rank, file, rank + ahead))
        for side_step in (-1, 1):
            target = board.get((file + side_step, rank + ahead))
            if target not in (None, ".") and target[0] != me:
                moves.append((file, rank, file + side_step, rank + ahead))
    else:
        # 1 to value squares straight forward, stopping at the first piece.
        for k in range(1, value + 1):
            target = board.get((file, rank + k * ahead))
            if target is None or target[0] == me:
                break
            moves.append((file, rank, file, rank + k * ahead))
            if target != ".":
                break

f, r, tf, tr = random.choice(moves)
move = square(f, r) + square(tf, tr)
print(f"{side}: {len(moves)} legal moves, playing {move}", file=sys.stderr)
print(move)
