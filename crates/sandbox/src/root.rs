//! The bot's own filesystem: a root built by the helper's second stage, in its own mount
//! namespace, out of an explicit list, and made the bot's root with `pivot_root`. A bot
//! sees what is put here and nothing else; nothing is ever added because of what its
//! command or its arguments say.
//!
//! What the root holds (every mount `nosuid`, `nodev` but the device nodes):
//! - the system's folders, read-only: from the host, [`HOST_SYSTEM`] and the parts of
//!   `/etc` programs need ([`crate::confine::ETC_READ_ONLY`]) plus the organiser's own
//!   list ([`System::Host`]); or every top folder of a system image the organiser chose
//!   ([`System::Image`], `/etc` whole);
//! - the bot's own folders (its manifest's folder), read-only, at their own paths;
//! - its working folder: a fresh `tmpfs` at [`BOX`] holding a copy of what the referee
//!   prepared ([`Work::Copy`]), or, for a build, the bot's folder itself, writable, at its
//!   own path ([`Work::Bind`]);
//! - a private `/tmp` and `/dev/shm`; the working folder at `/box` shares their `tmpfs`,
//!   whose size and number of files are the bot's disk quota;
//! - `/dev` with `null`, `zero`, `full`, `random` and `urandom` alone; a fresh `/proc` of
//!   its PID namespace; `/sys/devices/system/cpu` (how many CPUs there are).
//!
//! How: a small `tmpfs` is mounted over `/tmp` and made the root (the host's moves to
//! `/old` inside it), the new root is built under `/new` from `/old`'s folders, and then
//! becomes the root itself (`pivot_root(".", ".")` and a detached unmount of the old
//! one), so that neither the host's root nor the staging `tmpfs` stays reachable.

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use rustix::mount::{MountFlags, UnmountFlags, mount, mount_bind, mount_remount, unmount};

use crate::sys::describe;
use crate::{Root, System, Work};

/// Where the bot's working folder is in its root ([`Work::Copy`]).
pub const BOX: &str = "/box";

/// The host's folders every bot sees (those that exist), read-only, when no system image
/// is given: the programs and libraries of the system, and what tells how many CPUs there
/// are. Links among them (`/bin -> usr/bin`) stay links.
pub const HOST_SYSTEM: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys/devices/system/cpu"];

/// Top folders of a system image that are not taken from it: made fresh here, or left out.
const IMAGE_LEFT_OUT: &[&str] = &["proc", "sys", "dev", "tmp", "run", "boot", "home", "root", "mnt", "media", "lost+found", "box"];

/// The devices a bot gets.
pub const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The default disk quota: bytes and files of the working folder, `/tmp` and `/dev/shm`
/// together (`docs/bots.md`).
pub const DEFAULT_DISK: u64 = 64 * 1024 * 1024;
pub const DEFAULT_FILES: u64 = 4096;

/// Where the staging `tmpfs` is mounted; the host's `/tmp` is untouched outside the bot's
/// mount namespace.
const STAGE: &str = "/tmp";

/// What was built, for the helper's report.
pub struct Built {
    pub detail: String,
}

