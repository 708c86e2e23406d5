//! Files that travel through a shared database, so that a worker needs nothing but the
//! URL: a bot's folder (and the files the config reads) packed as a bundle, a list of
//! (relative path, SHA-256, mode) whose contents are stored once each by their SHA-256,
//! and unpacked by a worker into its cache under the bundle's own hash. A list read
//! from the database is input from elsewhere: every path is checked (relative, plain
//! names, no `..`, no duplicates), every content is hashed again on arrival, and the
//! files are written only into a fresh folder the worker made, never through a link.

use std::collections::HashSet;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use referee::ProgramBot;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The most files a bundle holds.
pub const MAX_FILES: usize = 2000;
/// The most bytes a bundle holds, all files together.
pub const MAX_BYTES: u64 = 64 << 20;
/// The longest path in a bundle, in bytes.
const MAX_PATH: usize = 1024;

/// A file of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Its path relative to the bundle's folder, with `/` between plain names.
    pub path: String,
    pub sha256: String,
    /// `0o755` (executable) or `0o644`.
    pub mode: u32,
}

/// A bundle's list: what is stored under its owner, and hashed to name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// A bot's manifest file among the files (`bot.toml`); `None` for the config's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
    /// Sorted by path.
    pub files: Vec<FileEntry>,
}

/// A packed bundle: its list and the contents it names.
#[derive(Debug)]
pub struct Packed {
    pub listing: Listing,
    pub contents: Vec<(String, Vec<u8>)>,
}

impl Listing {
    /// The bundle's hash: SHA-256 of its list as JSON (the same list on every machine, so
    /// the same hash).
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.json().as_bytes()))
    }

    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("a listing serialises")
    }

    /// Reads a list stored in the database and checks it as an attacker could have
    /// written it: at most [`MAX_FILES`] files, each path relative and made of plain
    /// names (no `.`, `..`, empty part, absolute path or NUL), none twice, none inside
    /// another file, every hash 64 hex digits, every mode `0o644` or `0o755`, and the
    /// manifest one of the files.
    pub fn parse(json: &str) -> Result<Listing, String> {
        let listing: Listing = serde_json::from_str(json).map_err(|err| format!("its list of files is damaged: {err}"))?;
        if listing.files.len() > MAX_FILES {
            return Err(format!("it holds more than {MAX_FILES} files"));
        }
        let mut paths = HashSet::new();
        for file in &listing.files {
            check_path(&file.path)?;
            if !(file.sha256.len() == 64 && file.sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))) {
                return Err(format!("{:?}: {:?} is not a SHA-256", file.path, file.sha256));
            }
            if file.mode != 0o644 && file.mode != 0o755 {
                return Err(format!("{:?}: mode {:o} is neither 644 nor 755", file.path, file.mode));
            }
            if !paths.insert(file.path.as_str()) {
                return Err(format!("{:?} is listed twice", file.path));
            }
        }
        for file in &listing.files {
            let mut parent = Path::new(&file.path).parent();
            while let Some(folder) = parent.filter(|p| !p.as_os_str().is_empty()) {
                if paths.contains(folder.to_str().unwrap_or_default()) {
                    return Err(format!("{:?} lies inside the file {:?}", file.path, folder.display()));
                }
                parent = folder.parent();
            }
        }
        if let Some(manifest) = &listing.manifest
            && !paths.contains(manifest.as_str())
        {
            return Err(format!("its manifest {manifest:?} is not among its files"));
        }
        Ok(listing)
    }
}

/// A path of a bundle: relative, plain names separated by single `/`.
fn check_path(path: &str) -> Result<(), String> {
    let plain = |part: &str| !part.is_empty() && part != "." && part != ".." && !part.contains('\0');
    if path.len() > MAX_PATH || !path.split('/').all(plain) {
        return Err(format!("{path:?} is not a relative path of plain names (no /, ., .. or empty part at its start or inside)"));
    }
    Ok(())
}

/// Packs a program bot's folder: every regular file under it but hidden ones (a name
/// starting with `.`: `.git`, the build lock), Python's `__pycache__` (running the bot
/// writes it, and it would make the same sources another bot) and, when the manifest
/// builds the program, the program (each worker builds its own). A link or special file is refused, as is a
/// command that reaches outside the folder (`../`): only the folder travels.
pub fn pack_bot(bot: &ProgramBot) -> Result<Packed, String> {
    if let Some(part) = bot.manifest.command.iter().find(|part| Path::new(part).components().any(|c| c == std::path::Component::ParentDir))
    {
        return Err(format!("its command names {part:?}, outside its folder: only the bot's folder travels through the database"));
    }
    let folder = bot.folder();
    let skip = bot.manifest.build.as_ref().and(bot.program_file.as_deref()).and_then(|p| p.strip_prefix(folder).ok());
    let mut files = Vec::new();
    let mut total = 0;
    walk(folder, Path::new(""), skip, &mut files, &mut total)?;
    let manifest = bot.manifest_path.file_name().map(|name| name.to_string_lossy().into_owned());
    Ok(packed(manifest, files))
}

