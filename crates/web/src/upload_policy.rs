//! What an upload may be and what it may claim, as plain rules without HTTP: the parts
//! of the upload form turned into a [`submissions::Upload`] (its fields, a source or a
//! manifest or files, zips expanded so that the bot it is for is known), and whose bot
//! an entrant's upload becomes ([`claim`], [`within_share`]). The handler in `uploads`
//! only carries the form and the stores' answers here, and the decisions back.

use std::collections::BTreeMap;

use rules::GameKind;
use submissions::{FilesUpload, Language, ManifestUpload, SourceUpload, SubmitError, Upload};

/// The fields of an upload form.
pub const UPLOAD_FIELDS: &str = "name, game, protocol, language, options, source, manifest, files";

/// Why an upload was refused before it was stored; the message is the one line its
/// uploader reads.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("the manifest is not UTF-8 text")]
    ManifestNotText,
    #[error("field {0} is not UTF-8 text")]
    FieldNotText(String),
    #[error("unknown field {0:?} (fields: {UPLOAD_FIELDS})")]
    UnknownField(String),
    #[error("options: not a JSON object of strings: {0}")]
    Options(String),
    #[error("unknown interface {0:?}")]
    UnknownInterface(String),
    #[error("give a source file or a manifest, not both")]
    SourceAndManifest,
    #[error("missing the bot's name (field `name`)")]
    MissingName,
    #[error(
        "missing the program: a source file or a zip (field `source`), several files (field `files`), or a manifest (field `manifest`) with its files"
    )]
    MissingProgram,
    /// Refused as the submissions refuse it (an unknown game or language, a bad zip).
    #[error(transparent)]
    Submission(#[from] SubmitError),
    #[error("{game} bot {name} belongs to another entrant")]
    AnotherEntrants { game: GameKind, name: String },
    #[error("{game} bot {name} was registered by the organiser")]
    Organisers { game: GameKind, name: String },
    #[error("you have {mine} bots, the most an entrant may keep: upload a new version of one of them instead")]
    TooManyBots { mine: usize },
}

/// The parts of an upload form, as they came.
#[derive(Debug, Default)]
pub struct Form {
    /// The text fields (`name`, `game`, `protocol`, `language`, `options`), trimmed.
    text: BTreeMap<String, String>,
    source: Option<(String, Vec<u8>)>,
    manifest: Option<String>,
    files: Vec<(String, Vec<u8>)>,
}

impl Form {
    /// Adds the part `field` (with its file name, for a file) holding `bytes`. A file
    /// field left empty in the browser (no name, no bytes) is no part.
    pub fn add(&mut self, field: &str, file_name: Option<&str>, bytes: Vec<u8>) -> Result<(), Refusal> {
        match field {
            "source" | "manifest" | "files" if file_name.unwrap_or("").is_empty() && bytes.is_empty() => {}
            "source" => self.source = Some((file_name.unwrap_or_default().to_string(), bytes)),
            "manifest" => self.manifest = Some(String::from_utf8(bytes).map_err(|_| Refusal::ManifestNotText)?),
            // A browser sends a folder's files with their paths: the file's own name.
            "files" => self.files.push((file_name.unwrap_or_default().rsplit('/').next().unwrap_or_default().to_string(), bytes)),
            "name" | "game" | "protocol" | "language" | "options" => {
                let value = String::from_utf8(bytes).map_err(|_| Refusal::FieldNotText(field.to_string()))?;
                self.text.insert(field.to_string(), value.trim().to_string());
            }
            other => return Err(Refusal::UnknownField(other.to_string())),
        }
        Ok(())
    }

