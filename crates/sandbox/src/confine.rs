//! Landlock, best effort by the kernel's ABI: read and execute under the system's folders
//! and the policy's read-only paths, everything (but creating devices) under the bot's
//! own folder, a few devices, no TCP bind or connect (but the allowed port), and no
//! signals or abstract Unix sockets beyond the sandbox. `/proc` is readable whole only
//! when it is the bot's own fresh procfs; on the host's, only a few files that describe
//! the machine, none of another process.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, NetPort, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use crate::Net;
use crate::options::{Options, ProcView};

/// The newest ABI this code knows what to ask of; older kernels get what they support.
const ABI_WANTED: ABI = ABI::V6;

/// Folders every bot may read and execute from (those that exist).
pub const SYSTEM_READ_ONLY: &[&str] =
    &["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt", "/sys/devices/system/cpu", "/root/.pyenv"];

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
const ETC_PREFIXES: &[&str] = &["python", "java", "perl", "mono", "dotnet", "ghc"];

/// Devices a bot may read and write.
pub const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];

/// Applies the ruleset to the calling thread (and so to the children it starts).
pub fn apply(options: &Options, proc_view: ProcView) -> Result<String, String> {
    let abi = ABI_WANTED;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    // Device nodes made in the bot's folder would open the machine's disks.
    let own = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let files = AccessFs::from_file(abi);
    let mut net: BitFlags<AccessNet> = AccessNet::BindTcp | AccessNet::ConnectTcp;
    net &= AccessNet::from_all(abi);
    let mut read_only: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    match proc_view {
        ProcView::Fresh => read_only.push(PathBuf::from("/proc")),
        ProcView::Host => read_only.extend(HOST_PROC_READ_ONLY.iter().map(PathBuf::from)),
    }
    read_only.extend(etc_paths());
    read_only.extend(options.read_only.iter().cloned());
    let ruleset = Ruleset::default()
        .handle_access(all)
        .and_then(|r| r.handle_access(net))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .map_err(|err| format!("cannot create a ruleset: {err}"))?;
    let mut ruleset = ruleset
        .add_rules(path_beneath_rules(existing(read_only.iter().map(PathBuf::as_path)), read))
        .and_then(|r| r.add_rules(path_beneath_rules(existing(DEVICES.iter().map(Path::new)), files)))
        .map_err(|err| format!("cannot add a rule: {err}"))?;
    if let Some(workdir) = &options.workdir {
        ruleset = ruleset
            .add_rules(path_beneath_rules([workdir], own))
            .map_err(|err| format!("cannot add the working directory {}: {err}", workdir.display()))?;
    }
    if let Net::Connect(port) = options.net {
        ruleset = ruleset.add_rule(NetPort::new(port, AccessNet::ConnectTcp)).map_err(|err| format!("cannot allow port {port}: {err}"))?;
    }
    let status = ruleset.restrict_self().map_err(|err| format!("cannot restrict itself: {err}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => {
            let proc = match proc_view {
                ProcView::Fresh => "all of its own /proc",
                ProcView::Host => "of the host's /proc only the machine's description",
            };
            Ok(format!("fully enforced (filesystem: {proc}; tcp; scopes; abi {})", abi as i32))
        }
        RulesetStatus::PartiallyEnforced => Ok(format!("partially enforced: the kernel supports less than abi {}", abi as i32)),
        RulesetStatus::NotEnforced => Err("the kernel does not support landlock".to_string()),
    }
}

fn etc_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = ETC_READ_ONLY.iter().map(|name| Path::new("/etc").join(name)).collect();
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if ETC_PREFIXES.iter().any(|p| name.to_string_lossy().starts_with(p)) {
                paths.push(entry.path());
            }
        }
    }
    paths
}

fn existing<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<&'a Path> {
    paths.into_iter().filter(|p| p.exists()).collect()
}
