//! A TOML error (a `bot.toml`, a tournament config) as one short line for people: the
//! line number, the key it is about, and what is wrong in the words of a config rather
//! than of Rust's serde ("unknown key", "a whole number", "unknown value "round-robbin":
//! expected one of ..., did you mean round-robin?"), without toml's caret drawing, which
//! flattened onto one line reads as noise.

/// `line N: KEY: what is wrong` (or without the key where the error is not about one,
/// or without the line where toml gives no place).
pub fn toml_error(text: &str, err: &toml::de::Error) -> String {
    let message = plain_message(err.message());
    let Some(span) = err.span() else { return message };
    let start = span.start.min(text.len());
    let line_number = text.as_bytes()[..start].iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    match key_of(line) {
        // A key unknown or missing is named in the message; the line is the table's.
        Some(key) if !message.starts_with("unknown key") && !message.starts_with("missing key") => {
            format!("line {line_number}: {key}: {message}")
        }
        _ => format!("line {line_number}: {message}"),
    }
}

/// The key a `key = value` line sets (dotted and quoted keys as written).
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let bare = !key.is_empty() && !key.starts_with('[') && !key.starts_with('#');
    bare.then_some(key)
}

/// serde's and toml's wording, in the words of a config.
fn plain_message(message: &str) -> String {
    let mut text = message.trim().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    if let Some(rest) = text.strip_prefix("unknown variant `")
        && let Some((value, expected)) = rest.split_once("`, expected ")
    {
        let choices = backticked(expected);
        text = format!("unknown value \"{value}\": expected {}{}", words_list(&choices), suggestion(value, &choices));
    } else if let Some(rest) = text.strip_prefix("unknown field `")
        && let Some((key, expected)) = rest.split_once("`, expected ")
    {
        let choices = backticked(expected);
        text = format!("unknown key \"{key}\": expected {}{}", words_list(&choices), suggestion(key, &choices));
    } else if let Some(rest) = text.strip_prefix("unknown field `")
        && let Some(key) = rest.strip_suffix("`, there are no fields")
    {
        text = format!("unknown key \"{key}\": this table takes no keys");
    } else if let Some(rest) = text.strip_prefix("missing field `")
        && let Some(key) = rest.strip_suffix('`')
    {
        text = format!("missing key \"{key}\"");
    }
    for (from, to) in [
        ("expected u8", "expected a whole number"),
        ("expected u16", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected usize", "expected a whole number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected a list [...]"),
        ("expected a map", "expected a table"),
    ] {
        text = text.replace(from, to);
    }
    text
}

/// The words between backticks in serde's "expected one of `a`, `b`".
fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn words_list(choices: &[String]) -> String {
    match choices {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("one of {} or {last}", rest.join(", ")),
    }
}

/// ", did you mean X?" when one choice is near the value given (a typo).
fn suggestion(given: &str, choices: &[String]) -> String {
    let best = choices
        .iter()
        .map(|choice| (strsim::damerau_levenshtein(given, choice), choice))
        .filter(|(distance, choice)| *distance > 0 && *distance <= 2.max(choice.len() / 4))
        .min_by_key(|(distance, _)| *distance);
    match best {
        Some((_, choice)) => format!(" (did you mean {choice}?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    #[allow(dead_code)]
    struct Stage {
        name: String,
        format: Format,
        deals: Option<u32>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Format {
        RoundRobin,
        EntryCheck,
        Swiss,
    }

    fn error(text: &str) -> String {
        let err = toml::from_str::<Stage>(text).expect_err("a bad config");
        toml_error(text, &err)
    }

    #[test]
    fn each_error_is_one_line_with_its_line_and_key() {
        // (config, the line people read)
        let cases = [
            (
                "name = \"s\"\nformat = \"round-robbin\"\n",
                "line 2: format: unknown value \"round-robbin\": expected one of round-robin, entry-check or swiss (did you mean round-robin?)",
            ),
            ("name = \"s\"\nformat = \"swiss\"\ndeals = \"two\"\n", "line 3: deals: invalid type: string \"two\", expected a whole number"),
            (
                "name = \"s\"\nformat = \"swiss\"\ndeal = 2\n",
                "line 3: unknown key \"deal\": expected one of name, format or deals (did you mean deals?)",
            ),
            ("name = \"s\n", "line 1: name: invalid basic string, expected `\"`"),
            ("format = \"swiss\"\n", "line 1: missing key \"name\""),
        ];
        for (config, expected) in cases {
            let line = error(config);
            assert_eq!(line, expected, "{config}");
            assert!(!line.contains('\n') && !line.contains('^') && !line.contains('|'), "{line}");
        }
    }
}
