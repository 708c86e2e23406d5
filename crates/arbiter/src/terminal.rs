//! Text that a bot or a client wrote, made safe to print: every control character (an
//! escape sequence's ESC, a carriage return, a bell, a line break inside a line, the C1
//! controls) and every bidirectional override is shown as `\x..` or `\u{..}`, so that
//! nothing a bot writes can set the terminal's title, clear the screen, move the cursor
//! or fake a line of the referee's.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with its control characters escaped (a tab stays a tab).
pub fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| (c.is_control() && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(printable("plain text\twith a tab, é and 漢字"), "plain text\twith a tab, é and 漢字");
        assert_eq!(printable("\u{1b}]0;pwned\u{7}"), "\\x1b]0;pwned\\x07");
        assert_eq!(printable("\u{1b}[2J\rgame 1: evil wins\n"), "\\x1b[2J\\x0dgame 1: evil wins\\x0a");
        assert_eq!(printable("\u{9b}31m\u{7f}"), "\\x9b31m\\x7f");
        assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
    }
}
