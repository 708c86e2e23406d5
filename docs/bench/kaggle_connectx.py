"""The anchor of the "Python bots" benchmark (docs/benchmarks.md): kaggle-environments'
ConnectX (7x6, four in a row), its built-in random agent against itself, whole games
run in-process, one after the other. Prints games per second.

Run in a scratch virtual environment (not a dependency of Arbiter or of its CI):
    python3 -m venv /tmp/kaggle-venv && /tmp/kaggle-venv/bin/pip install kaggle-environments
    /tmp/kaggle-venv/bin/python docs/bench/kaggle_connectx.py 300
"""
import sys
import time

from kaggle_environments import make

games = int(sys.argv[1]) if len(sys.argv) > 1 else 300
env = make("connectx", debug=False)
env.run(["random", "random"])  # warm-up: imports and the first game's set-up
began = time.perf_counter()
moves = 0
for _ in range(games):
    steps = env.run(["random", "random"])  # starts from a reset board each time
    moves += len(steps) - 1
seconds = time.perf_counter() - began
print(f"kaggle-environments connectx random vs random: {games} games, {moves} moves in {seconds:.2f} s: {games / seconds:.1f} games/s")
