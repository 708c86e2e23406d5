#!/usr/bin/env python3
"""Connect Four random player (the seed's baseline) over TCP: drops its disc into a
random column that has room, from the seed in ARBITER_SEED (the same game seed, the
same moves). Debug output goes to stderr."""
import os
import random
import sys

import c4client


class RandomPlayer:
    name = "random-py"

    def __init__(self):
        self.rng = random.Random(int(os.environ.get("ARBITER_SEED", "0")))

    def wake(self, width, height, i_start):
        self.height = height
        print(f"new game {width}x{height}, {'I' if i_start else 'they'} start", file=sys.stderr)

    def move(self, board, last_move):
        open_columns = [x for x, column in enumerate(board) if column[self.height - 1] == c4client.EMPTY]
        column = self.rng.choice(open_columns)
        print(f"they played {last_move}, I play {column}", file=sys.stderr)
        return column

    def game_over(self, result):
        print(f"game over: {result}", file=sys.stderr)


c4client.run(RandomPlayer())
