//! The config reader: every preset parses to what its seed describes, and bad configs
//! give one clear line each.

use std::path::{Path, PathBuf};

use rules::GameKind;
use tournament::config::{ConfigError, Format, OpeningsConfig, Scoring, StageFormat, TieBreak, TournamentConfig};

fn presets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets")
}

fn preset(name: &str) -> TournamentConfig {
    let path = presets_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    TournamentConfig::parse(&text, name).unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn every_preset_parses_and_its_bots_exist() {
    let mut n = 0;
    for entry in std::fs::read_dir(presets_dir()).expect("presets/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|ext| ext != "toml") {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).expect("utf-8 name").to_string();
        let config = preset(&name);
        n += 1;
        assert!(config.entrants.len() >= 4, "{name}: too few default entrants");
        for entrant in &config.entrants {
            if entrant.bot != "random" && entrant.bot != "greedy" {
                let manifest = presets_dir().join(&entrant.bot).join("bot.toml");
                assert!(manifest.is_file(), "{name}: {} is missing", manifest.display());
            }
        }
        for stage in &config.stages {
            if let Some(file) = &stage.openings.file {
                let text = std::fs::read_to_string(presets_dir().join(file)).expect("openings file");
                let options = config.stages.iter().find(|s| s.name == stage.name).and_then(|s| s.options.clone()).unwrap_or_default();
                let positions = tournament::openings::parse_file_with(config.game, &options, &text).expect("openings parse");
                assert!(!positions.is_empty());
            }
        }
    }
    // The seeds' five, and one for each game added beside them.
    assert!(n >= 5, "the seeds' presets are there: {n}");
}

#[test]
fn gomoku_2004() {
    let config = preset("gomoku-2004.toml");
    assert_eq!(config.game, GameKind::Gomoku);
    let formats: Vec<Format> = config.stages.iter().map(|s| s.format.kind()).collect();
    assert_eq!(formats, [Format::EntryCheck, Format::RoundRobin, Format::Final]);
    let [entry, rr, fin] = &config.stages[..] else { unreachable!() };
    assert_eq!(entry.format, StageFormat::EntryCheck { baseline: "random".to_string() });
    assert_eq!((rr.deals, rr.swap, rr.scoring), (5, true, Scoring::Game210));
    assert_eq!(rr.openings, OpeningsConfig { default: true, file: Some("gomoku-2004-openings.txt".into()), generate: None });
    assert_eq!(rr.tie_breaks, [TieBreak::ExtraGames, TieBreak::Submission]);
    assert_eq!((&fin.format, fin.deals, fin.scoring), (&StageFormat::Final { top: 3, cycles: 1 }, 3, Scoring::Game210));
    assert_eq!(fin.openings, OpeningsConfig { default: true, file: None, generate: Some(2) });
}

#[test]
fn legions() {
    let config = preset("legions.toml");
    let [groups, bracket] = &config.stages[..] else { panic!("two stages") };
    assert_eq!((&groups.format, groups.scoring), (&StageFormat::Groups { groups: 2, cycles: 1 }, Scoring::ScoreSum));
    assert_eq!(groups.tie_breaks, [TieBreak::Submission]);
    assert_eq!((&bracket.format, bracket.deals, bracket.swap), (&StageFormat::DoubleElimination { extra_deals: 1 }, 1, true));
    assert_eq!(config.options.get("size").map(String::as_str), Some("17"));
    assert!(config.entrants.iter().all(|e| e.submitted.is_some()));
}

#[test]
fn connect4_2008() {
    let config = preset("connect4-2008.toml");
    let sizes: Vec<(String, String)> = config
        .stages
        .iter()
        .map(|s| {
            let o = s.options.as_ref().expect("per-stage options");
            (o["width"].clone(), o["height"].clone())
        })
        .collect();
    assert_eq!(sizes, [("7".into(), "6".into()), ("20".into(), "20".into())]);
    assert!(config.stages.iter().all(|s| s.format.kind() == Format::RoundRobin && s.scoring == Scoring::Game1Half0 && s.swap));
}

#[test]
fn pahtum_2019() {
    let config = preset("pahtum-2019.toml");
    let [stage] = &config.stages[..] else { panic!("one stage") };
    assert_eq!((stage.matches, stage.deals, stage.swap, stage.scoring), (5, 1, true, Scoring::Match310));
    assert_eq!(stage.openings, OpeningsConfig { default: false, file: None, generate: Some(5) });
    assert_eq!(stage.games_per_meeting(), 10);
}

#[test]
fn nupud_1995() {
    let config = preset("nupud-1995.toml");
    let [stage] = &config.stages[..] else { panic!("one stage") };
    assert_eq!((stage.format.kind(), stage.games_per_meeting(), stage.scoring), (Format::RoundRobin, 2, Scoring::Game1Half0));
}

#[test]
fn defaults() {
    let text = "game = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n[[stage]]\nformat = \"round-robin\"\n";
    let config = TournamentConfig::parse(text, "dir/my-cup.toml").expect("valid");
    assert_eq!((config.name.as_str(), config.seed), ("my-cup", 0));
    let stage = &config.stages[0];
    assert_eq!(stage.name, "round-robin");
    assert_eq!((&stage.format, stage.matches, stage.deals, stage.swap), (&StageFormat::RoundRobin { cycles: 1 }, 1, 1, true));
    assert_eq!(stage.openings, OpeningsConfig { default: true, file: None, generate: None });
    assert_eq!(stage.scoring, Scoring::Game1Half0);
    assert_eq!(stage.tie_breaks, [TieBreak::HeadToHead, TieBreak::SonnebornBerger, TieBreak::Submission]);
    assert!(stage.allow_replacement);
    // The format-specific settings of other formats have no place in a round robin's.
    assert_eq!((stage.format.top(), stage.format.baseline(), stage.format.extra_deals()), (None, None, 0));
}

#[test]
fn stage_limits_override_the_tournament_s_key_by_key() {
    let text = "game = \"gomoku\"\nbots = \"bots\"\n[limits]\nmove-ms = 5000\nmemory-mb = 64\n\
                [[stage]]\nformat = \"round-robin\"\n[stage.limits]\nmove-ms = 1000\n";
    let config = TournamentConfig::parse(text, "t.toml").expect("valid");
    assert_eq!(config.limits.move_ms, Some(5000));
    assert_eq!((config.stages[0].limits.move_ms, config.stages[0].limits.memory_mb), (Some(1000), Some(64)));
}

#[test]
fn no_entrants_is_allowed_for_a_runner_given_them_elsewhere() {
    let text = "game = \"gomoku\"\n[[stage]]\nformat = \"round-robin\"\n";
    assert!(TournamentConfig::parse(text, "t.toml").is_err());
    assert!(TournamentConfig::parse_without_entrants(text, "t.toml").is_ok());
}

/// A valid head: two entrants, a game; each case appends to it or replaces it.
const HEAD: &str = "name = \"t\"\ngame = \"gomoku\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n";
const RR: &str = "[[stage]]\nformat = \"round-robin\"\n";

#[test]
fn bad_configs_give_one_line_each() {
    let head = |tail: &str| format!("{HEAD}{tail}");
    let names: Vec<&str> = rules::GameKind::ALL.iter().map(|kind| kind.name()).collect();
    let unknown_game = format!("t.toml: line 1: unknown game \"checkers\" (known: {})", names.join(", "));
    let cases: Vec<(&str, String, &str)> = vec![
        ("unknown game", format!("game = \"checkers\"\n[[entrant]]\nbot = \"random\"\n{RR}"), &unknown_game),
        ("missing game", format!("[[entrant]]\nbot = \"random\"\n{RR}"), "t.toml: line 1: missing key \"game\""),
        ("missing bot key", head(&format!("[[entrant]]\nname = \"x\"\n{RR}")), "t.toml: line 7: missing key \"bot\""),
        (
            "group count 3",
            head("[[stage]]\nformat = \"groups\"\ngroups = 3\n"),
            "t.toml: line 9: groups = 3: must be a power of two (1, 2, 4, 8, ...)",
        ),
        ("unknown key", head("[[stage]]\nformat = \"round-robin\"\ndeal = 5\n"), "t.toml: line 9: unknown key \"deal\": expected one of"),
        ("unknown top-level key", format!("colour = 1\n{HEAD}{RR}"), "t.toml: line 1: unknown key \"colour\": expected one of"),
        (
            "wrong type",
            head("[[stage]]\nformat = \"round-robin\"\ndeals = \"five\"\n"),
            "t.toml: line 9: deals: invalid type: string \"five\", expected a whole number",
        ),
        (
            "top on a round robin",
            head("[[stage]]\nformat = \"round-robin\"\ntop = 3\n"),
            "t.toml: line 9: `top` is not used by a round-robin stage",
        ),
        (
            "groups on a final",
            head(&format!("{RR}[[stage]]\nformat = \"final\"\ntop = 2\ngroups = 2\n")),
            "t.toml: line 12: `groups` is not used by a final stage",
        ),
        ("final without top", head(&format!("{RR}[[stage]]\nformat = \"final\"\n")), "t.toml: line 10: a final stage needs `top`"),
        ("groups without groups", head("[[stage]]\nformat = \"groups\"\n"), "t.toml: line 8: a groups stage needs `groups`"),
        ("gauntlet without challenger", head("[[stage]]\nformat = \"gauntlet\"\n"), "t.toml: line 8: a gauntlet stage needs `challenger`"),
        (
            "final first",
            head("[[stage]]\nformat = \"final\"\ntop = 2\n"),
            "t.toml: line 8: format = \"final\" needs a previous stage's ranking: it cannot be the first stage",
        ),
        (
            "double elimination first",
            head("[[stage]]\nformat = \"double-elimination\"\n"),
            "t.toml: line 8: format = \"double-elimination\" needs a previous stage's ranking: it cannot be the first stage",
        ),
        (
            "unknown format",
            head("[[stage]]\nformat = \"knockout\"\n"),
            "t.toml: line 8: format: unknown value \"knockout\": expected one of",
        ),
        (
            "duplicate names",
            format!("game = \"gomoku\"\n[[entrant]]\nname = \"a\"\nbot = \"random\"\n[[entrant]]\nname = \"a\"\nbot = \"greedy\"\n{RR}"),
            "t.toml: line 6: two entrants are named \"a\"",
        ),
        (
            "the same built-in twice",
            format!("game = \"gomoku\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"random\"\n{RR}"),
            "t.toml: line 5: two entrants are named \"random\": give this one a `name`",
        ),
        (
            "the same bot twice",
            format!("game = \"gomoku\"\n[[entrant]]\nbot = \"bots/a\"\n[[entrant]]\nbot = \"bots/a\"\n{RR}"),
            "t.toml: line 5: bot \"bots/a\" is listed twice without a name: give one a `name`",
        ),
        (
            "perfect in gomoku",
            format!("game = \"gomoku\"\n[[entrant]]\nbot = \"perfect\"\n{RR}"),
            "t.toml: line 3: bot = \"perfect\": built-in player perfect plays connect4 7x6 only, not this gomoku",
        ),
        (
            "a bad node limit",
            format!("game = \"gomoku\"\n[[entrant]]\nbot = \"strong:many\"\n{RR}"),
            "t.toml: line 3: built-in player \"strong:many\": the node limit after ':' must be a whole number above 0",
        ),
        ("no entrants", format!("game = \"gomoku\"\n{RR}"), "t.toml: no entrants: add [[entrant]] tables or a `bots` folder"),
        ("no stages", HEAD.to_string(), "t.toml: no stages: add at least one [[stage]] table"),
        ("zero deals", head("[[stage]]\nformat = \"round-robin\"\ndeals = 0\n"), "t.toml: line 9: deals = 0: must be at least 1"),
        ("zero matches", head("[[stage]]\nformat = \"round-robin\"\nmatches = 0\n"), "t.toml: line 9: matches = 0: must be at least 1"),
        ("zero cycles", head("[[stage]]\nformat = \"round-robin\"\ncycles = 0\n"), "t.toml: line 9: cycles = 0: must be at least 1"),
        (
            "generate for legions",
            "game = \"legions\"\nbots = \"b\"\n[[stage]]\nformat = \"round-robin\"\nopenings = { generate = 3 }\n".to_string(),
            "t.toml: line 5: generate: game legions has no generated openings (only gomoku, connect4 and pahtum have them)",
        ),
        (
            "score-sum for gomoku",
            head("[[stage]]\nformat = \"round-robin\"\nscoring = \"score-sum\"\n"),
            "t.toml: line 9: scoring = \"score-sum\": gomoku games have no scores (use game-2-1-0 or game-1-half-0)",
        ),
        (
            "match-3-1-0 for connect4",
            "game = \"connect4\"\nbots = \"b\"\n[[stage]]\nformat = \"round-robin\"\nscoring = \"match-3-1-0\"\n".to_string(),
            "t.toml: line 5: scoring = \"match-3-1-0\": connect4 games have no scores (use game-2-1-0 or game-1-half-0)",
        ),
        (
            "bad game option",
            format!("game = \"connect4\"\nbots = \"b\"\n[options]\nwidth = 40\n{RR}"),
            "t.toml: line 4: option width=\"40\": must be between 4 and 32",
        ),
        (
            "unknown game option",
            format!("game = \"connect4\"\nbots = \"b\"\n{RR}options = {{ size = 9 }}\n"),
            "t.toml: line 5: game connect4 has no option \"size\" (its options: width, height)",
        ),
        (
            "even blocked squares",
            format!("game = \"pahtum\"\nbots = \"b\"\n[options]\nblocked = 4\n{RR}"),
            "t.toml: line 4: option blocked=\"4\": must be odd, so that the number of playable squares is even",
        ),
        (
            "no openings at all",
            head("[[stage]]\nformat = \"round-robin\"\nopenings = { default = false }\n"),
            "t.toml: line 9: openings: no start positions (set default = true, a file or generate)",
        ),
        (
            "extra games in a bracket",
            head(&format!("{RR}[[stage]]\nformat = \"double-elimination\"\ntie-breaks = [\"extra-games\"]\n")),
            "t.toml: line 11: tie-break extra-games is for round-robin, groups and final stages, not a double-elimination stage",
        ),
        (
            "tie-break twice",
            head("[[stage]]\nformat = \"round-robin\"\ntie-breaks = [\"submission\", \"submission\"]\n"),
            "t.toml: line 9: tie-break submission is listed twice",
        ),
        (
            "unknown tie-break",
            head("[[stage]]\nformat = \"round-robin\"\ntie-breaks = [\"coin\"]\n"),
            "t.toml: line 9: tie-breaks: unknown value \"coin\"",
        ),
        (
            "too many groups for the entrants",
            head("[[stage]]\nformat = \"groups\"\ngroups = 2\n"),
            "t.toml: line 9: groups = 2 needs at least 4 entrants (2 a group); the config lists 2",
        ),
        (
            "top above the entrants",
            head(&format!("{RR}[[stage]]\nformat = \"final\"\ntop = 3\n")),
            "t.toml: line 11: top = 3: the config lists only 2 entrants",
        ),
        (
            "two stages with one name",
            head(&format!("{RR}{RR}")),
            "t.toml: line 9: two stages are named \"round-robin\": give each its own `name`",
        ),
        ("negative seed", format!("seed = -1\n{HEAD}{RR}"), "t.toml: line 1: seed = -1: must not be negative"),
        ("zero limit", head(&format!("[limits]\nmove-ms = 0\n{RR}")), "t.toml: line 8: move-ms = 0: must be at least 1"),
        ("unknown limit", head(&format!("[limits]\nmove = 5\n{RR}")), "t.toml: line 8: unknown key \"move\": expected one of"),
        ("not toml", "game = \n".to_string(), "t.toml: line 1: "),
    ];
    let mut failures = Vec::new();
    for (what, text, expected) in &cases {
        let got = match TournamentConfig::parse(text, "t.toml") {
            Ok(_) => "accepted".to_string(),
            Err(err) => err.to_string(),
        };
        if !got.starts_with(expected) || got.contains('\n') {
            failures.push(format!("{what}:\n  expected {expected}\n  got      {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_are_typed() {
    let err = TournamentConfig::parse(&format!("{HEAD}[[stage]]\nformat = \"groups\"\ngroups = 3\n"), "t.toml").unwrap_err();
    assert!(matches!(err, ConfigError::Invalid { line: 9, .. }));
    let err = TournamentConfig::parse("x = [", "t.toml").unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { .. }));
}