/// Builds the root and enters it. `workdir`: the working folder the referee gave (copied
/// into [`BOX`], or bound at its own path); `read_only`: the bot's own folders. Called in
/// the helper's second stage: pid 1 of a new PID namespace, in a new mount namespace
/// whose mounts are private, with its capabilities.
pub fn build(system: &System, root: &Root, workdir: &Path, read_only: &[PathBuf]) -> Result<Built, String> {
    let workdir = absolute(workdir).map_err(|err| format!("the working folder {}: {err}", workdir.display()))?;
    let flags = MountFlags::NOSUID | MountFlags::NODEV;
    tmpfs(Path::new(STAGE), flags, "mode=0700,size=64k,nr_inodes=64").map_err(|e| format!("cannot mount the staging tmpfs: {e}"))?;
    let stage = Path::new(STAGE);
    for dir in ["new", "old", "scratch"] {
        mkdir(&stage.join(dir), 0o700).map_err(|e| format!("cannot make the staging folders: {e}"))?;
    }
    std::env::set_current_dir(stage).map_err(|e| format!("cannot enter the staging tmpfs: {e}"))?;
    rustix::process::pivot_root(".", "old").map_err(|e| format!("cannot pivot to the staging tmpfs: {}", describe(e)))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the staging root: {e}"))?;
    let old = Path::new("/old");
    let new = Path::new("/new");

    // The skeleton: folders and links only, read-only once built.
    tmpfs(new, flags, "mode=0755,size=1m,nr_inodes=8192").map_err(|e| format!("cannot mount the new root: {e}"))?;
    // The bot's writable space, one tmpfs for its working folder, /tmp and /dev/shm.
    let mut quota = String::from("mode=0755");
    if let Some(bytes) = root.disk {
        quota.push_str(&format!(",size={bytes}"));
    }
    if let Some(files) = root.files {
        quota.push_str(&format!(",nr_inodes={files}"));
    }
    let scratch = Path::new("/scratch");
    tmpfs(scratch, flags, &quota).map_err(|e| format!("cannot mount the bot's tmpfs: {e}"))?;
    for (dir, mode) in [("box", 0o755), ("tmp", 0o1777), ("shm", 0o1777)] {
        let path = scratch.join(dir);
        mkdir(&path, mode)
            .and_then(|()| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)))
            .map_err(|e| format!("cannot make the bot's {dir}: {e}"))?;
    }

    let mut seen = Vec::new();
    match system {
        System::Host { extra } => {
            for path in HOST_SYSTEM.iter().map(PathBuf::from).chain(extra.iter().cloned()) {
                if place(&inside(old, &path), &inside(new, &path), Access::ReadOnly)? {
                    seen.push(path.display().to_string());
                }
            }
            skeleton_dir(&new.join("etc"))?;
            for entry in crate::confine::etc_entries(&old.join("etc")) {
                place(&old.join("etc").join(&entry), &new.join("etc").join(&entry), Access::ReadOnly)?;
            }
            seen.push("parts of /etc".to_string());
        }
        System::Image(image) => {
            let image = inside(old, image);
            let entries = std::fs::read_dir(&image).map_err(|e| format!("cannot read the system image {}: {e}", image.display()))?;
            let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
            names.sort();
            for name in names.iter().filter(|n| !IMAGE_LEFT_OUT.iter().any(|left| OsStr::new(left) == n.as_os_str())) {
                place(&image.join(name), &new.join(name), Access::ReadOnly)?;
            }
            let cpu = Path::new("/sys/devices/system/cpu");
            place(&inside(old, cpu), &inside(new, cpu), Access::ReadOnly)?;
            seen.push(format!("the system image {}", image.strip_prefix(old).unwrap_or(&image).display()));
        }
    }

    // /dev: the harmless devices, the standard links, its shm from the bot's tmpfs.
    let dev = new.join("dev");
    skeleton_dir(&dev)?;
    tmpfs(&dev, MountFlags::NOSUID | MountFlags::NOEXEC, "mode=0755,size=64k,nr_inodes=64")
        .map_err(|e| format!("cannot mount /dev: {e}"))?;
    for device in DEVICES {
        let target = dev.join(device);
        std::fs::File::create(&target).map_err(|e| format!("cannot make /dev/{device}: {e}"))?;
        bind(&old.join("dev").join(device), &target, MountFlags::NOSUID | MountFlags::NOEXEC, true)?;
    }
    for (name, target) in
        [("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")]
    {
        std::os::unix::fs::symlink(target, dev.join(name)).map_err(|e| format!("cannot make /dev/{name}: {e}"))?;
    }
    mkdir(&dev.join("shm"), 0o755).map_err(|e| format!("cannot make /dev/shm: {e}"))?;
    bind(&scratch.join("shm"), &dev.join("shm"), flags, false)?;
    remount_read_only(&dev, MountFlags::NOSUID | MountFlags::NOEXEC).map_err(|e| format!("cannot make /dev read-only: {e}"))?;

    // A fresh /proc of the bot's PID namespace (this process is its pid 1).
    let proc = new.join("proc");
    skeleton_dir(&proc)?;
    mount("proc", &proc, "proc", flags | MountFlags::NOEXEC, None::<&CStr>)
        .map_err(|e| format!("cannot mount a fresh /proc: {}", describe(e)))?;

    // A private /tmp, before the bot's own folders: one of them may lie below it.
    skeleton_dir(&new.join("tmp"))?;
    bind(&scratch.join("tmp"), &new.join("tmp"), flags, false)?;

    for path in read_only {
        let path = absolute(path).map_err(|e| format!("the bot's folder {}: {e}", path.display()))?;
        if overlaps(&path, Path::new(BOX)) {
            return Err(format!("the bot's folder {} lies in {BOX}, where its working folder goes", path.display()));
        }
        let target = inside(new, &path);
        // Already in sight (a folder of the system): nothing to add.
        if std::fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        if !place(&inside(old, &path), &target, Access::ReadOnly)? {
            return Err(format!("the bot's folder {} does not exist", path.display()));
        }
    }

    let work = match root.work {
        Work::Copy => {
            skeleton_dir(&new.join("box"))?;
            copy_tree(&inside(old, &workdir), &scratch.join("box"), 0)
                .map_err(|e| format!("cannot copy the working folder's files into {BOX}: {}", quota_text(&e, root)))?;
            bind(&scratch.join("box"), &new.join("box"), flags, false)?;
            format!("its working folder a tmpfs at {BOX}")
        }
        Work::Bind => {
            if !place(&inside(old, &workdir), &inside(new, &workdir), Access::Writable)? {
                return Err(format!("the working folder {} does not exist", workdir.display()));
            }
            format!("its working folder {} writable", workdir.display())
        }
    };

    remount_read_only(new, flags).map_err(|e| format!("cannot make the new root read-only: {e}"))?;
    std::env::set_current_dir(new).map_err(|e| format!("cannot enter the new root: {e}"))?;
    // The new root over the old one, then the old one (the staging tmpfs, and under it
    // the host's root) unmounted from under it.
    rustix::process::pivot_root(".", ".").map_err(|e| format!("cannot pivot to the new root: {}", describe(e)))?;
    unmount(".", UnmountFlags::DETACH).map_err(|e| format!("cannot let go of the old root: {}", describe(e)))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the root: {e}"))?;
    let quota = match (root.disk, root.files) {
        (Some(bytes), Some(files)) => format!("{} MiB and {files} files", bytes / (1024 * 1024)),
        (Some(bytes), None) => format!("{} MiB", bytes / (1024 * 1024)),
        (None, Some(files)) => format!("{files} files"),
        (None, None) => "no quota".to_string(),
    };
    Ok(Built {
        detail: format!("a root of its own: read-only {}, its own folders; {work}; private /tmp and /dev/shm; {quota}", seen.join(", ")),
    })
}

