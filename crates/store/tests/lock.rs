//! The runner lock: one holder per tournament file, a second one refused with a line that
//! names the holder, the lock free again once its holder lets go, and a lock file that
//! was replaced or is a link never taken for ours.

use std::path::PathBuf;

use store::{HolderInfo, RunnerLock, Store, StoreError, lock_path};
use tempfile::TempDir;

fn db(dir: &TempDir) -> PathBuf {
    dir.path().join("results.db")
}

#[tokio::test]
async fn one_runner_at_a_time_and_the_second_learns_who_holds_it() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let store = Store::open(&path).await.unwrap();
    let first = store.lock_runner().await.expect("a free tournament");

    // A second runner (another open of the file: flock conflicts between open files,
    // within one process as between two) is refused, and told who holds it.
    let other = Store::open(&path).await.unwrap();
    let error = other.lock_runner().await.expect_err("held by the first");
    let StoreError::Busy { holder: HolderInfo::Known(holder), .. } = &error else {
        panic!("not a busy error naming its holder: {error:?}");
    };
    assert_eq!(holder.pid, std::process::id());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(holder.host, host.trim());
    let message = error.to_string();
    let expected = format!("{} is being run by process {} on {} since ", path.display(), std::process::id(), host.trim());
    assert!(message.starts_with(&expected), "{message}");
    assert!(message.ends_with(" GMT; one runner per tournament"), "{message}");
    first.check().expect("still the lock");

    drop(first);
    let second = other.lock_runner().await.expect("free once the first let go");
    second.check().expect("the second's lock");
}

#[tokio::test]
async fn a_lock_file_removed_under_its_holder_stops_it() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let lock = RunnerLock::try_acquire(&path).expect("free");
    std::fs::remove_file(lock_path(&path)).unwrap();
    // Someone else makes a new lock file and takes it: the first must notice.
    let usurper = RunnerLock::try_acquire(&path).expect("a new file is free");
    let error = lock.check().expect_err("the lock was replaced");
    assert!(matches!(error, StoreError::LockLost { .. }), "{error:?}");
    usurper.check().expect("the new holder's lock");
}

#[test]
fn a_lock_path_that_is_a_link_is_never_followed() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, "untouched").unwrap();
    std::os::unix::fs::symlink(&target, lock_path(&path)).unwrap();
    let error = RunnerLock::try_acquire(&path).expect_err("a link is not a lock file");
    assert!(matches!(error, StoreError::Lock { .. }), "{error:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
}

#[tokio::test]
async fn opening_a_file_never_waits_for_a_writer_frozen_mid_transaction() {
    use sqlx::Connection;
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    Store::open(&path).await.unwrap().close().await;
    // Another process's runner, stopped (SIGSTOP) inside a write transaction.
    let mut writer = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE").execute(&mut writer).await.unwrap();
    sqlx::query("INSERT INTO notes (stage, entrant, text, stored_ms) VALUES (0, NULL, 'x', 0)").execute(&mut writer).await.unwrap();
    // A second runner opens the file to learn it is taken: that must not block on the
    // writer (the busy timeout is 30 s; 10 s is far above a read on any machine).
    let opened = tokio::time::timeout(std::time::Duration::from_secs(10), Store::open(&path)).await;
    let store = opened.expect("Store::open waited for the frozen writer").expect("open");
    assert_eq!(store.tournament().await.unwrap(), None);
    sqlx::query("ROLLBACK").execute(&mut writer).await.unwrap();
}
