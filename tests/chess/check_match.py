"""Checks an `arbiter match --json --pgn` run against statistics computed here, apart
from Arbiter's code: the games are read back from the PGN by python-chess (an
independent PGN reader), each game replayed by its rules to its result, paired as the
match pairs them (games 2k and 2k+1 of the Round tags, the colours swapped), and the
pentanomial counts, the normalized Elo (nElo) and the SPRT's log-likelihood ratio are
computed by the formulas fastchess publishes and uses (Michel Van den Bergh, "Comments
on Normalized Elo", section 4.1, for the LLR; fastchess's nElo and its 95% interval).

    check_match.py SUMMARY.json GAMES.pgn PLAYER_A ELO0 ELO1

Prints what it computed (with A's wins, draws and losses) and exits 1 on any
disagreement with the summary; without an SPRT in the summary, ELO0 and ELO1 are unused.
"""

import json
import math
import sys

import chess
import chess.pgn


def read_games(path):
    """Each game: (round, white, black, result), the result checked against the moves."""
    games = []
    with open(path, encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            if game.errors:
                raise SystemExit(f"game {game.headers.get('Round')}: python-chess read errors: {game.errors}")
            board = game.end().board()
            result = game.headers["Result"]
            termination = game.headers.get("Termination")
            if termination == "normal":
                # A game over by the rules: python-chess's own verdict must be the same
                # (draws as fastchess decides them: automatic at the third repetition).
                outcome = board.outcome(claim_draw=True)
                if outcome is None or outcome.result() != result:
                    raise SystemExit(f"game {game.headers['Round']}: {result} but python-chess finds {outcome}")
            games.append((int(game.headers["Round"]), game.headers["White"], game.headers["Black"], result))
    return sorted(games)


def score_for(player, game):
    _, white, black, result = game
    points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}[result]
    if player == white:
        return points[0]
    if player == black:
        return points[1]
    raise SystemExit(f"{player} did not play game {game}")


def closest_with_t(scores, phat, t):
    """The maximum-likelihood distribution over `scores` with (mu - 1/2) / sigma = t:
    the paper's iteration from the uniform distribution, theta found by bisection."""
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(10000):
        mu = sum(a * q for a, q in zip(scores, p))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p)))
        phi = [a - 0.5 - 0.5 * t * sigma * (1 + ((a - mu) / sigma) ** 2) for a in scores]
        lo, hi = -1.0 / max(phi), -1.0 / min(phi)
        for _ in range(300):
            mid = (lo + hi) / 2
            if sum(q * f / (1 + mid * f) for q, f in zip(phat, phi)) > 0:
                lo = mid
            else:
                hi = mid
        theta = (lo + hi) / 2
        new = [q / (1 + theta * f) for q, f in zip(phat, phi)]
        moved = max(abs(a - b) for a, b in zip(new, p))
        p = new
        if moved < 1e-13:
            break
    return p


def main():
    summary_path, pgn_path, player, elo0, elo1 = sys.argv[1:6]
    elo0, elo1 = float(elo0), float(elo1)
    summary = json.load(open(summary_path, encoding="utf-8"))
    # The pairs the summary counts are the first ones; games of later pairs that ended
    # before the test stopped the match may be in the PGN too.
    counted = 2 * summary["pairs"]
    games = [g for g in read_games(pgn_path) if g[0] <= counted]
    rounds = [g[0] for g in games]
    if rounds != list(range(1, counted + 1)):
        raise SystemExit(f"the PGN's rounds are {rounds}, not 1..{counted}")
    penta = [0] * 5
    for k in range(len(games) // 2):
        first, second = games[2 * k], games[2 * k + 1]
        if (first[1], first[2]) != (second[2], second[1]):
            raise SystemExit(f"games {first[0]} and {second[0]} do not swap colours")
        penta[int(2 * (score_for(player, first) + score_for(player, second)))] += 1
    pairs = sum(penta)
    problems = []
    if penta != summary["pentanomial"]:
        problems.append(f"pentanomial {penta} here, {summary['pentanomial']} in the summary")
    # fastchess's nElo: the per-game score of a pair, its mean and variance per pair.
    probs = [c / pairs for c in penta]
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    score = sum(v * q for v, q in zip(values, probs))
    variance = sum(q * (v - score) ** 2 for v, q in zip(values, probs))
    scale = 800 / math.log(10)
    estimate = summary["estimate"]
    if variance > 0:
        nelo = (score - 0.5) / math.sqrt(2 * variance) * scale
        upper = score + 1.959963984540054 * math.sqrt(variance / pairs)
        lower = score - 1.959963984540054 * math.sqrt(variance / pairs)
        nelo_error = ((upper - 0.5) - (lower - 0.5)) / math.sqrt(2 * variance) * scale / 2
        for name, here, there in [("nElo", nelo, estimate["nelo"]), ("nElo error", nelo_error, estimate["nelo_error95"])]:
            if there is None or abs(here - there) > 1e-6:
                problems.append(f"{name} {here} here, {there} in the summary")
    else:
        # Every pair alike: no deviation, no normalized Elo.
        nelo, nelo_error = float("nan"), float("nan")
        if estimate["nelo"] is not None:
            problems.append(f"no nElo here (every pair alike), {estimate['nelo']} in the summary")
    # The normalized SPRT on the pentanomial, every empty category 0.001 of a pair.
    llr, decision = float("nan"), "-"
    if summary.get("sprt"):
        regular = [c if c > 0 else 1e-3 for c in penta]
        total = sum(regular)
        phat = [c / total for c in regular]
        t0, t1 = math.sqrt(2) * elo0 / scale, math.sqrt(2) * elo1 / scale
        p0, p1 = closest_with_t(values, phat, t0), closest_with_t(values, phat, t1)
        llr = total * sum(q * math.log(b / a) for q, a, b in zip(phat, p0, p1))
        there = summary["sprt"]["llr"]
        if abs(llr - there) > 1e-6 * max(1.0, abs(llr)):
            problems.append(f"LLR {llr} here, {there} in the summary")
        lower_bound, upper_bound = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
        decision = "accept-h1" if llr >= upper_bound else "accept-h0" if llr <= lower_bound else "continue"
        if decision != summary["sprt"]["decision"]:
            problems.append(f"decision {decision} here, {summary['sprt']['decision']} in the summary")
    wins = sum(score_for(player, g) == 1.0 for g in games)
    draws = sum(score_for(player, g) == 0.5 for g in games)
    losses = len(games) - wins - draws
    if [wins, draws, losses] != [summary["wins"], summary["draws"], summary["losses"]]:
        problems.append(f"+{wins} ={draws} -{losses} here, +{summary['wins']} ={summary['draws']} -{summary['losses']} in the summary")
    print(f"{len(games)} games, +{wins} ={draws} -{losses}, {pairs} pairs, pentanomial {penta}, nElo {nelo:+.3f} +/- {nelo_error:.3f}, LLR {llr:.4f} ({decision})")
    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
