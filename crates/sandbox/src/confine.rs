//! Landlock, best effort by the kernel's ABI, the second layer behind the bot's own root
//! ([`crate::root`]): read and execute anywhere in that root, everything (but creating
//! devices) in its working folder, `/tmp` and `/dev/shm`, a few devices, no TCP bind or
//! connect (but the allowed port), and no signals or abstract Unix sockets beyond the
//! sandbox. Without a root of its own (a machine without mount namespaces) it is the only
//! layer: read and execute under the system's folders and the policy's read-only paths
//! only, and `/proc` readable whole only when it is the bot's own fresh procfs; on the
//! host's, only a few files that describe the machine, none of another process.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, NetPort, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use crate::Net;
use crate::options::{Options, ProcView};

/// The newest ABI this code knows what to ask of; older kernels get what they support.
const ABI_WANTED: ABI = ABI::V6;

use crate::root::HOST_SYSTEM;

/// What of the host's `/proc` a bot may read when it cannot have a procfs of its own:
/// the machine's description, nothing of any process (not even its own).
pub const HOST_PROC_READ_ONLY: &[&str] = &[
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/uptime",
    "/proc/version",
    "/proc/filesystems",
    "/proc/sys/vm/overcommit_memory",
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/ostype",
];

/// The parts of /etc programs need to start (loader cache, users, time zone, TLS roots,
/// interpreters' settings); not all of /etc, which holds secrets readable by root.
pub const ETC_READ_ONLY: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "host.conf",
    "gai.conf",
    "resolv.conf",
    "mime.types",
    "ssl",
    "ca-certificates",
    "alternatives",
    "os-release",
    "debian_version",
    "inputrc",
    "terminfo",
    "protocols",
    "services",
    "magic",
];

/// Prefixes of /etc entries that language runtimes read (python3.11, java-17-openjdk).
const ETC_PREFIXES: &[&str] = &["python", "java", "perl", "mono", "dotnet", "ghc", "php", "fpc", "ppc", "node"];

/// The names in the folder `etc` (a system's `/etc`) that a bot may read: the list and
/// the runtimes' prefixes, those that exist.
pub fn etc_entries(etc: &Path) -> Vec<std::ffi::OsString> {
    let mut names: Vec<std::ffi::OsString> = ETC_READ_ONLY.iter().map(std::ffi::OsString::from).collect();
    if let Ok(entries) = std::fs::read_dir(etc) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if ETC_PREFIXES.iter().any(|p| name.to_string_lossy().starts_with(p)) && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names.retain(|name| std::fs::symlink_metadata(etc.join(name)).is_ok());
    names
}

/// Devices a bot may read and write.
pub fn devices() -> impl Iterator<Item = PathBuf> {
    crate::root::DEVICES.iter().map(|name| Path::new("/dev").join(name))
}

/// Applies the ruleset to the calling thread (and so to the children it starts). `root`:
/// the bot's own root is in place, with its working folder at `workdir`.
pub fn apply(options: &Options, proc_view: ProcView, root: Option<&Path>) -> Result<String, String> {
    let abi = ABI_WANTED;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    // Device nodes made in the bot's folder would open the machine's disks.
    let own = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let files = AccessFs::from_file(abi);
    let mut net: BitFlags<AccessNet> = AccessNet::BindTcp | AccessNet::ConnectTcp;
    net &= AccessNet::from_all(abi);
    // In a root of its own, everything there is the bot's to read: that root holds
    // nothing else. Without one, the list.
    let mut read_only: Vec<PathBuf> = Vec::new();
    let mut writable: Vec<PathBuf> = Vec::new();
    match root {
        Some(workdir) => {
            read_only.push(PathBuf::from("/"));
            writable.extend([workdir.to_path_buf(), PathBuf::from("/tmp"), PathBuf::from("/dev/shm")]);
        }
        None => {
            read_only.extend(HOST_SYSTEM.iter().map(PathBuf::from));
            read_only.extend(extra_system(options));
            match proc_view {
                ProcView::Fresh => read_only.push(PathBuf::from("/proc")),
                ProcView::Host => read_only.extend(HOST_PROC_READ_ONLY.iter().map(PathBuf::from)),
            }
            read_only.extend(etc_entries(Path::new("/etc")).into_iter().map(|name| Path::new("/etc").join(name)));
            read_only.extend(options.read_only.iter().cloned());
            writable.extend(options.workdir.iter().cloned());
        }
    }
    let ruleset = Ruleset::default()
        .handle_access(all)
        .and_then(|r| r.handle_access(net))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .map_err(|err| format!("cannot create a ruleset: {err}"))?;
    let devices: Vec<PathBuf> = devices().collect();
    let mut ruleset = ruleset
        .add_rules(path_beneath_rules(existing(read_only.iter().map(PathBuf::as_path)), read))
        .and_then(|r| r.add_rules(path_beneath_rules(existing(devices.iter().map(PathBuf::as_path)), files)))
        .map_err(|err| format!("cannot add a rule: {err}"))?;
    for dir in existing(writable.iter().map(PathBuf::as_path)) {
        ruleset =
            ruleset.add_rules(path_beneath_rules([dir], own)).map_err(|err| format!("cannot add the writable {}: {err}", dir.display()))?;
    }
    if let Net::Given(port) | Net::Connect(port) = options.net {
        ruleset = ruleset.add_rule(NetPort::new(port, AccessNet::ConnectTcp)).map_err(|err| format!("cannot allow port {port}: {err}"))?;
    }
    let status = ruleset.restrict_self().map_err(|err| format!("cannot restrict itself: {err}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => {
            let filesystem = match (root, proc_view) {
                (Some(_), _) => "its own root, writable only its working folder, /tmp and /dev/shm",
                (None, ProcView::Fresh) => "the listed folders, all of its own /proc",
                (None, ProcView::Host) => "the listed folders, of the host's /proc only the machine's description",
            };
            Ok(format!("fully enforced (filesystem: {filesystem}; tcp; scopes; abi {})", abi as i32))
        }
        RulesetStatus::PartiallyEnforced => Ok(format!("partially enforced: the kernel supports less than abi {}", abi as i32)),
        RulesetStatus::NotEnforced => Err("the kernel does not support landlock".to_string()),
    }
}

/// The organiser's further system folders, where the bot has no root of its own.
fn extra_system(options: &Options) -> Vec<PathBuf> {
    match &options.system {
        crate::System::Host { extra } => extra.clone(),
        crate::System::Image(_) => Vec::new(),
    }
}

fn existing<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<&'a Path> {
    paths.into_iter().filter(|p| p.exists()).collect()
}
