#!/usr/bin/env python3
"""A small Gomocup engine in Python (Piskvork's "pbrain" protocol, docs/bots.md,
"gomocup").

The manager writes commands on stdin, the engine answers on stdout, one line each,
flushed: START 10 -> OK (or ERROR for a size it does not play), INFO key value ->
nothing, BEGIN -> its first move, TURN x,y (the opponent's move) -> its move, BOARD +
x,y,1|2 lines + DONE -> its move in that position, ABOUT -> one line of key="value"
pairs, RESTART -> an empty board and OK (a new game in the same process), END -> exit.
Moves are x,y from 0, x the column.

It plays a random empty cell next to a stone (the centre on an empty board) and says so
on a DEBUG line, which the referee keeps in the game record."""
import os
import random
import sys

# The seed this game gives this side (ARBITER_SEED): the same game seed, the same moves.
random.seed(int(os.environ.get("ARBITER_SEED", "0")))

size = 0
board = {}  # (x, y) -> 1 (own) or 2 (opponent)


def say(line):
    print(line, flush=True)


def play():
    empty = [(x, y) for x in range(size) for y in range(size) if (x, y) not in board]
    near = [(x, y) for (x, y) in empty
            if any((x + dx, y + dy) in board for dx in (-1, 0, 1) for dy in (-1, 0, 1))]
    x, y = random.choice(near) if near else (size // 2, size // 2)
    board[(x, y)] = 1
    say("DEBUG %d cells next to a stone" % len(near))
    say("%d,%d" % (x, y))


def main():
    global size
    lines = iter(sys.stdin)
    for line in lines:
        words = line.strip().replace(",", " ").split()
        command = words[0].upper() if words else ""
        if command == "START":
            if 5 <= int(words[1]) <= 20:
                size = int(words[1])
                board.clear()
                say("OK")
            else:
                say("ERROR unsupported size")
        elif command == "BEGIN":
            play()
        elif command == "TURN":
            board[(int(words[1]), int(words[2]))] = 2
            play()
        elif command == "BOARD":
            board.clear()
            for stone in lines:
                if stone.strip().upper() == "DONE":
                    break
                x, y, who = map(int, stone.split(","))
                board[(x, y)] = 1 if who == 1 else 2
            play()
        elif command == "RESTART":
            board.clear()
            say("OK")
        elif command == "ABOUT":
            say('name="Sample Brain (Python)", version="1.0", author="Arbiter sample bots", country="LV"')
        elif command == "END":
            break
        elif command not in ("INFO", ""):
            say("UNKNOWN " + line.strip())


main()
