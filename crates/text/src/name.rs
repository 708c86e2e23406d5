//! The one rule for names people give (a bot's, an entrant's, a tournament entrant's): a
//! name is seen in tables, pages and records, so it must look like what it is. It is not
//! empty, at most [`MAX_NAME_WIDTH`] columns wide, starts and ends with something
//! visible, and holds no character that is invisible or moves text around: control
//! characters (line breaks, escapes), format characters (zero-width spaces and joiners,
//! direction marks U+200E, U+200F and U+061C, bidirectional embeddings, overrides and
//! isolates, the byte-order mark), the line and paragraph separators U+2028 and U+2029,
//! and every other default-ignorable code point (variation selectors, Hangul fillers,
//! tags). A right-to-left override could make `evil` U+202E `gnp.exe` read as another name; an
//! invisible character makes two names that look the same.
//!
//! Names that become folder and URL parts (the web arena's bots and entrants) follow a
//! narrower rule on top, [`check_slug`].

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The widest name, in columns as a terminal shows them (a CJK character or an emoji
/// takes two).
pub const MAX_NAME_WIDTH: usize = 40;

/// The longest slug (a name that is a folder and a URL part).
pub const MAX_SLUG_CHARS: usize = 32;

/// Why a name (or another short text) was refused. Its message is one line for people
/// and shows the name with every unusual character escaped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("{what} is empty")]
    Empty { what: String },
    #[error("{what} {} is {width} columns wide: the most is {max}", shown(text))]
    TooWide { what: String, text: String, width: usize, max: usize },
    #[error("{what} {} is {chars} characters long: the most is {max}", shown(text))]
    TooLong { what: String, text: String, chars: usize, max: usize },
    #[error("{what} {} starts or ends with a space", shown(text))]
    Spaces { what: String, text: String },
    #[error("{what} {} holds {}, {}: use visible characters only", shown(text), code(*character), kind.words())]
    Invisible { what: String, text: String, character: char, kind: Invisible },
    #[error("{what} {}: use 1 to {MAX_SLUG_CHARS} letters A-Z or a-z, digits, '-' or '_'", shown(text))]
    NotSlug { what: String, text: String },
}

/// What kind of character was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Invisible {
    Control,
    Direction,
    ZeroWidth,
    Separator,
    Ignorable,
}

impl Invisible {
    fn words(self) -> &'static str {
        match self {
            Invisible::Control => "a control character",
            Invisible::Direction => "a character that changes the direction of text",
            Invisible::ZeroWidth => "an invisible zero-width character",
            Invisible::Separator => "a line or paragraph separator",
            Invisible::Ignorable => "a character that is not shown",
        }
    }
}

/// A name as an error shows it: quoted, each invisible character (and each quote or
/// backslash) written as an escape, long names cut.
pub fn shown(text: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        if i == 48 {
            out.push('…');
            break;
        }
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if invisible(c).is_some() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn code(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// What is wrong with `c` in a name, if anything.
pub fn invisible(c: char) -> Option<Invisible> {
    let direction = matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if direction {
        return Some(Invisible::Direction);
    }
    if matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}') {
        return Some(Invisible::ZeroWidth);
    }
    match c.general_category() {
        GeneralCategory::Control => return Some(Invisible::Control),
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => return Some(Invisible::Separator),
        GeneralCategory::Format => return Some(Invisible::Ignorable),
        _ => {}
    }
    // The default-ignorable code points that are not format characters
    // (DerivedCoreProperties.txt, Default_Ignorable_Code_Point).
    let ignorable = matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{2065}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}');
    ignorable.then_some(Invisible::Ignorable)
}

/// Checks a short text people read (an author, a title): at most `max_chars`
/// characters, none of them invisible ([`invisible`]). `what` names it in the error
/// ("author").
pub fn check_text(what: &str, text: &str, max_chars: usize) -> Result<(), NameError> {
    if let Some((character, kind)) = text.chars().find_map(|c| invisible(c).map(|kind| (c, kind))) {
        return Err(NameError::Invisible { what: what.to_string(), text: text.to_string(), character, kind });
    }
    let chars = text.chars().count();
    if chars > max_chars {
        return Err(NameError::TooLong { what: what.to_string(), text: text.to_string(), chars, max: max_chars });
    }
    Ok(())
}

