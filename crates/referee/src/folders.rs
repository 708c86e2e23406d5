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

/// The lock file inside a game folder, locked while its game runs.
const LOCK: &str = ".lock";

/// A game's folder in the temporary folder, removed when dropped.
pub struct GameFolder {
    // Dropped first: the folder is gone before its lock is released.
    dir: tempfile::TempDir,
    _lock: File,
}

impl GameFolder {
    /// Makes a fresh game folder in the temporary folder (`TMPDIR`) and locks it.
    pub fn create() -> io::Result<GameFolder> {
        let dir = tempfile::Builder::new().prefix(PREFIX).tempdir()?;
        // Locked under another name, then renamed: a `.lock` that [`remove_stale`] can
        // see is always one its owner already holds.
        let unlocked = dir.path().join(".lock.new");
        let lock = File::create_new(&unlocked)?;
        lock.lock()?;
        std::fs::rename(&unlocked, dir.path().join(LOCK))?;
        Ok(GameFolder { dir, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes the game folders in the temporary folder whose runs are gone (their lock is
/// free), and returns them. Folders of live runs, folders of other users, links and
/// folders without a lock (being made right now) are left alone.
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
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        // Not followed: a link named like a game folder is not ours to empty.
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let Ok(lock) = File::open(path.join(LOCK)) else { continue };
        if lock.try_lock().is_ok() && std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // A folder being made (no lock yet), and another name.
        let young = temp.path().join(format!("{PREFIX}young"));
        std::fs::create_dir(&young).unwrap();
        let other = temp.path().join("arbiter-other");
        std::fs::create_dir(&other).unwrap();
        File::create(other.join(LOCK)).unwrap();

        let removed = remove_stale_in(temp.path()).unwrap();
        assert_eq!(removed, vec![dead.clone()]);
        assert!(!dead.exists());
        assert!(live.join(LOCK).exists() && young.exists() && other.exists());
        drop(held);
        assert_eq!(remove_stale_in(temp.path()).unwrap(), vec![live]);
    }
}
