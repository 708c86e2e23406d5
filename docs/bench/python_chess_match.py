"""An engine match run the way many people run one from Python: python-chess's engine
driver (`chess.engine.SimpleEngine`), the engines kept from game to game, games from an
EPD book with the colours swapped in pairs, JOBS games at a time (a thread each, with
its own two engines), at a node limit or under a clock with increment that this runner
keeps as a referee would (a move that takes longer than its clock loses on time). The
side of `scripts/bench-chess` that Arbiter is compared with.

    python_chess_match.py ENGINE_CMD GAMES JOBS BOOK.epd (nodes=N | tc=BASE+INC)

Prints one JSON line: games, seconds, moves, the runner's wall-clock time per move
(its call to the engine, the move played and the game's end checked), time losses,
and the results.
"""

import json
import shlex
import sys
import threading
import time

import chess
import chess.engine


def main():
    command, games, jobs, book, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    fens = [line.strip() for line in open(book, encoding="utf-8") if line.strip() and not line.startswith("#")]
    kind, value = limit.split("=", 1)
    if kind == "nodes":
        nodes, base, inc = int(value), None, None
    else:
        nodes = None
        base, inc = (float(x) for x in value.split("+"))
    lock = threading.Lock()
    next_game = [0]
    totals = {"moves": 0, "move_seconds": 0.0, "time_losses": 0, "results": {}}

    def worker():
        engines = [chess.engine.SimpleEngine.popen_uci(shlex.split(command)) for _ in range(2)]
        for engine in engines:
            # Stockfish's settings, as the manifest gives them; an engine without these
            # options (the instant engine) is refused them by python-chess.
            engine.configure({name: value for name, value in {"Hash": 16, "Threads": 1}.items() if name in engine.options})
        try:
            while True:
                with lock:
                    index = next_game[0]
                    next_game[0] += 1
                if index >= games:
                    return
                board = chess.Board(fens[(index // 2) % len(fens)])
                # Engine 0 plays White in even games, Black in odd ones.
                white, black = (engines[0], engines[1]) if index % 2 == 0 else (engines[1], engines[0])
                clock = {chess.WHITE: base, chess.BLACK: base}
                moves, seconds, result = 0, 0.0, None
                while result is None:
                    side = board.turn
                    engine = white if side == chess.WHITE else black
                    if nodes is not None:
                        chosen = chess.engine.Limit(nodes=nodes)
                    else:
                        chosen = chess.engine.Limit(
                            white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK], white_inc=inc, black_inc=inc
                        )
                    began = time.perf_counter()
                    played = engine.play(board, chosen, game=index)
                    board.push(played.move)
                    outcome = board.outcome(claim_draw=True)
                    took = time.perf_counter() - began
                    moves += 1
                    seconds += took
                    if base is not None:
                        clock[side] -= took
                        if clock[side] < 0:
                            result = "time-loss"
                            break
                        clock[side] += inc
                    if outcome is not None:
                        result = outcome.result()
                with lock:
                    totals["moves"] += moves
                    totals["move_seconds"] += seconds
                    totals["time_losses"] += result == "time-loss"
                    totals["results"][result] = totals["results"].get(result, 0) + 1
        finally:
            for engine in engines:
                engine.quit()

    began = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    print(
        json.dumps(
            {
                "games": games,
                "seconds": elapsed,
                "moves": totals["moves"],
                "us_per_move": 1e6 * totals["move_seconds"] / max(1, totals["moves"]),
                "time_losses": totals["time_losses"],
                "results": totals["results"],
            }
        )
    )


if __name__ == "__main__":
    main()
