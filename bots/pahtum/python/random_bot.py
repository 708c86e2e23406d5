#!/usr/bin/env python3
"""Pah-tum random player (the seed's baseline): reads the 56-character board from
stdin, puts its letter on a random empty square, writes the board to stdout."""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

board = sys.stdin.read()
rows = board.split("\n")[:7]
letter = "X" if board.count("X") == board.count("O") else "O"
empty = [(r, c) for r in range(7) for c in range(7) if rows[r][c] == "-"]
r, c = random.choice(empty)
print(f"playing {letter} at {'ABCDEFG'[r]}{c + 1}", file=sys.stderr)
rows[r] = rows[r][:c] + letter + rows[r][c + 1:]
sys.stdout.write("".join(row + "\n" for row in rows))
