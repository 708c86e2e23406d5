//! Game options (`-o key=value` on the command line): their declarations and typed
//! reading with errors that name the option.

use std::collections::BTreeMap;

use crate::SetupError;

/// Options of one game as given by the user, by name. Missing names take the defaults
/// of the game's [`OptionSpec`]s.
pub type Options = BTreeMap<String, String>;

/// One option a game accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// Refuses option names the game does not declare.
pub fn check_names(game: &'static str, specs: &[OptionSpec], options: &Options) -> Result<(), SetupError> {
    for name in options.keys() {
        if !specs.iter().any(|spec| spec.name == name) {
            let known =
                if specs.is_empty() { "none".to_string() } else { specs.iter().map(|spec| spec.name).collect::<Vec<_>>().join(", ") };
            return Err(SetupError::UnknownOption { game, name: name.clone(), known });
        }
    }
    Ok(())
}

/// The raw text of an option: the user's value or the declared default.
pub fn get_text<'a>(specs: &'a [OptionSpec], options: &'a Options, name: &str) -> &'a str {
    match options.get(name) {
        Some(value) => value,
        None => specs.iter().find(|spec| spec.name == name).unwrap_or_else(|| panic!("option {name} is not declared")).default,
    }
}

/// An integer option within `min..=max`.
pub fn get_int(specs: &[OptionSpec], options: &Options, name: &str, min: i64, max: i64) -> Result<i64, SetupError> {
    let text = get_text(specs, options, name);
    let bad = |reason: String| SetupError::BadOption { name: name.to_string(), value: text.to_string(), reason };
    let value: i64 = text.trim().parse().map_err(|_| bad("not an integer".to_string()))?;
    if value < min || value > max {
        return Err(bad(format!("must be between {min} and {max}")));
    }
    Ok(value)
}

/// A yes/no option: `true`/`false`, `yes`/`no`, `1`/`0`, `on`/`off`.
pub fn get_bool(specs: &[OptionSpec], options: &Options, name: &str) -> Result<bool, SetupError> {
    let text = get_text(specs, options, name);
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" | "on" => Ok(true),
        "false" | "no" | "0" | "off" => Ok(false),
        _ => Err(SetupError::BadOption { name: name.to_string(), value: text.to_string(), reason: "expected true or false".to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] =
        &[OptionSpec { name: "width", default: "7", help: "" }, OptionSpec { name: "wrap", default: "false", help: "" }];

    fn opts(pairs: &[(&str, &str)]) -> Options {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_and_values() {
        assert_eq!(get_int(SPECS, &opts(&[]), "width", 4, 32), Ok(7));
        assert_eq!(get_int(SPECS, &opts(&[("width", "20")]), "width", 4, 32), Ok(20));
        assert_eq!(get_bool(SPECS, &opts(&[("wrap", "yes")]), "wrap"), Ok(true));
    }

    #[test]
    fn errors_name_the_option() {
        let err = get_int(SPECS, &opts(&[("width", "40")]), "width", 4, 32).unwrap_err();
        assert_eq!(err.to_string(), "option width=\"40\": must be between 4 and 32");
        let err = check_names("connect4", SPECS, &opts(&[("size", "3")])).unwrap_err();
        assert_eq!(err.to_string(), "game connect4 has no option \"size\" (its options: width, wrap)");
    }
}
