//! A zip archive uploaded as a bot's files, read as hostile input (the `zip` crate reads
//! the format; what it may hold is decided here): at most [`MAX_ENTRIES`] entries, at
//! most [`crate::MAX_FILES`] files of at most [`crate::MAX_FILE_BYTES`] each and
//! [`crate::MAX_UPLOAD_BYTES`] in all once expanded (each file is read through a cap, so
//! a zip bomb stops at the cap whatever its header claims), no link, no encrypted entry,
//! no absolute path, no `..`, no backslash or drive letter. The files come out flat: one
//! folder holding everything (a kit's folder zipped whole) is taken off; files deeper
//! than that are refused; hidden files (`.gitignore`) and macOS's `__MACOSX/` are left
//! out.

use std::io::Read;

use crate::{MAX_FILE_BYTES, MAX_FILES, MAX_UPLOAD_BYTES, SubmitError};

/// The most entries (files and folders) an archive may list.
pub const MAX_ENTRIES: usize = 256;

/// Whether `bytes` are a zip archive (its local file header's signature).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
}

/// The files of a zip archive, flat, in the archive's order.
pub fn unzip(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, SubmitError> {
    let bad = |why: String| SubmitError::BadArchive(why);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|err| bad(format!("it cannot be read as a zip: {err}")))?;
    if archive.len() > MAX_ENTRIES {
        return Err(bad(format!("it lists {} entries: the most is {MAX_ENTRIES}", archive.len())));
    }
    let mut entries: Vec<(Vec<String>, Vec<u8>)> = Vec::new();
    let mut total = 0usize;
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).map_err(|err| bad(format!("entry {index} cannot be read: {err}")))?;
        let name = file.name().map_err(|err| bad(format!("entry {index} has no readable name: {err}")))?.to_string();
        let parts = path_parts(&name).map_err(|why| bad(format!("{name:?}: {why}")))?;
        if parts.first().is_some_and(|p| p == "__MACOSX") || parts.iter().any(|p| p.starts_with('.')) {
            continue;
        }
        if file.is_dir() {
            continue;
        }
        if file.is_symlink() || file.unix_mode().is_some_and(|mode| mode & 0o170000 != 0o100000 && mode & 0o170000 != 0) {
            return Err(bad(format!("{name:?} is a link or a special file: only plain files are taken")));
        }
        if file.encrypted() {
            return Err(bad(format!("{name:?} is encrypted")));
        }
        if entries.len() == MAX_FILES {
            return Err(SubmitError::TooManyFiles(MAX_FILES));
        }
        if file.size() > MAX_FILE_BYTES as u64 {
            return Err(SubmitError::TooLarge { what: format!("file {name}"), limit: MAX_FILE_BYTES });
        }
        // Read through the cap: the declared size may lie.
        let mut content = Vec::new();
        (&mut file)
            .take(MAX_FILE_BYTES as u64 + 1)
            .read_to_end(&mut content)
            .map_err(|err| bad(format!("{name:?} cannot be expanded: {err}")))?;
        if content.len() > MAX_FILE_BYTES {
            return Err(SubmitError::TooLarge { what: format!("file {name}"), limit: MAX_FILE_BYTES });
        }
        total += content.len();
        if total > MAX_UPLOAD_BYTES {
            return Err(SubmitError::TooLarge { what: "the expanded zip".to_string(), limit: MAX_UPLOAD_BYTES });
        }
        entries.push((parts, content));
    }
    // One folder holding every file is the kit's folder: taken off.
    let common = match entries.first() {
        Some((first, _)) if first.len() > 1 && entries.iter().all(|(parts, _)| parts.len() > 1 && parts[0] == first[0]) => 1,
        _ => 0,
    };
    let mut files = Vec::new();
    for (parts, content) in entries {
        let rest = &parts[common..];
        if rest.len() != 1 {
            return Err(bad(format!(
                "{:?} is in a folder: put every file at the top of the zip (or in one folder holding them all)",
                parts.join("/")
            )));
        }
        files.push((rest[0].clone(), content));
    }
    if files.is_empty() {
        return Err(bad("it holds no file".to_string()));
    }
    Ok(files)
}

