#!/usr/bin/env python3
"""How busy a tournament's workers were, per stage, read from its database.

    python3 docs/bench/utilisation.py RESULTS.db --jobs N

For each stage: its games, the time from the first game's start to the last game's end
(the span), the time the games took in all (each game's record: started_ms, duration_ms),
and the utilisation: game time / (N workers x span). 100% means every worker played a
game all the time; a runner that waits for a batch to end before asking the schedule for
more games leaves workers idle at every batch end. (docs/benchmarks.md)
"""
import argparse
import json
import sqlite3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("--jobs", type=int, required=True)
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    rows = db.execute("SELECT g.stage, r.record FROM games g JOIN game_records r ON r.key = g.key").fetchall()
    stages = {}
    for stage, text in rows:
        record = json.loads(text)
        start, duration = record["started_ms"], record["duration_ms"]
        stages.setdefault(stage, []).append((start, start + duration, duration))
    for stage in sorted(stages):
        games = stages[stage]
        span = max(end for _, end, _ in games) - min(start for start, _, _ in games)
        busy = sum(duration for _, _, duration in games)
        use = busy / (args.jobs * span) if span else 0.0
        print(f"stage {stage}: {len(games)} games, span {span / 1000:.2f} s, game time {busy / 1000:.2f} s, "
              f"utilisation {100 * use:.1f}% of {args.jobs} workers")


if __name__ == "__main__":
    main()