    /// The upload the form makes: a source (one file that is not a zip), a manifest with
    /// its files, or files alone; zips among the files expanded.
    pub fn into_upload(self) -> Result<Upload, Refusal> {
        let Form { text, source, manifest, mut files } = self;
        let field = |key: &str| text.get(key).filter(|v| !v.is_empty()).cloned();
        let options: rules::Options = match field("options") {
            Some(json) => serde_json::from_str(&json).map_err(|err| Refusal::Options(err.to_string()))?,
            None => Default::default(),
        };
        let game = field("game").map(|game| submissions::parse_game(&game)).transpose()?;
        // `auto` (the form's default): the manifest's interface, or the kit's.
        let protocol = match field("protocol").filter(|p| p != "auto") {
            Some(p) => Some(referee::Protocol::ALL.into_iter().find(|known| known.name() == p).ok_or(Refusal::UnknownInterface(p))?),
            None => None,
        };
        let language = match field("language").filter(|l| l != "auto") {
            Some(l) => Some(Language::from_name(&l).ok_or(SubmitError::UnknownLanguage(l))?),
            None => None,
        };
        let name = field("name");
        // A zip given as the single file is files too.
        let source = match source {
            Some((filename, code)) if submissions::archive::is_zip(&code) || !files.is_empty() => {
                files.insert(0, (filename, code));
                None
            }
            source => source,
        };
        // Zips are expanded here, so that the bot an upload is for (its `bot.toml` may be
        // in the zip) is known before its owner is checked.
        let mut expanded = Vec::new();
        for (filename, bytes) in files {
            if submissions::archive::is_zip(&bytes) {
                expanded.extend(submissions::archive::unzip(&bytes)?);
            } else {
                expanded.push((filename, bytes));
            }
        }
        let files = expanded;
        Ok(match (source, manifest) {
            (Some(_), Some(_)) => return Err(Refusal::SourceAndManifest),
            (Some((filename, code)), None) => {
                let name = name.ok_or(Refusal::MissingName)?;
                let game = game.ok_or_else(|| SubmitError::Missing("game".to_string()))?;
                Upload::Source(SourceUpload { name, game, options, protocol, language, filename, code })
            }
            (None, Some(manifest)) => Upload::Manifest(ManifestUpload { name, game, options, manifest, files }),
            (None, None) if !files.is_empty() => Upload::Files(FilesUpload { name, game, protocol, language, options, files }),
            (None, None) => return Err(Refusal::MissingProgram),
        })
    }
}

/// What an entrant's upload of a bot does to its ownership.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Nothing: the bot is already the entrant's.
    Theirs,
    /// The name is new: it becomes the entrant's (within their share, [`within_share`]).
    New,
}

/// Whose bot `name` of `game` becomes when entrant `me` uploads it, from what the
/// stores say: its `owner`, and whether a version of it `existed`. An entrant uploads
/// versions of their own bots only: a name of another entrant's, or of the organiser's
/// (stored, with no owner), is refused.
pub fn claim(me: &str, game: GameKind, name: &str, owner: Option<&str>, existed: bool) -> Result<Claim, Refusal> {
    match owner {
        Some(owner) if owner != me => Err(Refusal::AnotherEntrants { game, name: name.to_string() }),
        Some(_) => Ok(Claim::Theirs),
        None if existed => Err(Refusal::Organisers { game, name: name.to_string() }),
        None => Ok(Claim::New),
    }
}

