//! One runner per tournament: an exclusive lock on the results file, held by whoever
//! plays its games, naming its holder (host, pid, since when) for anyone who finds it
//! taken.
//!
//! The lock is `flock` on a file beside the database (`FILE.lock`), taken through std's
//! `File::try_lock`. The kernel drops it when its holder dies, SIGKILL included, so a
//! dead runner never blocks the next one and no expiry is needed (the drop may come a
//! moment after the death: a lock whose named holder on this machine is dead is waited
//! for, a few seconds at most); a runner that lingers
//! (a restarted service whose old process still runs, two `serve` on one data folder,
//! `tournament` and `serve` on one file) keeps it, and the second runner waits for it
//! or refuses. The holder also checks before every store that the lock file is still the
//! one it holds (a lock file deleted and made anew by another runner would otherwise let
//! two runners write).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::{StoreError, now_ms};

/// Who holds a tournament's lock, as written in the lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub host: String,
    pub pid: u32,
    /// When it took the lock, milliseconds since the Unix epoch.
    pub since_ms: i64,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {} since {}", self.pid, self.host, format_utc(self.since_ms))
    }
}

/// The holder of a lock file, or what it could not say (a lock just taken, whose holder
/// has not written its line yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HolderInfo {
    Known(Holder),
    Unknown,
}

impl std::fmt::Display for HolderInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HolderInfo::Known(holder) => holder.fmt(f),
            HolderInfo::Unknown => f.write_str("another process"),
        }
    }
}

/// The lock of one tournament, held until dropped.
#[derive(Debug)]
pub struct RunnerLock {
    file: File,
    path: PathBuf,
    /// The database's name for messages.
    db: String,
}

impl RunnerLock {
    /// Takes the lock of the tournament in `db` if it is free; if another runner holds
    /// it, [`StoreError::Busy`] names the holder. Blocking (small file calls): call it
    /// off the async runtime's threads.
    pub fn try_acquire(db: &Path) -> Result<RunnerLock, StoreError> {
        let path = lock_path(db);
        let name = db.display().to_string();
        let io = |source: std::io::Error| StoreError::Lock { file: name.clone(), source };
        // Never through a link: the lock file is ours to write.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .map_err(io)?;
        let began = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let mut text = String::new();
                    file.seek(SeekFrom::Start(0)).map_err(io)?;
                    let holder = match file.read_to_string(&mut text) {
                        Ok(_) => parse_holder(&text),
                        Err(_) => HolderInfo::Unknown,
                    };
                    // A holder of this machine that is dead: the kernel lets its lock go
                    // a moment after its end (a runner killed and started again at once).
                    if dead_here(&holder) && began.elapsed() < DEAD_HOLDER_GRACE {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        continue;
                    }
                    return Err(StoreError::Busy { file: name, holder });
                }
                Err(TryLockError::Error(source)) => return Err(io(source)),
            }
        }
        let holder = Holder { host: host_name(), pid: std::process::id(), since_ms: now_ms() };
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(format!("host={}\npid={}\nsince_ms={}\n", holder.host, holder.pid, holder.since_ms).as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)?;
        Ok(RunnerLock { file, path, db: name })
    }

    /// Checks that this is still the tournament's lock: the file at the lock's path is
    /// the one held (it was not deleted and made anew by someone else).
    pub fn check(&self) -> Result<(), StoreError> {
        let held = self.file.metadata().map_err(|source| StoreError::Lock { file: self.db.clone(), source })?;
        let lost = || StoreError::LockLost { file: self.db.clone(), lock: self.path.display().to_string() };
        match std::fs::symlink_metadata(&self.path) {
            Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => Ok(()),
            _ => Err(lost()),
        }
    }
}

/// The lock file of a database: `FILE.lock` beside it.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The holder written in a lock file; a file being written or damaged is `Unknown`.
fn parse_holder(text: &str) -> HolderInfo {
    let field = |key: &str| text.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix('=')).map(str::trim);
    let host = field("host").map(|h| h.chars().filter(|c| !c.is_control()).take(64).collect::<String>());
    let pid = field("pid").and_then(|p| p.parse().ok());
    let since = field("since_ms").and_then(|s| s.parse().ok());
    match (host, pid, since) {
        (Some(host), Some(pid), Some(since_ms)) => HolderInfo::Known(Holder { host, pid, since_ms }),
        _ => HolderInfo::Unknown,
    }
}

/// How long a lock whose named holder has died on this machine is waited for: the kernel
/// drops a dead process's locks when the last of its files is released, which may come
/// a moment after the process is gone.
const DEAD_HOLDER_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether `holder` names a process of this machine that no longer exists (a pid reused
/// since counts as alive: the lock is then refused as before).
fn dead_here(holder: &HolderInfo) -> bool {
    let HolderInfo::Known(holder) = holder else { return false };
    let Some(pid) = rustix::process::Pid::from_raw(holder.pid as i32) else { return false };
    holder.host == host_name() && rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

pub(crate) fn host_name() -> String {
    rustix::system::uname().nodename().to_string_lossy().into_owned()
}

/// A moment as an HTTP date (`Mon, 23 Nov 2026 20:30:00 GMT`).
fn format_utc(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    httpdate::fmt_http_date(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_file_names_its_holder() {
        let text = "host=box\npid=42\nsince_ms=0\n";
        assert_eq!(parse_holder(text), HolderInfo::Known(Holder { host: "box".into(), pid: 42, since_ms: 0 }));
        assert_eq!(parse_holder(""), HolderInfo::Unknown);
        assert_eq!(parse_holder("pid=x"), HolderInfo::Unknown);
    }

    /// A lock file held (by another open file here) and naming `pid` of this machine.
    fn held_by(db: &Path, pid: u32) -> File {
        let holder = File::options().read(true).write(true).create(true).truncate(true).open(lock_path(db)).unwrap();
        holder.try_lock().unwrap();
        std::fs::write(lock_path(db), format!("host={}\npid={pid}\nsince_ms=0\n", host_name())).unwrap();
        holder
    }

    #[test]
    fn a_dead_runners_lock_is_waited_for_and_a_live_ones_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        // The holder named is dead and its lock goes a moment later, as the kernel lets a
        // killed runner's lock go: taken.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let holder = held_by(&db, dead);
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(holder);
        });
        let lock = RunnerLock::try_acquire(&db).expect("a dead holder's lock is taken once it goes");
        release.join().unwrap();
        drop(lock);
        // The holder named is alive (this process): refused at once, naming it.
        let _holder = held_by(&db, std::process::id());
        let began = std::time::Instant::now();
        match RunnerLock::try_acquire(&db) {
            Err(StoreError::Busy { holder: HolderInfo::Known(holder), .. }) => assert_eq!(holder.pid, std::process::id()),
            other => panic!("a live holder's lock was not refused: {other:?}"),
        }
        assert!(began.elapsed() < DEAD_HOLDER_GRACE, "a live holder is not waited for");
    }
}