/// The working folder's path in the bot's root.
pub fn workdir_inside(root: &Root, workdir: &Path) -> PathBuf {
    match root.work {
        Work::Copy => PathBuf::from(BOX),
        Work::Bind => workdir.to_path_buf(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    ReadOnly,
    Writable,
}

/// Puts `source` (a path under the old root) at `target` (under the new one): a folder or
/// a file bound there, a link copied as a link. `false` when `source` does not exist.
fn place(source: &Path, target: &Path, access: Access) -> Result<bool, String> {
    let meta = match std::fs::symlink_metadata(source) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(err) => return Err(format!("cannot look at {}: {err}", shown(source))),
    };
    let parent = target.parent().unwrap_or(Path::new("/"));
    skeleton_dir(parent)?;
    let made = if meta.file_type().is_symlink() {
        let link = std::fs::read_link(source).map_err(|e| format!("cannot read the link {}: {e}", shown(source)))?;
        return std::os::unix::fs::symlink(&link, target)
            .map(|()| true)
            .map_err(|e| format!("cannot copy the link {}: {e}", shown(source)));
    } else if meta.is_dir() {
        mkdir(target, 0o755)
    } else {
        std::fs::File::create(target).map(drop)
    };
    made.map_err(|e| format!("cannot make {}: {e}", shown(target)))?;
    bind(source, target, MountFlags::NOSUID | MountFlags::NODEV, access == Access::ReadOnly)?;
    Ok(true)
}

/// Binds `source` at `target` (not recursively: nothing mounted below `source` comes
/// along), with `flags`, read-only if asked.
fn bind(source: &Path, target: &Path, flags: MountFlags, read_only: bool) -> Result<(), String> {
    mount_bind(source, target).map_err(|e| format!("cannot bind {} at {}: {}", shown(source), shown(target), describe(e)))?;
    // `mount_remount` adds MS_REMOUNT.
    let mut again = MountFlags::BIND | flags;
    if read_only {
        again |= MountFlags::RDONLY;
    }
    mount_remount(target, again, c"").map_err(|e| format!("cannot restrict {}: {}", shown(target), describe(e)))
}

fn tmpfs(target: &Path, flags: MountFlags, options: &str) -> io::Result<()> {
    // Options holding a NUL byte cannot be passed: EINVAL, as for a path holding one.
    let options = CString::new(options).map_err(|_| io::Error::from(rustix::io::Errno::INVAL))?;
    mount("tmpfs", target, "tmpfs", flags, options.as_c_str()).map_err(io::Error::from)
}

fn remount_read_only(target: &Path, flags: MountFlags) -> io::Result<()> {
    // `mount_remount` adds MS_REMOUNT.
    mount_remount(target, MountFlags::RDONLY | flags, c"").map_err(io::Error::from)
}

fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    std::fs::DirBuilder::new().mode(mode).create(path)
}

