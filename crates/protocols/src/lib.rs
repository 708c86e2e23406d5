//! Every bot interface as pure encoding and decoding of messages: no I/O, so each can be
//! tested from strings. The games' own text formats (Gomoku field, Pah-tum board,
//! Legions map and orders, Nupud calls, Connect Four board rows) live with their rules
//! in `rules`; this crate adds the dialogues built from them, and the codecs of the
//! interfaces with a process per move ([`per_move`]: `legions`, `pahtum`, `nupud`).

pub mod arbiter;
pub mod connect4_tcp;
pub mod gomocup;
pub mod gomoku_console;
pub mod legions;
pub mod names;
pub mod nupud;
pub mod pahtum;
pub mod per_move;
pub mod uci;

/// A short, printable quote of what a bot wrote, for fault details: its first 60
/// characters (lossy UTF-8), `…` when cut, in Rust's debug quoting.
pub fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut quoted: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        quoted.push('…');
    }
    format!("{quoted:?}")
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_are_short_and_printable() {
        for (bytes, quoted) in [
            (&b"c1c3\n"[..], "\"c1c3\\n\""),
            (b"", "\"\""),
            (b"\xff", "\"\u{fffd}\""),
            (&[b'a'; 61][..], "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…\""),
        ] {
            assert_eq!(quote(bytes), quoted, "{bytes:?}");
        }
    }
}
