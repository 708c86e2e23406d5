#!/usr/bin/env python3
"""{{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form reads). It starts as a random player: it plays a random move of the
`legal` line. Make it better in choose_move.

The referee writes one line at a time on stdin; the bot answers on stdout, one line,
flushed. Debug output goes to stderr (it is kept in the game record, per move)."""
import os
import random
import sys

# The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
# `--seed` gives the same games, move for move.
rng = random.Random(int(os.environ.get("ARBITER_SEED", "0")))


def choose_move(game, side, position, legal):
    """The move to play. `legal` lists every legal move in the game's notation; it is
    empty in a game whose moves cannot be listed (Legions), where "" is a turn
    without orders."""
    return rng.choice(legal) if legal else ""


def main():
    game, side, position, legal = "", 0, "", []
    for line in sys.stdin:
        word, _, rest = line.rstrip("\r\n").partition(" ")
        if word == "arbiter":
            print("name {{NAME}}")
            print("ready", flush=True)
        elif word == "game":
            game = rest.split(" ")[0]
        elif word == "side":
            side = int(rest)
        elif word == "seed":
            rng.seed(int(rest))
        elif word == "position":
            position, legal = rest, []
        elif word == "legal":
            legal = rest.split(" ")
        elif word == "go":
            move = choose_move(game, side, position, legal)
            print("playing %r" % move, file=sys.stderr, flush=True)
            print("move " + move, flush=True)
        elif word == "quit":
            break
        # Other lines (start, opponent, time, result, new ones) are not needed here.


main()