/// Whether an entrant who keeps `mine` bots may claim one more, `most` being their share.
pub fn within_share(mine: usize, most: usize) -> Result<(), Refusal> {
    if mine >= most { Err(Refusal::TooManyBots { mine }) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A form part: its field, its file name, its bytes.
    type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

    fn form(parts: &[Part]) -> Result<Upload, Refusal> {
        let mut form = Form::default();
        for (field, file_name, bytes) in parts {
            form.add(field, *file_name, bytes.to_vec())?;
        }
        form.into_upload()
    }

    fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        for (name, bytes) in files {
            writer.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
        out.into_inner()
    }

    /// Forms and the kind of upload they make, or the line that refuses them.
    #[test]
    fn forms() {
        let source = |parts: &[Part]| match form(parts) {
            Ok(Upload::Source(s)) => {
                format!("source {} {} {} {:?} {:?}", s.name, s.game, s.filename, s.protocol.map(|p| p.name()), s.language)
            }
            Ok(Upload::Manifest(m)) => format!("manifest {:?} files {}", m.name, m.files.len()),
            Ok(Upload::Files(f)) => format!("files {:?} {:?}", f.name, f.files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>()),
            Err(err) => format!("refused: {err}"),
        };
        let zipped = zip(&[("bot.toml", b"name = \"z\""), ("bot.py", b"print(1)")]);
        let cases: Vec<(Vec<Part>, &str)> = vec![
            (
                vec![("name", None, b" mine "), ("game", None, b"connect4"), ("source", Some("bot.py"), b"print(1)")],
                "source mine connect4 bot.py None None",
            ),
            (
                vec![("name", None, b"m"), ("game", None, b"gomoku"), ("protocol", None, b"auto"), ("source", Some("b.c"), b"int main;")],
                "source m gomoku b.c None None",
            ),
            (
                vec![("name", None, b"m"), ("game", None, b"gomoku"), ("protocol", None, b"gomocup"), ("source", Some("b.c"), b"x")],
                "source m gomoku b.c Some(\"gomocup\") None",
            ),
            (vec![("manifest", Some("bot.toml"), b"name = \"x\""), ("files", Some("dir/bot.py"), b"1")], "manifest None files 1"),
            (vec![("files", Some("dir/a.py"), b"1"), ("files", Some("b.py"), b"2")], "files None [\"a.py\", \"b.py\"]"),
            // A zip as the single file is files, expanded.
            (vec![("source", Some("bot.zip"), &zipped)], "files None [\"bot.toml\", \"bot.py\"]"),
            // Empty file fields (the browser's, when none is chosen) are no parts.
            (vec![("source", Some(""), b""), ("files", None, b""), ("files", Some("a.py"), b"1")], "files None [\"a.py\"]"),
            (
                vec![("name", None, b"m"), ("game", None, b"connect4")],
                "refused: missing the program: a source file or a zip (field `source`), several files (field `files`), or a manifest (field `manifest`) with its files",
            ),
            (vec![("game", None, b"connect4"), ("source", Some("b.py"), b"1")], "refused: missing the bot's name (field `name`)"),
            (
                vec![("source", Some("b.py"), b"1"), ("manifest", Some("bot.toml"), b"x")],
                "refused: give a source file or a manifest, not both",
            ),
            (
                vec![("colour", None, b"red")],
                "refused: unknown field \"colour\" (fields: name, game, protocol, language, options, source, manifest, files)",
            ),
            (vec![("manifest", Some("bot.toml"), b"\xff")], "refused: the manifest is not UTF-8 text"),
            (vec![("name", None, b"\xff")], "refused: field name is not UTF-8 text"),
            (vec![("protocol", None, b"telepathy"), ("files", Some("a"), b"1")], "refused: unknown interface \"telepathy\""),
            (
                vec![("options", None, b"[1]"), ("files", Some("a"), b"1")],
                "refused: options: not a JSON object of strings: invalid type: sequence, expected a map at line 1 column 0",
            ),
        ];
        for (parts, want) in cases {
            assert_eq!(source(&parts), want, "{parts:?}");
        }
        // The submissions' own refusals come through as they are.
        for parts in [
            vec![("game", None, &b"tennis"[..]), ("files", Some("a"), b"1")],
            vec![("language", None, &b"cobol"[..]), ("files", Some("a"), b"1")],
            vec![("name", None, &b"m"[..]), ("source", Some("b.py"), b"1")],
        ] {
            assert!(matches!(form(&parts), Err(Refusal::Submission(_))), "{parts:?}");
        }
    }

    /// Who owns the bot, whether it was stored, and what entrant `me`'s upload of it does.
    #[test]
    fn claims() {
        let game = GameKind::Connect4;
        for (owner, existed, want) in [
            (None, false, Ok(Claim::New)),
            (Some("me"), true, Ok(Claim::Theirs)),
            (Some("me"), false, Ok(Claim::Theirs)),
            (Some("ann"), true, Err("connect4 bot b belongs to another entrant")),
            (Some("ann"), false, Err("connect4 bot b belongs to another entrant")),
            (None, true, Err("connect4 bot b was registered by the organiser")),
        ] {
            let got = claim("me", game, "b", owner, existed).map_err(|err| err.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{owner:?} {existed}");
        }
    }

    #[test]
    fn shares() {
        assert!(within_share(0, 10).is_ok());
        assert!(within_share(9, 10).is_ok());
        let refused = within_share(10, 10).unwrap_err();
        assert_eq!(refused.to_string(), "you have 10 bots, the most an entrant may keep: upload a new version of one of them instead");
        assert!(within_share(1, 1).is_err());
    }
}
