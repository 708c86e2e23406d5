//! Ratings: Elo from scores, error bars and LOS from trinomial and pentanomial counts
//! (checked against hand computations), performance in a tournament with pairs found
//! from the game specs, and the SPRT.

use proptest::prelude::*;
use tournament::ratings::{self, Decision, Estimate, GameScore, Sprt, SprtError, Tally};
use tournament::{GameOutcome, GameSpec};

use GameScore::{Draw, Loss, Win};

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance
}

#[test]
fn elo_from_known_scores() {
    for (score, elo) in [(0.5, 0.0), (0.75, 190.848), (0.25, -190.848), (0.9, 381.697), (0.64, 100.0)] {
        let got = ratings::elo_from_score(score);
        assert!(close(got, elo, 0.5), "score {score}: {got}");
        assert!(close(ratings::score_from_elo(got), score, 1e-12), "inverse of {got}");
    }
    assert_eq!(ratings::elo_from_score(1.0), f64::INFINITY);
    assert!(close(ratings::normal_cdf(1.959_964), 0.975, 1e-6));
}

#[test]
fn no_games_no_estimate() {
    assert_eq!(Tally::new().estimate(), None);
    assert_eq!(ratings::performance(&[], 0), None);
}

#[test]
fn symmetric_results_give_zero_elo_and_even_los() {
    let mut tally = Tally::new();
    for (a, b) in [(Win, Loss), (Loss, Win), (Draw, Draw), (Win, Win), (Loss, Loss)] {
        tally.add_pair(a, b);
    }
    tally.add_game(Win);
    tally.add_game(Loss);
    let estimate = tally.estimate().expect("games");
    assert!(close(estimate.elo, 0.0, 1e-9), "{estimate:?}");
    assert!(close(estimate.los, 0.5, 1e-6), "{estimate:?}");
    assert_eq!(estimate.to_string(), format!("+0.0 ± {:.1}", estimate.error95));
    assert!(estimate.error95 > 0.0);
    assert_eq!((estimate.games, estimate.pairs), (12, 5));
    assert_eq!(estimate.wdl, [5, 2, 5]);
}

#[test]
fn trinomial_matches_a_hand_computation() {
    // 6 wins, 2 draws, 2 losses: score 0.7; per-game variance
    // (6·0.3² + 2·0.2² + 2·0.7²) / 10 = 0.16, variance of the mean 0.016.
    let mut tally = Tally::new();
    for score in [[Win; 6].as_slice(), &[Draw; 2], &[Loss; 2]].concat() {
        tally.add_game(score);
    }
    let estimate = tally.estimate().expect("games");
    let sd = 0.016f64.sqrt();
    let slope = 400.0 / (10f64.ln() * 0.7 * 0.3);
    assert!(close(estimate.elo, 147.19, 0.01), "{estimate:?}");
    assert!(close(estimate.error95, 1.959_964 * sd * slope, 1e-3), "{estimate:?}");
    // LOS: Φ(0.2 / 0.126491) = Φ(1.58114).
    assert!(close(estimate.los, 0.943_08, 1e-4), "{estimate:?}");
    assert_eq!(estimate.wdl, [6, 2, 2]);
    assert_eq!(estimate.pairs, 0);
}

#[test]
fn pentanomial_matches_a_hand_computation() {
    // Pairs with 0, ½, 1, 1½, 2 points: 0, 1, 2, 4, 3. Per pair the mean score is
    // 0.25·1 + 0.5·2 + 0.75·4 + 1·3 = 7.25 over 10 pairs: 0.725.
    let mut tally = Tally::new();
    tally.add_pair(Draw, Loss);
    tally.add_pair(Draw, Draw);
    tally.add_pair(Win, Loss);
    for _ in 0..4 {
        tally.add_pair(Win, Draw);
    }
    for _ in 0..3 {
        tally.add_pair(Win, Win);
    }
    let estimate = tally.estimate().expect("pairs");
    assert_eq!(estimate.pentanomial, [0, 1, 2, 4, 3]);
    assert_eq!((estimate.games, estimate.pairs), (20, 10));
    assert_eq!(estimate.wdl, [11, 7, 2]);
    // Variance per pair: (0.475² + 2·0.225² + 4·0.025² + 3·0.275²) / 10 = 0.055625; of
    // the mean: 0.0055625, sd 0.0745822.
    let mean = 0.725;
    let sd = 0.005_562_5f64.sqrt();
    let elo = -400.0 * (1.0f64 / mean - 1.0).log10();
    let error = 1.959_964 * sd * 400.0 / (10f64.ln() * mean * (1.0 - mean));
    assert!(close(estimate.score, mean, 1e-12));
    assert!(close(estimate.elo, elo, 1e-9) && close(elo, 168.40, 0.01), "{estimate:?}");
    assert!(close(estimate.error95, error, 1e-3) && close(error, 127.36, 0.05), "{estimate:?} {error}");
    // LOS: Φ(0.225 / 0.0745822) = Φ(3.0168).
    assert!(close(estimate.los, 0.998_72, 1e-4), "{estimate:?}");
    assert_eq!(estimate.to_string(), format!("+168.4 ± {error:.1}"));
}