/// Checks a name by the one rule: not empty, no invisible character, no space at
/// either end, at most [`MAX_NAME_WIDTH`] columns. `what` names it in the error
/// ("entrant name", "bot name").
pub fn check_name(what: &str, name: &str) -> Result<(), NameError> {
    if name.trim().is_empty() {
        return Err(NameError::Empty { what: what.to_string() });
    }
    check_text(what, name, usize::MAX)?;
    if name.trim() != name {
        return Err(NameError::Spaces { what: what.to_string(), text: name.to_string() });
    }
    let width = crate::width(name);
    if width > MAX_NAME_WIDTH {
        return Err(NameError::TooWide { what: what.to_string(), text: name.to_string(), width, max: MAX_NAME_WIDTH });
    }
    Ok(())
}

/// Checks a name that is also a folder and a URL part (the web arena's bots and
/// entrants): the one rule, and 1 to [`MAX_SLUG_CHARS`] of `A-Z a-z 0-9 - _`.
pub fn check_slug(what: &str, name: &str) -> Result<(), NameError> {
    check_name(what, name)?;
    let slug = name.chars().count() <= MAX_SLUG_CHARS && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if slug { Ok(()) } else { Err(NameError::NotSlug { what: what.to_string(), text: name.to_string() }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_names_of_every_script_pass() {
        for name in
            ["alice", "Sample Brain (Python)", "象棋高手", "🤖bot", "Ünïcødé-bot_2", "שלום", "مرحبا", &"x".repeat(40), &"象".repeat(20)]
        {
            assert_eq!(check_name("name", name), Ok(()), "{name}");
        }
    }

    #[test]
    fn every_invisible_or_direction_character_is_refused() {
        // (character, what it is): each one inside an otherwise good name.
        let cases = [
            ('\u{200E}', "left-to-right mark"),
            ('\u{200F}', "right-to-left mark"),
            ('\u{061C}', "Arabic letter mark"),
            ('\u{202A}', "left-to-right embedding"),
            ('\u{202B}', "right-to-left embedding"),
            ('\u{202C}', "pop directional formatting"),
            ('\u{202D}', "left-to-right override"),
            ('\u{202E}', "right-to-left override"),
            ('\u{2066}', "left-to-right isolate"),
            ('\u{2067}', "right-to-left isolate"),
            ('\u{2068}', "first strong isolate"),
            ('\u{2069}', "pop directional isolate"),
            ('\u{200B}', "zero-width space"),
            ('\u{200C}', "zero-width non-joiner"),
            ('\u{200D}', "zero-width joiner"),
            ('\u{2060}', "word joiner"),
            ('\u{FEFF}', "byte-order mark"),
            ('\u{00AD}', "soft hyphen"),
            ('\u{2028}', "line separator"),
            ('\u{2029}', "paragraph separator"),
            ('\u{0000}', "NUL"),
            ('\n', "line feed"),
            ('\t', "tab"),
            ('\u{1B}', "escape"),
            ('\u{7F}', "delete"),
            ('\u{85}', "next line"),
            ('\u{FE0F}', "variation selector 16"),
            ('\u{3164}', "Hangul filler"),
            ('\u{E0041}', "tag latin capital A"),
            ('\u{180E}', "Mongolian vowel separator"),
        ];
        for (c, what) in cases {
            let name = format!("ab{c}cd");
            let err = check_name("entrant name", &name).expect_err(what);
            assert!(matches!(err, NameError::Invisible { character, .. } if character == c), "{what}: {err:?}");
            let message = err.to_string();
            assert!(message.contains(&format!("U+{:04X}", c as u32)) && !message.contains(c), "{what}: {message}");
            assert!(!message.contains('\n'), "one line: {message}");
        }
    }

    #[test]
    fn length_spaces_and_slugs() {
        assert!(matches!(check_name("name", ""), Err(NameError::Empty { .. })));
        assert!(matches!(check_name("name", "   "), Err(NameError::Empty { .. })));
        assert!(matches!(check_name("name", " a"), Err(NameError::Spaces { .. })));
        assert!(matches!(check_name("name", &"x".repeat(41)), Err(NameError::TooWide { width: 41, .. })));
        assert!(matches!(check_name("name", &"象".repeat(21)), Err(NameError::TooWide { width: 42, .. })));
        assert!(check_name("name", &"x".repeat(300)).unwrap_err().to_string().len() < 200, "a long name is cut in the message");
        assert_eq!(check_slug("bot name", "my-bot_2"), Ok(()));
        for bad in ["a b", "../x", "é", "a.b", &"x".repeat(33)] {
            assert!(check_slug("bot name", bad).is_err(), "{bad}");
        }
        assert_eq!(check_text("author", "Ann Example", 200), Ok(()));
        assert!(check_text("author", "x\u{2028}y", 200).is_err());
        assert!(check_text("author", &"x".repeat(201), 200).is_err());
    }
}