/// The parts of an entry's path, refusing every path that could point elsewhere.
fn path_parts(name: &str) -> Result<Vec<String>, &'static str> {
    if name.is_empty() {
        return Err("an empty name");
    }
    if name.starts_with('/') || name.contains('\\') || name.contains('\0') || name.contains(':') {
        return Err("an absolute path, a backslash or a drive: refused");
    }
    let trimmed = name.strip_suffix('/').unwrap_or(name);
    let mut parts = Vec::new();
    for part in trimmed.split('/') {
        match part {
            "" | "." => return Err("an empty or '.' part of the path: refused"),
            ".." => return Err("'..' in the path: refused"),
            part => parts.push(part.to_string()),
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// An archive of `(name, content)`, each stored or deflated; `None` content makes a
    /// folder entry.
    fn archive(entries: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in entries {
            match content {
                Some(content) => {
                    writer.start_file(*name, options).unwrap();
                    writer.write_all(content).unwrap();
                }
                None => writer.add_directory(*name, options).unwrap(),
            }
        }
        writer.finish().unwrap();
        out.into_inner()
    }

    #[test]
    fn a_kit_folder_comes_out_flat_without_hidden_files() {
        let zip = archive(&[
            ("my-bot/", None),
            ("my-bot/bot.toml", Some(b"name = \"x\"")),
            ("my-bot/bot.py", Some(b"print()")),
            ("my-bot/.gitignore", Some(b"bot")),
            ("__MACOSX/my-bot/._bot.py", Some(b"junk")),
        ]);
        assert!(is_zip(&zip));
        let files = unzip(&zip).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["bot.toml", "bot.py"]);
        assert_eq!(files[1].1, b"print()");
        // Flat already.
        let files = unzip(&archive(&[("bot.toml", Some(b"a")), ("bot.py", Some(b"b"))])).unwrap();
        assert_eq!(files.len(), 2);
    }

    #[test]
    fn hostile_archives_are_refused_in_one_line() {
        // (archive, what the refusal says)
        let big = vec![b'a'; MAX_FILE_BYTES + 1];
        let many: Vec<(String, Option<&[u8]>)> = (0..=MAX_FILES).map(|n| (format!("f{n}.txt"), Some(&b"x"[..]))).collect();
        let many: Vec<(&str, Option<&[u8]>)> = many.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (archive(&[("../evil.py", Some(b"x"))]), "'..' in the path"),
            (archive(&[("a/../../evil.py", Some(b"x"))]), "'..' in the path"),
            (archive(&[("/etc/passwd", Some(b"x"))]), "an absolute path"),
            (archive(&[("c:\\win.py", Some(b"x"))]), "an absolute path"),
            (archive(&[("a/b/deep.py", Some(b"x")), ("a/top.py", Some(b"y"))]), "is in a folder"),
            (archive(&[("one/a.py", Some(b"x")), ("two/b.py", Some(b"y"))]), "is in a folder"),
            (archive(&[("big.py", Some(&big))]), "too large"),
            (archive(&many), "too many files"),
            (archive(&[("empty/", None)]), "holds no file"),
            (b"PK\x03\x04 not really a zip".to_vec(), "cannot be read as a zip"),
        ];
        for (zip, says) in cases {
            let err = unzip(&zip).expect_err(says).to_string();
            assert!(err.contains(says), "{err:?} should say {says:?}");
            assert!(!err.contains('\n'));
        }
    }

    #[test]
    fn a_zip_bomb_stops_at_the_cap() {
        // 8 files of 900 KB of zeros each (about 8 KB compressed): each under the file
        // cap, together over the upload's 4 MiB once expanded.
        let zeros = vec![0u8; 900 * 1024];
        let names: Vec<String> = (0..8).map(|n| format!("z{n}.bin")).collect();
        let entries: Vec<(&str, Option<&[u8]>)> = names.iter().map(|n| (n.as_str(), Some(&zeros[..]))).collect();
        let zip = archive(&entries);
        assert!(zip.len() < 100 * 1024, "{} bytes", zip.len());
        let err = unzip(&zip).unwrap_err().to_string();
        assert!(err.contains("the expanded zip is too large"), "{err}");
    }

    #[test]
    fn a_link_is_refused() {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        writer.add_symlink("bot.py", "/etc/shadow", zip::write::SimpleFileOptions::default()).unwrap();
        writer.finish().unwrap();
        let err = unzip(&out.into_inner()).unwrap_err().to_string();
        assert!(err.contains("is a link"), "{err}");
    }
}