#[test]
fn pairs_are_tighter_than_the_same_games_unpaired() {
    // Each pair is won once by each colour, as if the first move decided: the pair score
    // never varies, the single games do.
    let mut paired = Tally::new();
    let mut single = Tally::new();
    for idx in 0..20 {
        let (a, b) = if idx % 4 == 0 { (Win, Win) } else { (Win, Loss) };
        paired.add_pair(a, b);
        single.add_game(a);
        single.add_game(b);
    }
    let (paired, single) = (paired.estimate().unwrap(), single.estimate().unwrap());
    assert!(close(paired.elo, single.elo, 1e-9));
    assert!(paired.error95 < single.error95 / 1.5, "{paired:?} vs {single:?}");
}

#[test]
fn perfect_scores_stay_finite_with_one_virtual_draw() {
    for (score, sign) in [(Win, 1.0), (Loss, -1.0)] {
        let mut previous: Option<Estimate> = None;
        for n in [5, 20, 80] {
            let mut tally = Tally::new();
            for _ in 0..n {
                tally.add_pair(score, score);
            }
            let estimate = tally.estimate().unwrap();
            assert!(estimate.virtual_draw && estimate.elo.is_finite() && estimate.error95.is_finite(), "{estimate:?}");
            assert_eq!(estimate.score, if sign > 0.0 { 1.0 } else { 0.0 });
            assert_eq!(estimate.games, 2 * n);
            // 2n wins and a draw: score (2n + ½) / (2n + 1).
            let games = f64::from(2 * n);
            let want = sign * ratings::elo_from_score((games + 0.5) / (games + 1.0));
            assert!(close(estimate.elo, want, 1e-9), "{estimate:?}");
            assert!(estimate.los > 0.99 || estimate.los < 0.01);
            if let Some(previous) = previous {
                assert!(estimate.elo.abs() > previous.elo.abs());
            }
            previous = Some(estimate);
        }
    }
    // One pair, or results all alike, has no variance of its own.
    let mut one = Tally::new();
    one.add_pair(Win, Draw);
    let estimate = one.estimate().unwrap();
    assert!(estimate.virtual_draw && estimate.error95 > 100.0 && estimate.los < 0.99, "{estimate:?}");
    // 1½ points of 2 and a draw: 2/3.
    assert!(close(estimate.elo, ratings::elo_from_score(2.0 / 3.0), 1e-9) && estimate.score == 0.75, "{estimate:?}");
    let mut draws = Tally::new();
    draws.add_pair(Draw, Draw);
    let estimate = draws.estimate().unwrap();
    assert_eq!((estimate.elo, estimate.error95, estimate.los, estimate.virtual_draw), (0.0, 0.0, 0.5, false));
}

