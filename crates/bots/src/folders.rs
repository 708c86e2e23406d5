//! The working folders of games in the temporary folder: `arbiter-game-*`, one per game,
//! each holding a locked `.lock` file for as long as its game runs. The lock goes when
//! its process does, however it ends, so a later run can tell the folders of dead runs
//! (removed by [`remove_stale`]) from those of live ones (left alone), whatever the
//! process ids.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The name every game folder starts with.
pub const PREFIX: &str = "arbiter-game-";

/// The name a game folder has while it is made, before its lock is held.
const MAKING_PREFIX: &str = "arbiter-making-";

/// The name a game folder has while it is removed, its lock gone or going.
const REMOVING_PREFIX: &str = "arbiter-removing-";

/// The lock file inside a game folder, locked while its game runs.
const LOCK: &str = ".lock";

/// The folders of the sandbox's lifelines (`jail`), each holding the FIFO `lifeline`
/// that its referee holds open for as long as it lives.
const LIFELINE_PREFIX: &str = "arbiter-lifeline-";

/// How long a folder may stay half made (a folder being made, a lifeline folder without
/// its FIFO yet) before it counts as left by a run that died.
const HALF_MADE_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// A game's folder in the temporary folder, removed when dropped.
pub struct GameFolder {
    path: PathBuf,
    _lock: File,
}

