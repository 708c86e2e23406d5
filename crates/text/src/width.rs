//! Columns that line up: the width of text as a terminal shows it (a CJK character or
//! an emoji takes two columns, a combining accent none), from the `unicode-width`
//! crate, and padding by that width rather than by characters.

use unicode_width::UnicodeWidthStr;

/// The number of columns `text` takes in a terminal.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` followed by spaces up to `columns` (as is when it is wider).
pub fn pad(text: &str, columns: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(' ', columns.saturating_sub(width(text))));
    out
}

/// Spaces up to `columns`, then `text` (right-aligned).
pub fn pad_left(text: &str, columns: usize) -> String {
    let mut out: String = std::iter::repeat_n(' ', columns.saturating_sub(width(text))).collect();
    out.push_str(text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("象棋高手"), 8);
        assert_eq!(width("🤖bot"), 5);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(pad("象棋", 6), "象棋  ");
        assert_eq!(pad_left("🤖", 4), "  🤖");
        assert_eq!(pad("toolong", 3), "toolong");
    }
}