proptest! {
    #[test]
    fn more_of_the_same_results_narrow_the_error_bar(w in 1u32..20, d in 0u32..20, l in 1u32..20, k in 2u32..5) {
        let tally = |times: u32| {
            let mut tally = Tally::new();
            for _ in 0..times {
                for (count, score) in [(w, Win), (d, Draw), (l, Loss)] {
                    (0..count).for_each(|_| tally.add_game(score));
                }
                tally.add_pair(Win, Draw);
                tally.add_pair(Loss, Draw);
            }
            tally.estimate().unwrap()
        };
        let (one, more) = (tally(1), tally(k));
        prop_assert!((one.elo - more.elo).abs() < 1e-9);
        prop_assert!(more.error95 < one.error95);
        // The error bar shrinks as 1/√n.
        prop_assert!(close(more.error95 * f64::from(k).sqrt(), one.error95, 1e-9));
        prop_assert!((one.los > 0.5) == (one.elo > 0.0) || one.elo == 0.0);
    }

    #[test]
    fn swapping_players_mirrors_the_estimate(scores in proptest::collection::vec(0usize..3, 1..40)) {
        let of = |k: usize| [Loss, Draw, Win][k];
        let (mut a, mut b) = (Tally::new(), Tally::new());
        for chunk in scores.chunks(2) {
            match chunk {
                [x, y] => { a.add_pair(of(*x), of(*y)); b.add_pair(of(*x).flip(), of(*y).flip()); }
                [x] => { a.add_game(of(*x)); b.add_game(of(*x).flip()); }
                _ => unreachable!(),
            }
        }
        let (ea, eb) = (a.estimate().unwrap(), b.estimate().unwrap());
        prop_assert!(close(ea.elo, -eb.elo, 1e-9));
        prop_assert!(close(ea.error95, eb.error95, 1e-9));
        prop_assert!(close(ea.los, 1.0 - eb.los, 1e-6));
        prop_assert_eq!(ea.wdl, [eb.wdl[2], eb.wdl[1], eb.wdl[0]]);
    }
}

fn outcome(key: &str, match_key: &str, players: [usize; 2], opening: Option<usize>, winner: Option<usize>) -> GameOutcome {
    GameOutcome {
        spec: GameSpec { key: key.to_string(), stage: 0, round: 0, match_key: match_key.to_string(), players, opening, seed: 0 },
        winner,
        scores: None,
        fault: None,
        moves: [10, 10],
        time_ms: [0, 0],
    }
}

#[test]
fn performance_pairs_colour_swapped_games_of_one_match() {
    let results = vec![
        // Entrant 0 against 1, match m0: two openings, each played with sides swapped.
        outcome("m0/g1", "m0", [0, 1], Some(0), Some(0)),
        outcome("m0/g2", "m0", [1, 0], Some(0), None),
        outcome("m0/g3", "m0", [0, 1], Some(1), Some(1)),
        outcome("m0/g4", "m0", [1, 0], Some(1), Some(1)),
        // Against 2, default start, four games: two pairs, sorted g2 before g10.
        outcome("m1/g10", "m1", [2, 0], None, None),
        outcome("m1/g2", "m1", [0, 2], None, Some(0)),
        outcome("m1/g3", "m1", [2, 0], None, Some(0)),
        outcome("m1/g11", "m1", [0, 2], None, Some(1)),
        // Against 3, one game with no partner.
        outcome("m2/g1", "m2", [3, 0], Some(0), Some(1)),
        // Not entrant 0's game.
        outcome("m3/g1", "m3", [1, 2], None, Some(0)),
    ];
    let estimate = ratings::performance(&results, 0).expect("entrant 0 played");
    assert_eq!((estimate.games, estimate.pairs), (9, 4));
    // Pairs: m0 opening 0: win+draw = 1½; m0 opening 1: loss+win = 1; m1: g2 win with
    // g3 loss = 1, g11 loss with g10 draw = ½.
    assert_eq!(estimate.pentanomial, [0, 1, 2, 1, 0]);
    assert_eq!(estimate.wdl, [4, 2, 3]);
    // The order of the results does not matter.
    let mut reversed = results.clone();
    reversed.reverse();
    assert_eq!(ratings::performance(&reversed, 0), Some(estimate.clone()));
    // Entrant 1 sees two of the same pairs mirrored.
    let one = ratings::performance(&results, 1).expect("entrant 1 played");
    assert_eq!((one.games, one.pairs), (5, 2));
    assert_eq!(ratings::performance(&results, 7), None);
}

