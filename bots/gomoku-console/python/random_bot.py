#!/usr/bin/env python3
"""Gomoku random player for the console interface (the seed's baseline).

One process per game. The bot asks, the manager answers: `figure?` gives its mark (`X`
or `0`), `step?` the opponent's last move (`--` before the opponent's first move),
`field?` the 10 field lines. `step! B7` is the bot's move (column A..J, row 0..9); the
time for it runs from the answer to `step?`. `random_bot.py INFO` prints the name and
the author on two lines and exits.
"""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

if sys.argv[1:] == ["INFO"]:
    print("Random Player")
    print("Arbiter sample bots")
    sys.exit(0)


def ask(question, n_lines=1):
    print(question, flush=True)
    lines = [sys.stdin.readline() for _ in range(n_lines)]
    if not lines[-1]:
        sys.exit(0)  # the manager has gone: the game is over
    return [line.strip() for line in lines]


figure = ask("figure?")[0]
while True:
    last = ask("step?")[0]
    rows = ask("field?", 10)
    empty = [(row, col) for row in range(10) for col in range(10) if rows[row][col] == "."]
    row, col = random.choice(empty)
    move = "ABCDEFGHIJ"[col] + str(row)
    print(f"{figure} after {last}: {move} of {len(empty)} empty cells", file=sys.stderr, flush=True)
    print(f"step! {move}", flush=True)
