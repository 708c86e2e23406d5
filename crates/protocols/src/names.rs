//! The names bots give of themselves where a seed's interface asks for one with empty
//! input (Legions and Nupud): one line of at most 16 characters. Pure text checks.

/// The longest name, in characters.
pub const MAX_NAME_CHARS: usize = 16;

/// Why a name answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty")]
    Empty,
    #[error("the name {0:?} is longer than 16 characters")]
    TooLong(String),
    #[error("the name answer has more than one line")]
    MoreLines,
}

/// Legions' name answer: one line (a final line end allowed, `\r\n` too; blank lines
/// around it ignored) of at most 16 characters, surrounding whitespace trimmed.
pub fn legions_name(stdout: &str) -> Result<String, NameError> {
    let mut lines = stdout.lines().filter(|line| !line.trim().is_empty());
    let name = lines.next().ok_or(NameError::Empty)?.trim();
    if lines.next().is_some() {
        return Err(NameError::MoreLines);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong(name.to_string()));
    }
    Ok(name.to_string())
}

/// Nupud's name answer: exactly one line (its line end optional), non-empty, at most 16
/// characters; the line end and surrounding whitespace are dropped.
pub fn nupud_name(text: &str) -> Result<String, NameError> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let body = body.strip_suffix('\r').unwrap_or(body);
    let name = body.trim();
    if name.contains(['\n', '\r']) {
        return Err(NameError::MoreLines);
    }
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong(name.to_string()));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legions_names() {
        assert_eq!(legions_name("Legionnaire\n"), Ok("Legionnaire".to_string()));
        assert_eq!(legions_name("  Caesar \r\n"), Ok("Caesar".to_string()));
        assert_eq!(legions_name("SixteenCharsLong"), Ok("SixteenCharsLong".to_string()));
        assert_eq!(legions_name("SeventeenCharsLng"), Err(NameError::TooLong("SeventeenCharsLng".to_string())));
        assert_eq!(legions_name("\n"), Err(NameError::Empty));
        assert_eq!(legions_name("a\nb\n"), Err(NameError::MoreLines));
    }

    #[test]
    fn nupud_names() {
        assert_eq!(nupud_name("Mari\n").unwrap(), "Mari");
        assert_eq!(nupud_name("0123456789abcdef\r\n").unwrap(), "0123456789abcdef");
        assert_eq!(nupud_name("Õunapuu-Üllar").unwrap(), "Õunapuu-Üllar");
        assert!(nupud_name("0123456789abcdefg\n").is_err());
        assert!(nupud_name("\n").is_err());
        assert!(nupud_name("two\nlines\n").is_err());
    }
}