#[test]
fn sprt_bounds_and_decisions() {
    let sprt: Sprt = "elo0=0,elo1=5".parse().expect("valid");
    assert_eq!((sprt.alpha, sprt.beta), (0.05, 0.05));
    assert!(close(sprt.lower_bound(), -2.944, 1e-3) && close(sprt.upper_bound(), 2.944, 1e-3));
    assert_eq!(sprt.decide(&Tally::new()), Decision::Continue);

    let sprt: Sprt = "elo0=0, elo1=50, alpha=0.05, beta=0.1".parse().expect("valid");
    assert!(close(sprt.lower_bound(), (0.1f64 / 0.95).ln(), 1e-12));
    assert!(close(sprt.upper_bound(), (0.9f64 / 0.05).ln(), 1e-12));
    for (good, bad, want) in [(Win, Draw, Decision::AcceptH1), (Loss, Draw, Decision::AcceptH0)] {
        let mut tally = Tally::new();
        let mut decided = None;
        for idx in 0..1000 {
            // Mostly one way, with some noise.
            if idx % 5 == 4 {
                tally.add_pair(bad, good)
            } else {
                tally.add_pair(good, bad)
            }
            if idx % 7 == 6 {
                tally.add_pair(bad.flip(), Draw);
            }
            let decision = sprt.decide(&tally);
            if decision != Decision::Continue {
                decided = Some((decision, tally.n_pairs()));
                break;
            }
        }
        let (decision, pairs) = decided.expect("the test decides");
        assert_eq!(decision, want);
        assert!(pairs < 100, "{pairs} pairs");
    }
    // Evenly matched: the LLR drifts towards H0 (elo0 = 0 is the truth).
    let mut even = Tally::new();
    for _ in 0..200 {
        even.add_pair(Win, Loss);
        even.add_pair(Draw, Draw);
    }
    assert!(sprt.llr(&even) < 0.0);
}

#[test]
fn sprt_normal_llr_matches_a_hand_computation() {
    // Trinomial 30 wins, 40 draws, 30 losses plus ten 1½-point pairs; elo0 = 0, elo1 = 10.
    let mut tally = Tally::new();
    for (count, score) in [(30, Win), (40, Draw), (30, Loss)] {
        (0..count).for_each(|_| tally.add_game(score));
    }
    (0..10).for_each(|_| tally.add_pair(Win, Draw));
    // Regularised: empty pentanomial categories count 0.001 pair each.
    let samples = [
        (0.0, 1.0, 30.0),
        (0.5, 1.0, 40.0),
        (1.0, 1.0, 30.0),
        (0.0, 2.0, 1e-3),
        (0.5, 2.0, 1e-3),
        (1.0, 2.0, 1e-3),
        (1.5, 2.0, 10.0),
        (2.0, 2.0, 1e-3),
    ];
    let games: f64 = samples.iter().map(|s| s.1 * s.2).sum();
    let mean = samples.iter().map(|s| s.0 * s.2).sum::<f64>() / games;
    let var = samples.iter().map(|s| s.2 * (s.0 - s.1 * mean).powi(2)).sum::<f64>() / (games * games);
    let (s0, s1) = (0.5, 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0)));
    let want = (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
    assert!(close(sprt.llr_normal(&tally), want, 1e-9), "{} vs {want}", sprt.llr_normal(&tally));
}

#[test]
fn sprt_exact_and_normal_llr_agree_on_many_games() {
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
    let mut trinomial = Tally::new();
    for (count, score) in [(330, Win), (400, Draw), (270, Loss)] {
        (0..count).for_each(|_| trinomial.add_game(score));
    }
    let mut pentanomial = Tally::new();
    for (count, pair) in [(20, (Loss, Loss)), (150, (Draw, Loss)), (300, (Win, Loss)), (180, (Win, Draw)), (30, (Win, Win))] {
        (0..count).for_each(|_| pentanomial.add_pair(pair.0, pair.1));
    }
    for tally in [trinomial, pentanomial] {
        let (exact, normal) = (sprt.llr(&tally), sprt.llr_normal(&tally));
        assert!(exact > 1.0 && close(exact, normal, 0.02 * normal.abs()), "{exact} vs {normal}");
    }
}

#[test]
fn bad_sprt_texts_are_one_clear_error_each() {
    for (text, want) in [
        ("elo0=0", SprtError::Missing("elo1")),
        ("elo0=5,elo1=0", SprtError::Order),
        ("elo0=0,elo1=5,alpha=1.5", SprtError::Probability("alpha")),
        ("elo0=0,elo1=5,alpha=0.5,beta=0.5", SprtError::Sum),
        ("elo0=0,elo1=x", SprtError::NotANumber { key: "elo1".into(), value: "x".into() }),
        ("elo0=0,elo1=5,gamma=1", SprtError::UnknownKey("gamma".into())),
        ("elo0=0,elo0=1", SprtError::Twice("elo0".into())),
        ("elo0", SprtError::NotKeyValue("elo0".into())),
    ] {
        assert_eq!(text.parse::<Sprt>(), Err(want.clone()), "{text}");
        let message = want.to_string();
        assert!(!message.contains('\n') && !message.chars().next().unwrap().is_uppercase(), "{message}");
    }
}

