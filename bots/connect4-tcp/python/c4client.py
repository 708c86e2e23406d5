"""Connect Four TCP client library (docs/protocols/connect4-tcp.md).

A player is an object with a `name` and three methods, the seed's API:
  wake(width, height, i_start)   a game starts; i_start is True when you move first
  move(board, last_move) -> int  your turn: return a column 0..width-1
  game_over(result)              the game ended: "win", "loss" or "draw"
`board[x][y]` is the cell at column x (0 = left), row y (0 = bottom): EMPTY, MINE or
OPPONENT. `last_move` is the opponent's last column, or -1 when you move first; it is
already on the board. One connection plays any number of games.

run(player) connects to the address given as the first command-line argument, or else
in the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.
"""
import os
import socket
import sys

EMPTY, MINE, OPPONENT = 0, 1, 2
_CELLS = {".": EMPTY, "M": MINE, "T": OPPONENT}


def address():
    """host, port from argv[1], ARBITER_ADDR or the default."""
    text = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ARBITER_ADDR", "127.0.0.1:4000")
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def parse_board(text):
    """board[x][y] from the rows of a `move` line (top row first, joined by '/')."""
    rows = text.split("/")
    height = len(rows)
    return [[_CELLS[rows[height - 1 - y][x]] for y in range(height)] for x in range(len(rows[0]))]


def run(player, addr=None):
    """Plays games for `player` until the server says bye or closes the connection."""
    sock = socket.create_connection(addr or address())
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    server = sock.makefile("r", encoding="ascii", newline="\n")
    out = sock.makefile("w", encoding="utf-8", newline="\n")
    for line in server:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            out.write("name %s\n" % player.name)
        elif words[0] == "wake":
            player.wake(int(words[1]), int(words[2]), words[3] == "1")
        elif words[0] == "move":
            column = player.move(parse_board(words[2]), int(words[1]))
            out.write("%d\n" % column)
        elif words[0] == "over":
            player.game_over(words[1])
        elif words[0] == "bye":
            break
        out.flush()
    sock.close()
