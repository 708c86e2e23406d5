//! Test support: a throwaway PostgreSQL cluster for a test, made, started and stopped
//! with `scripts/pg-cluster` (the helper people use to try distributed tournaments), in a
//! temporary folder that goes with it.
//!
//! Without PostgreSQL installed a test skips with a message (`Cluster::start` gives
//! `None`), except under CI (`CI` set), where it fails: `scripts/test` installs Debian's
//! `postgresql` first (`scripts/setup-postgres-tests`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A running cluster, stopped and removed when dropped.
pub struct Cluster {
    dir: tempfile::TempDir,
    /// The URL of its `postgres` database.
    url: String,
}

/// The repository's `scripts/pg-cluster`.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-cluster")
}

/// Whether PostgreSQL's server programs are installed where the script looks.
fn installed() -> bool {
    if std::env::var_os("ARBITER_PG_BIN").is_some() {
        return true;
    }
    std::fs::read_dir("/usr/lib/postgresql")
        .map(|versions| versions.flatten().any(|version| version.path().join("bin/pg_ctl").exists()))
        .unwrap_or(false)
}

impl Cluster {
    /// Starts a cluster, or `None` (after saying why) when PostgreSQL is not installed
    /// outside CI. Panics when the cluster cannot start.
    pub fn start() -> Option<Cluster> {
        if !installed() {
            let message = "PostgreSQL tests need Debian's postgresql; run scripts/setup-postgres-tests (scripts/test does)";
            if std::env::var_os("CI").is_some() {
                panic!("{message}");
            }
            eprintln!("skipped: {message}");
            return None;
        }
        let dir = tempfile::Builder::new().prefix("arbiter-pg-").tempdir().expect("a temporary folder");
        let out = Command::new(script()).arg("start").arg(dir.path().join("cluster")).output().expect("scripts/pg-cluster runs");
        assert!(out.status.success(), "scripts/pg-cluster start failed: {}", String::from_utf8_lossy(&out.stderr));
        let url = String::from_utf8(out.stdout).expect("a URL").trim().to_string();
        Some(Cluster { dir, url })
    }

    /// A new, empty database of this cluster, and its URL.
    pub fn database(&self) -> String {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("t{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let bin = self.bin();
        let out = Command::new(bin.join("createdb")).args(["--maintenance-db", &self.url, &name]).output().expect("createdb runs");
        assert!(out.status.success(), "createdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let base = self.url.rsplit_once('/').expect("a URL with a database").0;
        format!("{base}/{name}")
    }

    /// Restarts the server (fast shutdown: every connection is cut), on the same port.
    pub fn restart(&self) {
        let out = Command::new(script()).arg("restart").arg(self.dir.path().join("cluster")).output().expect("scripts/pg-cluster runs");
        assert!(out.status.success(), "scripts/pg-cluster restart failed: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn bin(&self) -> PathBuf {
        if let Some(bin) = std::env::var_os("ARBITER_PG_BIN") {
            return PathBuf::from(bin);
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .map(|version| version.path().join("bin"))
            .filter(|bin| bin.join("createdb").exists())
            .collect();
        found.sort();
        found.pop().expect("PostgreSQL's programs")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script()).arg("stop").arg(self.dir.path().join("cluster")).output();
    }
}