#[test]
fn sprt_needs_more_than_a_few_games() {
    let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
    // One won pair is weak evidence, though its variance is all but zero.
    let mut won = Tally::new();
    won.add_pair(Win, Win);
    assert_eq!(sprt.decide(&won), Decision::Continue, "llr {}", sprt.llr(&won));
    assert!(sprt.llr(&won) > 0.0);
    // A drawn pair: under H1 the closest distribution keeps the draws with probability
    // p where ½p + 1·(1 − p) = s1, under H0 with probability 1; the LLR is ln p.
    let s1 = ratings::score_from_elo(200.0);
    let mut drawn = Tally::new();
    drawn.add_pair(Draw, Draw);
    let want = (2.0 * (1.0 - s1)).ln();
    assert!(close(sprt.llr(&drawn), want, 0.01), "{} vs {want}", sprt.llr(&drawn));
    for _ in 0..4 {
        drawn.add_pair(Draw, Draw);
    }
    assert!(close(sprt.llr(&drawn), 5.0 * want, 0.05), "{} vs {}", sprt.llr(&drawn), 5.0 * want);
    assert_eq!(sprt.decide(&drawn), Decision::AcceptH0);
}

/// A tally of pairs by A's points: 0, ½, 1, 1½, 2 (fastchess's Ptnml(0-2), LL first).
fn pentanomial(counts: [u32; 5]) -> Tally {
    let mut tally = Tally::new();
    let pairs = [(Loss, Loss), (Draw, Loss), (Win, Loss), (Win, Draw), (Win, Win)];
    for (count, (first, second)) in counts.into_iter().zip(pairs) {
        (0..count).for_each(|_| tally.add_pair(first, second));
    }
    tally
}

#[test]
fn normalized_elo_and_llr_match_fastchess_published_output() {
    // fastchess issue #807 (a user's match, as fastchess printed it): "Elo: -168.40 +/-
    // 73.37, nElo: -170.08 +/- 62.16 ... Games: 120 ... Ptnml(0-2): [30, 6, 18, 0, 6]".
    let estimate = pentanomial([30, 6, 18, 0, 6]).estimate().unwrap();
    assert!(close(estimate.elo, -168.40, 0.005), "{}", estimate.elo);
    assert!(close(estimate.nelo.unwrap(), -170.08, 0.005), "{:?}", estimate.nelo);
    assert!(close(estimate.nelo_error95.unwrap(), 62.16, 0.005), "{:?}", estimate.nelo_error95);
    // fastchess pull request #697 (its output, `-sprt elo0=0 elo1=5`, the normalized
    // model by default): "Ptnml(0-2): [0, 0, 1, 1, 0] ... LLR: 0.02 (-2.94, 2.94) [0.00, 5.00]".
    let sprt: Sprt = "elo0=0,elo1=5".parse().unwrap();
    assert_eq!(sprt.model, ratings::Model::Normalized, "normalized by default, as fastchess");
    let llr = sprt.llr(&pentanomial([0, 0, 1, 1, 0]));
    assert!(close(llr, 0.02, 0.005), "{llr}");
    assert!(close(sprt.lower_bound(), -2.94, 0.005) && close(sprt.upper_bound(), 2.94, 0.005));
    // Values the independent implementation of tests/chess/check_match.py computes.
    assert!(close(llr, 0.019_939_822, 1e-6), "{llr}");
    assert!(close(sprt.llr(&pentanomial([30, 6, 18, 0, 6])), -0.696_442_757, 1e-6));
    // The logistic model is another test, asked for by name.
    let logistic: Sprt = "elo0=0,elo1=5,model=logistic".parse().unwrap();
    assert_eq!(logistic.model, ratings::Model::Logistic);
    assert!((logistic.llr(&pentanomial([0, 0, 1, 1, 0])) - llr).abs() > 1e-3);
    assert_eq!("elo0=0,elo1=5,model=bayes".parse::<Sprt>(), Err(SprtError::Model("bayes".into())));
}