/// Packs files the config reads (openings files), named by the paths the config gives
/// (relative to its folder), without following links.
pub fn pack_config_files(config_dir: &Path, paths: &[String]) -> Result<Packed, String> {
    let mut files = Vec::new();
    let mut total = 0;
    for path in paths {
        let full = config_dir.join(path);
        let file = referee::nofollow::open_regular(&full).map_err(|err| format!("cannot read {}: {err}", full.display()))?;
        let (content, mode) = read_bounded(file, &full, &mut total)?;
        files.push((path.clone(), content, mode));
    }
    Ok(packed(None, files))
}

fn packed(manifest: Option<String>, mut files: Vec<(String, Vec<u8>, u32)>) -> Packed {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    let mut contents = Vec::new();
    let entries = files
        .into_iter()
        .map(|(path, content, mode)| {
            let sha256 = hex::encode(Sha256::digest(&content));
            contents.push((sha256.clone(), content));
            FileEntry { path, sha256, mode }
        })
        .collect();
    Packed { listing: Listing { manifest, files: entries }, contents }
}

/// Reads a file opened by the caller, counting it against [`MAX_BYTES`]; its mode as a
/// bundle keeps it.
fn read_bounded(file: std::fs::File, path: &Path, total: &mut u64) -> Result<(Vec<u8>, u32), String> {
    let meta = file.metadata().map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mode = if meta.permissions().mode() & 0o111 != 0 { 0o755 } else { 0o644 };
    let mut content = Vec::new();
    let left = MAX_BYTES - *total;
    file.take(left + 1).read_to_end(&mut content).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    *total += content.len() as u64;
    if *total > MAX_BYTES {
        return Err(format!("its files hold more than {} MiB (the limit of what travels through the database)", MAX_BYTES >> 20));
    }
    Ok((content, mode))
}

fn walk(root: &Path, rel: &Path, skip: Option<&Path>, files: &mut Vec<(String, Vec<u8>, u32)>, total: &mut u64) -> Result<(), String> {
    let dir = root.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return Err(format!("{} is not named in UTF-8", rel.join(&name).display()));
        };
        let rel = rel.join(name);
        if name.starts_with('.') || name == "__pycache__" || Some(rel.as_path()) == skip {
            continue;
        }
        let path = root.join(&rel);
        let meta = std::fs::symlink_metadata(&path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        if meta.is_dir() {
            walk(root, &rel, skip, files, total)?;
        } else if meta.is_file() {
            if files.len() == MAX_FILES {
                return Err(format!("it holds more than {MAX_FILES} files (the limit of what travels through the database)"));
            }
            let file = referee::nofollow::open_regular(&path).map_err(|err| format!("{}: {err}", rel.display()))?;
            let (content, mode) = read_bounded(file, &path, total)?;
            files.push((rel.to_string_lossy().into_owned(), content, mode));
        } else if meta.file_type().is_symlink() {
            return Err(format!("{} is a link: links do not travel through the database", rel.display()));
        } else {
            return Err(format!("{} is not a regular file or folder", rel.display()));
        }
    }
    Ok(())
}

/// Checks fetched contents against a listing: each file's content present and hashing to
/// its SHA-256, all together within [`MAX_BYTES`].
pub fn check_contents(listing: &Listing, contents: &std::collections::HashMap<String, Vec<u8>>) -> Result<(), String> {
    let mut total = 0u64;
    for file in &listing.files {
        let content = contents.get(&file.sha256).ok_or_else(|| format!("{:?}: its content is not stored", file.path))?;
        if hex::encode(Sha256::digest(content)) != file.sha256 {
            return Err(format!("{:?}: its content does not match its SHA-256", file.path));
        }
        total += content.len() as u64;
    }
    if total > MAX_BYTES {
        return Err(format!("its files hold more than {} MiB", MAX_BYTES >> 20));
    }
    Ok(())
}

/// How the fresh folders of unpacks under way are named in the cache.
const UNPACKING: &str = ".unpacking-";