impl GameFolder {
    /// Makes a fresh game folder in the temporary folder (`TMPDIR`) and locks it.
    pub fn create() -> io::Result<GameFolder> {
        // Made and locked under another name, then renamed: a folder that
        // [`remove_stale`] can see always holds a lock, taken before it was visible (a
        // run killed in between leaves an `arbiter-making-*` folder, empty or holding a
        // free lock, which [`remove_stale`] removes a minute later).
        let making = tempfile::Builder::new().prefix(MAKING_PREFIX).tempdir()?;
        let lock = File::create_new(making.path().join(LOCK))?;
        lock.lock()?;
        let name = making.path().file_name().expect("a temporary folder has a name").to_string_lossy();
        let path = making.path().with_file_name(format!("{PREFIX}{}", &name[MAKING_PREFIX.len()..]));
        rustix::fs::renameat_with(rustix::fs::CWD, making.path(), rustix::fs::CWD, &path, rustix::fs::RenameFlags::NOREPLACE)?;
        // Renamed: from here on it is this folder's to remove.
        let _ = making.keep();
        Ok(GameFolder { path, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl GameFolder {
    /// [`GameFolder::create`] off the runtime's threads.
    pub async fn create_async() -> io::Result<GameFolder> {
        tokio::task::spawn_blocking(GameFolder::create).await.map_err(io::Error::other)?
    }

    /// Removes the folder (a whole tree of bot files) off the runtime's threads, its
    /// lock held until it is out of sight. The end of every game that was not cancelled;
    /// a cancelled game's folder goes when it is dropped. The lock file is closed there
    /// too, after the folder has gone: its last close frees the folder itself, which
    /// can wait for the disk (a discard on this project's machines, seen with `perf` on
    /// the lanes' threads).
    pub async fn remove_async(self) {
        // A runtime shutting down drops the task unrun, and with it the folder: removed
        // by the drop, as a cancelled game's is.
        let _ = tokio::task::spawn_blocking(move || drop(self)).await;
    }
}

impl Drop for GameFolder {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = remove(&self.path);
        }
    }
}

/// Removes a game folder, first moving it out of sight: a process killed halfway
/// leaves an `arbiter-removing-*` folder (which [`remove_stale`] removes), never a game
/// folder without its lock.
fn remove(path: &Path) -> io::Result<()> {
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let removing = path.with_file_name(format!("{REMOVING_PREFIX}{}", name.strip_prefix(PREFIX).unwrap_or(&name)));
    match std::fs::rename(path, &removing) {
        Ok(()) => std::fs::remove_dir_all(&removing),
        Err(_) => std::fs::remove_dir_all(path),
    }
}

/// Removes the game folders in the temporary folder whose runs are gone (their lock is
/// free), and returns them; also removes, without a word, those a process was removing
/// (it may have died meanwhile), those being made by a run that died (a minute after,
/// their lock free or never made), and the lifeline folders of dead referees (nobody
/// holds the FIFO open any more). Folders of live runs, folders of other users and
/// links are left alone.
pub fn remove_stale() -> io::Result<Vec<PathBuf>> {
    remove_stale_in(&std::env::temp_dir())
}

/// [`remove_stale`] in `temp`.
pub fn remove_stale_in(temp: &Path) -> io::Result<Vec<PathBuf>> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(temp)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let (game, removing) = (name.starts_with(PREFIX), name.starts_with(REMOVING_PREFIX));
        let (making, lifeline) = (name.starts_with(MAKING_PREFIX), name.starts_with(LIFELINE_PREFIX));
        if !game && !removing && !making && !lifeline {
            continue;
        }
        let path = entry.path();
        // Not followed: a link named like a game folder is not ours to empty.
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let half_made_long = meta.modified().ok().and_then(|at| at.elapsed().ok()).is_some_and(|age| age > HALF_MADE_GRACE);
        if lifeline {
            if orphaned_lifeline(&path.join("lifeline")).unwrap_or(half_made_long) {
                let _ = std::fs::remove_dir_all(&path);
            }
            continue;
        }
        if making {
            // A minute old and its lock free, or never made (a run killed between the
            // folder and its lock file leaves it empty).
            let lock_free = match File::open(path.join(LOCK)) {
                Ok(lock) => lock.try_lock().is_ok(),
                Err(err) => err.kind() == io::ErrorKind::NotFound,
            };
            if half_made_long && lock_free {
                let _ = std::fs::remove_dir_all(&path);
            }
            continue;
        }
        if removing {
            // Given up by its game: whoever removes it, a second remover does no harm.
            let _ = std::fs::remove_dir_all(&path);
            continue;
        }
        let Ok(lock) = File::open(path.join(LOCK)) else { continue };
        if lock.try_lock().is_ok() && remove(&path).is_ok() {
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Whether nobody holds a lifeline FIFO open any more (its referee died): opening it for
/// writing without waiting then finds no reader. `None` when there is no FIFO there.
fn orphaned_lifeline(fifo: &Path) -> Option<bool> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let meta = std::fs::symlink_metadata(fifo).ok()?;
    if !meta.file_type().is_fifo() {
        return None;
    }
    // A live referee holds it read-write: the open succeeds, and closing this writer
    // again ends nothing (the referee's own end stays open).
    match std::fs::OpenOptions::new().write(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(fifo) {
        Ok(_) => Some(false),
        Err(err) => Some(err.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_folder_is_locked_while_it_lives() {
        let folder = GameFolder::create().unwrap();
        let path = folder.path().to_path_buf();
        assert!(path.file_name().unwrap().to_string_lossy().starts_with(PREFIX));
        let other = File::open(path.join(LOCK)).unwrap();
        assert!(other.try_lock().is_err(), "held while the folder lives");
        drop(folder);
        assert!(!path.exists());
    }

    #[test]
    fn only_folders_of_dead_runs_go() {
        let temp = tempfile::tempdir().unwrap();
        // A live game's folder: locked by this process.
        let live = temp.path().join(format!("{PREFIX}live"));
        std::fs::create_dir(&live).unwrap();
        let held = File::create(live.join(LOCK)).unwrap();
        held.lock().unwrap();
        // A dead run's folder: its lock file is there, nobody holds it.
        let dead = temp.path().join(format!("{PREFIX}dead"));
        std::fs::create_dir_all(dead.join("side-0")).unwrap();
        std::fs::write(dead.join("side-0/field.txt"), "x").unwrap();
        File::create(dead.join(LOCK)).unwrap();
        // A folder being made, and another name.
        let young = temp.path().join(format!("{MAKING_PREFIX}young"));
        std::fs::create_dir(&young).unwrap();
        File::create(young.join(LOCK)).unwrap();
        let other = temp.path().join("arbiter-other");
        std::fs::create_dir(&other).unwrap();
        File::create(other.join(LOCK)).unwrap();
        // A folder whose removal stopped halfway (its lock already gone).
        let half = temp.path().join(format!("{REMOVING_PREFIX}half"));
        std::fs::create_dir_all(half.join("side-1")).unwrap();

        // Folders being made by runs that died over a minute ago: one with its lock
        // file, free, and one killed before its lock file was made (empty); and an empty
        // one made just now, whose run may be about to make its lock.
        let a_while_ago = std::time::SystemTime::now() - 2 * HALF_MADE_GRACE;
        let old_locked = temp.path().join(format!("{MAKING_PREFIX}old-locked"));
        std::fs::create_dir(&old_locked).unwrap();
        File::create(old_locked.join(LOCK)).unwrap();
        let old_empty = temp.path().join(format!("{MAKING_PREFIX}old-empty"));
        std::fs::create_dir(&old_empty).unwrap();
        for folder in [&old_locked, &old_empty] {
            File::open(folder).unwrap().set_modified(a_while_ago).unwrap();
        }
        let young_empty = temp.path().join(format!("{MAKING_PREFIX}young-empty"));
        std::fs::create_dir(&young_empty).unwrap();

        let removed = remove_stale_in(temp.path()).unwrap();
        assert_eq!(removed, vec![dead.clone()]);
        assert!(!dead.exists() && !half.exists());
        assert!(!temp.path().join(format!("{REMOVING_PREFIX}dead")).exists());
        assert!(live.join(LOCK).exists() && young.exists() && other.exists());
        assert!(!old_locked.exists() && !old_empty.exists(), "half-made folders of dead runs go");
        assert!(young_empty.exists(), "a folder being made now stays");
        drop(held);
        assert_eq!(remove_stale_in(temp.path()).unwrap(), vec![live]);
    }

    #[test]
    fn lifeline_folders_of_dead_referees_go() {
        let temp = tempfile::tempdir().unwrap();
        let fifo = |path: &Path| rustix::fs::mkfifoat(rustix::fs::CWD, path, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR);
        // A live referee's: it holds its FIFO open read-write.
        let live = temp.path().join(format!("{LIFELINE_PREFIX}live"));
        std::fs::create_dir(&live).unwrap();
        fifo(&live.join("lifeline")).unwrap();
        let held = std::fs::OpenOptions::new().read(true).write(true).open(live.join("lifeline")).unwrap();
        // A dead one's: nobody holds it.
        let dead = temp.path().join(format!("{LIFELINE_PREFIX}dead"));
        std::fs::create_dir(&dead).unwrap();
        fifo(&dead.join("lifeline")).unwrap();
        // One just made, its FIFO not there yet.
        let young = temp.path().join(format!("{LIFELINE_PREFIX}young"));
        std::fs::create_dir(&young).unwrap();
        remove_stale_in(temp.path()).unwrap();
        assert!(!dead.exists(), "a dead referee's lifeline folder goes");
        assert!(live.exists() && young.exists(), "a live one and one being made stay");
        // The live referee's end still works after the look.
        use std::io::Write;
        (&held).write_all(b"g").unwrap();
        drop(held);
        remove_stale_in(temp.path()).unwrap();
        assert!(!live.exists(), "gone once its referee let go");
    }
}
