"""Built-in players' moves against their seed limits (docs/benchmarks.md, "Clock"), from
a tournament's records: how many moves the player named NAME made, their time (median,
99th percentile, most), how many went past the per-move limit, the most it spent in one
game, and the games lost by a fault. Usage: python3 clock.py DB NAME"""
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); name = sys.argv[2]
times, limit, over, games, most_game, budget = [], None, 0, 0, 0.0, None
for (rec,) in db.execute("select record from game_records"):
    r = json.loads(rec)
    games += any(p["name"] == name for p in r["players"])
    for side, p in enumerate(r["players"]):
        if p["name"] != name: continue
        lim = p["limits"]["move-ms"]; limit = lim
        budget = p["limits"].get("cpu-ms") or p["limits"].get("game-ms")
        spent = sum(t["bot_us"] for t in r["turns"] if t["side"] == side) / 1000
        most_game = max(most_game, spent)
        for t in r["turns"]:
            if t["side"] == side:
                times.append(t["bot_us"] / 1000)
                over += lim is not None and t["bot_us"] > lim * 1000
if not times:
    names = sorted({p["name"] for (rec,) in db.execute("select record from game_records") for p in json.loads(rec)["players"]})
    sys.exit(f"clock.py: no moves by {name!r} in {sys.argv[1]}; its players are named {', '.join(names) or '(no games)'}")
times.sort()
q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
lost = db.execute("select count(*) from games where fault_kind is not null").fetchone()[0]
print(f"{name}: {len(times)} moves in {games} games, limit {limit} ms a move; ms median {q(.5):.0f}, p99 {q(.99):.0f}, most {times[-1]:.0f}; over the limit {over}; games lost by a fault {lost}; most spent in one game {most_game:.0f} ms (budget {budget})")