/// Makes a folder of the skeleton and its parents (no-op for those there).
fn skeleton_dir(path: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new().recursive(true).mode(0o755).create(path).map_err(|e| format!("cannot make {}: {e}", shown(path)))
}

/// `path` (absolute) under `base`.
fn inside(base: &Path, path: &Path) -> PathBuf {
    let mut joined = base.to_path_buf();
    joined.extend(path.components().filter(|c| matches!(c, Component::Normal(_))));
    joined
}

/// A path as the bot and the referee know it: absolute, without `.` or `..` (which must
/// not lead anywhere else than they say).
fn absolute(path: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err("not an absolute path".to_string());
    }
    let mut clean = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return Err("holds ..".to_string()),
        }
    }
    Ok(clean)
}

fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// How deep a working folder's tree may go.
const MAX_DEPTH: usize = 32;

/// Copies the regular files and folders of `from` into `to` (which exists), without
/// following links: the referee prepared `from` out of regular files alone, and anything
/// else found there now is refused.
fn copy_tree(from: &Path, to: &Path, depth: usize) -> io::Result<()> {
    if depth > MAX_DEPTH {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is nested too deep", shown(from))));
    }
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let mode = entry.metadata()?.permissions().mode() & 0o777;
            mkdir(&target, 0o700)?;
            copy_tree(&source, &target, depth + 1)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode | 0o700))?;
        } else if kind.is_file() {
            let mut input = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&source)?;
            let meta = input.metadata()?;
            if !meta.is_file() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", shown(&source))));
            }
            let mut output = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&target)?;
            io::copy(&mut input, &mut output)?;
            // Permissions without set-id bits.
            output.set_permissions(std::fs::Permissions::from_mode(meta.permissions().mode() & 0o777))?;
        } else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file or a folder", shown(&source))));
        }
    }
    Ok(())
}

/// An error of the copy into the bot's tmpfs, with the quota named when it was full.
fn quota_text(err: &io::Error, root: &Root) -> String {
    if err.raw_os_error() == Some(libc::ENOSPC) {
        let bytes = root.disk.map_or("no".to_string(), |b| format!("{} MiB", b / (1024 * 1024)));
        let files = root.files.map_or("no".to_string(), |f| f.to_string());
        return format!("its files do not fit its disk quota ({bytes}, {files} files)");
    }
    err.to_string()
}

/// A path of the staging view as the host knows it (`/old/x` is the host's `/x`).
fn shown(path: &Path) -> String {
    match path.strip_prefix("/old") {
        Ok(rest) => Path::new("/").join(rest).display().to_string(),
        Err(_) => {
            path.strip_prefix("/new").map_or_else(|_| path.display().to_string(), |rest| Path::new("/").join(rest).display().to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_placed_under_a_base() {
        assert_eq!(inside(Path::new("/old"), Path::new("/usr/lib")), PathBuf::from("/old/usr/lib"));
        assert_eq!(inside(Path::new("/new"), Path::new("/")), PathBuf::from("/new"));
        assert_eq!(absolute(Path::new("/a/./b")), Ok(PathBuf::from("/a/b")));
        assert!(absolute(Path::new("/a/../b")).is_err());
        assert!(absolute(Path::new("a")).is_err());
        assert_eq!(shown(Path::new("/old/etc/passwd")), "/etc/passwd");
        assert_eq!(shown(Path::new("/new/box")), "/box");
    }

    #[test]
    fn the_box_and_a_folder_in_it_overlap() {
        assert!(overlaps(Path::new("/box/bots/a"), Path::new(BOX)));
        assert!(overlaps(Path::new("/"), Path::new(BOX)));
        assert!(!overlaps(Path::new("/boxes/a"), Path::new(BOX)));
    }
}
