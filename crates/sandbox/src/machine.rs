//! What the organiser chose for this machine's bots, and what this machine can do: the
//! system the bots see (the host's folders and the organiser's further ones, or a system
//! image), and whether a root of the bot's own can be built here. Set once per process
//! (the command line's `--system-image` and `--system-path`, else the environment's
//! `ARBITER_SYSTEM_IMAGE` and `ARBITER_SYSTEM_PATHS`), read by whatever starts a bot.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::System;

/// The variable naming a system image (a folder holding a root filesystem).
pub const IMAGE_VAR: &str = "ARBITER_SYSTEM_IMAGE";
/// The variable listing further host folders the bots may read (`:`-separated).
pub const PATHS_VAR: &str = "ARBITER_SYSTEM_PATHS";

static SYSTEM: OnceLock<System> = OnceLock::new();

/// Why the organiser's system cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SystemError {
    #[error("the system image {0} is not a folder holding a root filesystem (no usr folder in it)")]
    NotAnImage(PathBuf),
    #[error("the system path {0} must be absolute")]
    Relative(PathBuf),
    #[error("the system path {0} does not exist")]
    Missing(PathBuf),
    #[error("give a system image or further system paths, not both")]
    Both,
}

/// The system every bot of this process sees: what [`set_system`] set, else what the
/// environment says, else the host's folders.
pub fn system() -> &'static System {
    SYSTEM.get_or_init(|| from_environment().ok().flatten().unwrap_or_default())
}

/// Sets the system every bot of this process sees, once, before any bot starts; checked
/// as [`check_system`] does. A second call is refused (the first stays).
pub fn set_system(system: System) -> Result<(), SystemError> {
    let system = check_system(system)?;
    let _ = SYSTEM.set(system);
    Ok(())
}

/// The system the environment names, checked; `Ok(None)` when it names none.
pub fn from_environment() -> Result<Option<System>, SystemError> {
    let image = std::env::var_os(IMAGE_VAR).filter(|v| !v.is_empty()).map(PathBuf::from);
    let paths: Vec<PathBuf> = std::env::var_os(PATHS_VAR).map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    if image.is_none() && paths.iter().all(|p| p.as_os_str().is_empty()) {
        return Ok(None);
    }
    system_from(image, paths).map(Some)
}

/// The system named by an image or further paths (not both), checked.
pub fn system_from(image: Option<PathBuf>, paths: Vec<PathBuf>) -> Result<System, SystemError> {
    let paths: Vec<PathBuf> = paths.into_iter().filter(|p| !p.as_os_str().is_empty()).collect();
    let system = match (image, paths.is_empty()) {
        (Some(_), false) => return Err(SystemError::Both),
        (Some(image), true) => System::Image(image),
        (None, _) => System::Host { extra: paths },
    };
    check_system(system)
}

/// Checks a system and makes its paths canonical (the bot's root is built from real
/// paths: a link on the way would be resolved inside the new root, where it leads
/// nowhere).
pub fn check_system(system: System) -> Result<System, SystemError> {
    match system {
        System::Image(image) => {
            let real = std::fs::canonicalize(&image).map_err(|_| SystemError::NotAnImage(image.clone()))?;
            if !real.join("usr").is_dir() {
                return Err(SystemError::NotAnImage(image));
            }
            Ok(System::Image(real))
        }
        System::Host { extra } => {
            let mut real = Vec::new();
            for path in extra {
                if !path.is_absolute() {
                    return Err(SystemError::Relative(path));
                }
                real.push(std::fs::canonicalize(&path).map_err(|_| SystemError::Missing(path.clone()))?);
            }
            Ok(System::Host { extra: real })
        }
    }
}

/// The system a bot sees, in words (`arbiter sandbox-check`'s first line).
pub fn describe(system: &System) -> String {
    match system {
        System::Image(image) => format!("the system image {} (read-only, /etc whole)", image.display()),
        System::Host { extra } => {
            let mut text = format!("the machine's {} and parts of /etc (read-only)", crate::root::HOST_SYSTEM.join(", "));
            if !extra.is_empty() {
                let extra: Vec<String> = extra.iter().map(|p| p.display().to_string()).collect();
                text.push_str(&format!(", and {} ({PATHS_VAR})", extra.join(", ")));
            }
            text
        }
    }
}

/// Whether this process can build bots their own roots: a mount namespace of its own,
/// private mounts and a `tmpfs` in it (CAP_SYS_ADMIN). Tried once, on a thread of its
/// own that ends with the namespace.
pub fn roots_supported() -> bool {
    static SUPPORTED: OnceLock<bool> = OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        std::thread::spawn(|| {
            use rustix::mount::{MountFlags, MountPropagationFlags, mount, mount_change};
            crate::sys::unshare(rustix::thread::UnshareFlags::NEWNS).is_ok()
                && mount_change("/", MountPropagationFlags::REC | MountPropagationFlags::PRIVATE).is_ok()
                && mount("tmpfs", "/tmp", "tmpfs", MountFlags::NOSUID | MountFlags::NODEV, c"size=4k").is_ok()
        })
        .join()
        .unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systems_are_checked() {
        assert_eq!(system_from(None, vec![]), Ok(System::Host { extra: vec![] }));
        assert_eq!(system_from(Some("/".into()), vec!["/usr".into()]), Err(SystemError::Both));
        assert_eq!(system_from(None, vec!["usr".into()]), Err(SystemError::Relative("usr".into())));
        assert_eq!(system_from(None, vec!["/no/such/folder".into()]), Err(SystemError::Missing("/no/such/folder".into())));
        assert_eq!(system_from(Some("/no/such".into()), vec![]), Err(SystemError::NotAnImage("/no/such".into())));
        let temp = tempfile::tempdir().unwrap();
        assert_eq!(system_from(Some(temp.path().into()), vec![]), Err(SystemError::NotAnImage(temp.path().into())));
        std::fs::create_dir(temp.path().join("usr")).unwrap();
        let real = std::fs::canonicalize(temp.path()).unwrap();
        assert_eq!(system_from(Some(temp.path().into()), vec![]), Ok(System::Image(real)));
    }
}
