//! A bot's folder as ground the bot controls: its files are opened without following
//! links (`O_NOFOLLOW`) and must be regular files with one name, and a tree is copied only
//! when it holds nothing but such files and folders. A link, a second hard link, a FIFO or
//! a device is refused with one line naming it, so that the referee, which may run as
//! root, never reads or writes through a path a bot could have prepared.

use std::fs::File;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{Mode, OFlags};

fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("{} {what}", path.display()))
}

/// Opens a file for reading without following a link at its last step, and checks that
/// it is a regular file with one name (a hard link could name a file outside).
pub fn open_regular(path: &Path) -> io::Result<File> {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just after.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|err| match err {
        rustix::io::Errno::LOOP => refused(path, "is a link: links are refused"),
        other => io::Error::from(other),
    })?;
    let file = File::from(fd);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if meta.nlink() != 1 {
        return Err(refused(path, "has another hard link: links are refused"));
    }
    Ok(file)
}

/// Creates a new file, failing if anything (a file, a link, a folder) is already there.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot create {}: {err}", path.display())))
}

/// Copies `from` (a regular file) into a new file `to` with `mode`, at most `limit` bytes
/// (more is an error); returns the bytes copied.
pub fn copy_file(from: &Path, to: &Path, mode: u32, limit: u64) -> io::Result<u64> {
    let source = open_regular(from)?;
    if source.metadata()?.len() > limit {
        return Err(refused(from, &format!("is larger than {limit} bytes")));
    }
    let mut target = create_new(to, mode)?;
    // The size was checked on the open file; `take` holds the limit even if it grows.
    let copied = io::copy(&mut io::Read::take(source, limit + 1), &mut target)?;
    if copied > limit {
        return Err(refused(from, &format!("is larger than {limit} bytes")));
    }
    target.set_permissions(std::fs::Permissions::from_mode(mode))?;
    Ok(copied)
}

/// Refuses a tree that holds anything but folders and regular files with one name; the
/// error names the first offender by its path under `root`.
pub fn check_tree(root: &Path) -> io::Result<()> {
    walk(root, Path::new(""), &mut |_, _, _| Ok(()))
}

/// Copies the tree `from` into the existing folder `to` without following links: folders
/// and regular files only (anything else is refused, see [`check_tree`]); files keep their
/// executable bits.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    walk(from, Path::new(""), &mut |source, rel, is_dir| {
        let target = to.join(rel);
        if is_dir {
            return std::fs::create_dir(&target);
        }
        let file = open_regular(source)?;
        let mode = if file.metadata()?.mode() & 0o111 != 0 { 0o755 } else { 0o644 };
        let mut out = create_new(&target, mode)?;
        io::copy(&mut &file, &mut out)?;
        Ok(())
    })
}

/// Visits every entry under `root` (folders before their contents), by `symlink_metadata`,
/// refusing links and special files.
fn walk(root: &Path, rel: &Path, visit: &mut impl FnMut(&Path, &Path, bool) -> io::Result<()>) -> io::Result<()> {
    let dir = root.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let rel = rel.join(entry.file_name());
        let path = root.join(&rel);
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            return Err(refused(&rel, "is a link: links are refused"));
        }
        if meta.is_dir() {
            visit(&path, &rel, true)?;
            walk(root, &rel, visit)?;
        } else if meta.is_file() {
            if meta.nlink() != 1 {
                return Err(refused(&rel, "has another hard link: links are refused"));
            }
            visit(&path, &rel, false)?;
        } else {
            return Err(refused(&rel, "is not a regular file or folder"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "secret").unwrap();
        let tree = dir.path().join("tree");
        std::fs::create_dir_all(tree.join("sub")).unwrap();
        std::fs::write(tree.join("sub/book"), "opening book").unwrap();
        assert!(check_tree(&tree).is_ok());
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        copy_tree(&tree, &copy).unwrap();
        assert_eq!(std::fs::read_to_string(copy.join("sub/book")).unwrap(), "opening book");

        std::os::unix::fs::symlink(&outside, tree.join("sub/link")).unwrap();
        assert_eq!(check_tree(&tree).unwrap_err().to_string(), "sub/link is a link: links are refused");
        std::fs::remove_file(tree.join("sub/link")).unwrap();
        std::fs::hard_link(&outside, tree.join("hard")).unwrap();
        assert_eq!(check_tree(&tree).unwrap_err().to_string(), "hard has another hard link: links are refused");
        std::fs::remove_file(tree.join("hard")).unwrap();
        rustix::fs::mknodat(rustix::fs::CWD, tree.join("fifo"), rustix::fs::FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
        assert_eq!(check_tree(&tree).unwrap_err().to_string(), "fifo is not a regular file or folder");

        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(open_regular(&link).unwrap_err().to_string().ends_with("is a link: links are refused"));
        assert!(open_regular(&tree.join("fifo")).unwrap_err().to_string().ends_with("is not a regular file"));
        assert!(create_new(&link, 0o644).is_err(), "a dangling or not, a link is never written through");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
    }
}
