"""Pah-tum, one ply of lookahead (as greedy_pahtum.c): the most points gained plus
denied, ties broken by own neighbours, then reading order."""
import sys

VAL = [0, 0, 0, 3, 10, 25, 56, 119]


def lines(b, letter):
    s = 0
    for i in range(7):
        h = v = 0
        for j in range(8):
            if j < 7 and b[i][j] == letter:
                h += 1
            else:
                s, h = s + VAL[h], 0
            if j < 7 and b[j][i] == letter:
                v += 1
            else:
                s, v = s + VAL[v], 0
    return s


b = [list(row) for row in sys.stdin.read().split("\n")[:7]]
flat = "".join("".join(row) for row in b)
me = "X" if flat.count("X") == flat.count("O") else "O"
them = "O" if me == "X" else "X"
mine, theirs = lines(b, me), lines(b, them)
best = None
for i in range(7):
    for j in range(7):
        if b[i][j] != "-":
            continue
        b[i][j] = me
        g = lines(b, me) - mine
        b[i][j] = them
        g += lines(b, them) - theirs
        b[i][j] = "-"
        n = sum(1 for (y, x) in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)) if 0 <= y < 7 and 0 <= x < 7 and b[y][x] == me)
        if best is None or g * 8 + n > best[0]:
            best = (g * 8 + n, i, j)
_, i, j = best
b[i][j] = me
sys.stdout.write("".join("".join(row) + "\n" for row in b))
