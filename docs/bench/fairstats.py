"""The turns of a fairness round robin (docs/bench/fair-*.toml): the wait for a CPU given
back per turn, the steal given back (the machine's host taking its CPUs), the turns whose
wall time passed the 50 ms limit, games lost on time.
Usage: python3 docs/bench/fairstats.py DB"""
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
waits, steals, over_wall, over_bot, over_no_steal, turns = [], [], 0, 0, 0, 0
for (rec,) in db.execute("select record from game_records"):
    for t in json.loads(rec)["turns"]:
        if "bot_us" not in t: continue
        turns += 1
        w, s = t.get("wait_us", 0), t.get("steal_us", 0)
        waits.append(w - s)
        if s: steals.append((s, t["bot_us"], t.get("cpu_us", 0), w - s))
        if t["bot_us"] + w > 50000: over_wall += 1
        if t["bot_us"] + s > 50000: over_no_steal += 1
        if t["bot_us"] > 50000: over_bot += 1
waits.sort()
q = lambda p: waits[min(len(waits)-1, int(p*len(waits)))]/1000
print(f"turns {turns}; wait ms median {q(.5):.1f} p99 {q(.99):.1f} max {waits[-1]/1000:.1f}; wall>50ms kept {over_wall}; bot_us>50ms {over_bot}")
print(f"steal given back in {len(steals)} turns, {sum(s for s, *_ in steals)/1000:.1f} ms in all; turns over 50 ms but for it: {over_no_steal}")
for s, bot, cpu, w in sorted(steals, reverse=True)[:10]:
    print(f"  steal {s/1000:.1f} ms: bot {bot/1000:.1f} ms charged, cpu {cpu/1000:.1f} ms, wait {w/1000:.1f} ms")
print("timeouts", db.execute("select count(*) from games where fault_kind='timeout'").fetchone()[0])
