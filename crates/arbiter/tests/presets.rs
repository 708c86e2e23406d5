//! Bad configs give one clear error line each. (Every preset is run end to end, from a
//! fresh checkout, interrupted and resumed, by `presets_e2e.rs`.)

use std::process::Command;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

#[test]
fn bad_configs_give_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let base = "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n";
    let cases: &[(&str, &str)] = &[
        ("name = \"t\"\ngame = \"checkers\"\n[[entrant]]\nbot = \"random\"\n[[stage]]\nformat = \"round-robin\"\n", "unknown game"),
        (
            "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"no/such/bot\"\n[[stage]]\nformat = \"round-robin\"\n",
            "no/such/bot",
        ),
        (&format!("{base}[[stage]]\nformat = \"groups\"\ngroups = 3\n"), "power of two"),
        (&format!("{base}[[stage]]\nformat = \"round-robin\"\ncolour = 1\n"), "colour"),
    ];
    for (text, message) in cases {
        let config = dir.path().join("bad.toml");
        std::fs::write(&config, text).unwrap();
        let db = dir.path().join("bad.db");
        let out = Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap()]).output().unwrap();
        assert!(!out.status.success(), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(message), "{message:?} not in {err}");
    }
}