/// How old a fresh folder must be for [`unpack`] to take it for the leftover of a worker
/// that died while unpacking (a whole bundle is written in well under a second).
const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes what workers killed while unpacking left in `cache`: fresh folders older
/// than [`STALE`] (younger ones may be another worker's unpack under way). Only real
/// folders are removed, never what a link points to; a failure leaves the folder.
fn sweep_stale(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(UNPACKING)
            && entry.metadata().is_ok_and(|m| m.is_dir() && m.modified().is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE)));
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Unpacks a checked listing ([`Listing::parse`]) and its checked contents
/// ([`check_contents`]) into `cache/HASH` (the listing's hash), unless a folder of that
/// hash is there already (unpacked before, by this worker or another on this machine):
/// into a fresh folder first, renamed into place when complete, so that a folder under
/// its hash is always whole. Returns the folder.
pub fn unpack(cache: &Path, listing: &Listing, contents: &std::collections::HashMap<String, Vec<u8>>) -> std::io::Result<PathBuf> {
    let target = cache.join(listing.hash());
    if target.is_dir() {
        return Ok(target);
    }
    std::fs::create_dir_all(cache)?;
    sweep_stale(cache);
    let fresh = tempfile::Builder::new().prefix(UNPACKING).tempdir_in(cache)?;
    for file in &listing.files {
        let path = fresh.path().join(&file.path);
        if let Some(parent) = path.parent() {
            // Every part is a plain name and every folder here is one this call made.
            std::fs::create_dir_all(parent)?;
        }
        let mut out = referee::nofollow::create_new(&path, file.mode)?;
        std::io::Write::write_all(&mut out, &contents[&file.sha256])?;
        out.set_permissions(std::fs::Permissions::from_mode(file.mode))?;
    }
    std::fs::set_permissions(fresh.path(), std::fs::Permissions::from_mode(0o755))?;
    let fresh = fresh.keep();
    match std::fs::rename(&fresh, &target) {
        Ok(()) => Ok(target),
        // Another process unpacked the same bundle meanwhile: its folder is the same.
        Err(_) if target.is_dir() => {
            let _ = std::fs::remove_dir_all(&fresh);
            Ok(target)
        }
        Err(err) => {
            let _ = std::fs::remove_dir_all(&fresh);
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn listing(paths: &[&str]) -> String {
        let files: Vec<FileEntry> = paths.iter().map(|p| FileEntry { path: p.to_string(), sha256: "0".repeat(64), mode: 0o644 }).collect();
        serde_json::to_string(&Listing { manifest: None, files }).unwrap()
    }

    #[test]
    fn a_hostile_listing_is_refused() {
        for (paths, message) in [
            (&["../etc/passwd"][..], "not a relative path"),
            (&["/etc/passwd"][..], "not a relative path"),
            (&["a/../../x"][..], "not a relative path"),
            (&["a//b"][..], "not a relative path"),
            (&["./a"][..], "not a relative path"),
            (&["a/"][..], "not a relative path"),
            (&[""][..], "not a relative path"),
            (&["a\0b"][..], "not a relative path"),
            (&["a", "a"][..], "listed twice"),
            (&["a", "a/b"][..], "lies inside the file"),
        ] {
            let err = Listing::parse(&listing(paths)).unwrap_err();
            assert!(err.contains(message), "{paths:?}: {err}");
        }
        assert!(Listing::parse(&listing(&["a/b", "a/c", "d"])).is_ok());
        let bad_mode = listing(&["a"]).replace("420", "2541");
        assert!(Listing::parse(&bad_mode).unwrap_err().contains("neither 644 nor 755"));
        let bad_hash = listing(&["a"]).replace(&"0".repeat(64), "../x");
        assert!(Listing::parse(&bad_hash).unwrap_err().contains("not a SHA-256"));
        let many: Vec<String> = (0..=MAX_FILES).map(|i| format!("f{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(Listing::parse(&listing(&many)).unwrap_err().contains("more than 2000 files"));
        let no_manifest = Listing { manifest: Some("bot.toml".into()), files: Vec::new() }.json();
        assert!(Listing::parse(&no_manifest).unwrap_err().contains("not among its files"));
    }

    fn bot_folder(dir: &Path) -> PathBuf {
        let folder = dir.join("bot");
        std::fs::create_dir_all(folder.join("data")).unwrap();
        std::fs::write(folder.join("bot.toml"), "name = \"b\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"./run\"]\n").unwrap();
        std::fs::write(folder.join("run"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(folder.join("run"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(folder.join("data/book"), "e4").unwrap();
        std::fs::create_dir(folder.join(".git")).unwrap();
        std::fs::write(folder.join(".git/HEAD"), "hidden").unwrap();
        std::fs::create_dir(folder.join("__pycache__")).unwrap();
        std::fs::write(folder.join("__pycache__/run.cpython-311.pyc"), "compiled").unwrap();
        folder
    }

    #[test]
    fn a_bot_packs_and_unpacks_the_same_on_any_machine() {
        let dir = tempfile::tempdir().unwrap();
        let folder = bot_folder(dir.path());
        let bot = ProgramBot::load(&folder.join("bot.toml")).unwrap();
        let packed = pack_bot(&bot).unwrap();
        let paths: Vec<&str> = packed.listing.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["bot.toml", "data/book", "run"], "hidden files and Python's caches stay home");
        assert_eq!(packed.listing.files[2].mode, 0o755);
        // Packed from another copy of the same files (another machine's checkout): the
        // same hash.
        let other = tempfile::tempdir().unwrap();
        let copy = bot_folder(other.path());
        assert_eq!(pack_bot(&ProgramBot::load(&copy.join("bot.toml")).unwrap()).unwrap().listing.hash(), packed.listing.hash());

        let contents: HashMap<String, Vec<u8>> = packed.contents.iter().cloned().collect();
        let listing = Listing::parse(&packed.listing.json()).unwrap();
        check_contents(&listing, &contents).unwrap();
        let cache = dir.path().join("cache");
        let unpacked = unpack(&cache, &listing, &contents).unwrap();
        assert_eq!(unpacked, cache.join(packed.listing.hash()));
        assert_eq!(std::fs::read_to_string(unpacked.join("data/book")).unwrap(), "e4");
        assert_eq!(std::fs::metadata(unpacked.join("run")).unwrap().permissions().mode() & 0o777, 0o755);
        assert_eq!(unpack(&cache, &listing, &contents).unwrap(), unpacked, "unpacked once");

        let mut forged = contents.clone();
        forged.insert(listing.files[1].sha256.clone(), b"e5".to_vec());
        assert!(check_contents(&listing, &forged).unwrap_err().contains("does not match its SHA-256"));
    }

    #[test]
    fn a_killed_unpack_leaves_nothing_for_long() {
        let dir = tempfile::tempdir().unwrap();
        let folder = bot_folder(dir.path());
        let packed = pack_bot(&ProgramBot::load(&folder.join("bot.toml")).unwrap()).unwrap();
        let contents: HashMap<String, Vec<u8>> = packed.contents.iter().cloned().collect();
        let cache = dir.path().join("cache");
        std::fs::create_dir_all(&cache).unwrap();
        // A worker killed an hour ago in the middle of its unpack, one unpacking now, and
        // a link under the same kind of name (to a folder that must survive).
        let old = cache.join(".unpacking-old");
        std::fs::create_dir_all(old.join("data")).unwrap();
        std::fs::write(old.join("data/book"), "half").unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::open(&old).unwrap().set_modified(hour_ago).unwrap();
        let busy = cache.join(".unpacking-busy");
        std::fs::create_dir(&busy).unwrap();
        let kept = dir.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        std::os::unix::fs::symlink(&kept, cache.join(".unpacking-link")).unwrap();

        unpack(&cache, &Listing::parse(&packed.listing.json()).unwrap(), &contents).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, [".unpacking-busy".to_string(), ".unpacking-link".to_string(), packed.listing.hash()]);
        assert!(kept.is_dir());
    }

    #[test]
    fn links_and_commands_outside_the_folder_do_not_travel() {
        let dir = tempfile::tempdir().unwrap();
        let folder = bot_folder(dir.path());
        std::os::unix::fs::symlink("/etc/passwd", folder.join("data/key")).unwrap();
        let bot = ProgramBot::load(&folder.join("bot.toml")).unwrap();
        assert_eq!(pack_bot(&bot).unwrap_err(), "data/key is a link: links do not travel through the database");
        std::fs::remove_file(folder.join("data/key")).unwrap();
        std::fs::write(folder.join("bot.toml"), "name = \"b\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"../run\"]\n")
            .unwrap();
        let bot = ProgramBot::load(&folder.join("bot.toml")).unwrap();
        assert!(pack_bot(&bot).unwrap_err().contains("outside its folder"));
    }

    #[test]
    fn a_built_program_is_left_to_each_worker_and_size_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let folder = bot_folder(dir.path());
        std::fs::write(
            folder.join("bot.toml"),
            "name = \"b\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"./run\"]\nbuild = [\"true\"]\n",
        )
        .unwrap();
        let bot = ProgramBot::load(&folder.join("bot.toml")).unwrap();
        let paths: Vec<String> = pack_bot(&bot).unwrap().listing.files.into_iter().map(|f| f.path).collect();
        assert_eq!(paths, ["bot.toml", "data/book"]);
        std::fs::File::create(folder.join("data/big")).unwrap().set_len(MAX_BYTES + 1).unwrap();
        assert!(pack_bot(&bot).unwrap_err().contains("more than 64 MiB"));
    }
}
