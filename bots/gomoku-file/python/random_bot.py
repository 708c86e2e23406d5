#!/usr/bin/env python3
"""Gomoku random player for the file interface (the seed's baseline).

Started once per move as `random_bot.py X|0 FIELD-FILE ANSWER-FILE` in its own working
directory: reads the field (10 lines of `.`, `X`, `0`), writes a random empty cell
(`B7`: column A..J, row 0..9) into the answer file. `random_bot.py INFO FIELD ANSWER`
writes the name and the author on two lines instead. The working directory is kept for
the whole game, so a file there is the bot's memory between moves: here, a move count.
"""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

command, field_file, answer_file = sys.argv[1:4]
if command == "INFO":
    with open(answer_file, "w") as answer:
        answer.write("Random Player\nArbiter sample bots\n")
    sys.exit(0)

with open(field_file) as field:
    rows = field.read().split()[:10]
empty = [(row, col) for row in range(10) for col in range(10) if rows[row][col] == "."]

try:
    with open("moves.txt") as memory:
        n_moves = int(memory.read())
except (OSError, ValueError):
    n_moves = 0
n_moves += 1
with open("moves.txt", "w") as memory:
    memory.write(str(n_moves))

row, col = random.choice(empty)
move = "ABCDEFGHIJ"[col] + str(row)
print(f"move {n_moves} as {command}: {move} of {len(empty)} empty cells", file=sys.stderr)
with open(answer_file, "w") as answer:
    answer.write(move + "\n")
