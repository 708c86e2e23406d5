//! Resource limits (rlimits) the helper sets on itself so that the bot inherits them, and
//! the capabilities it drops: the bot runs as root here, but as a root without
//! privileges (empty capability sets and bounding set, so an exec cannot regain them).

use rustix::process::{Resource, Rlimit, getuid, setrlimit};
use rustix::thread::{CapabilitySet, CapabilitySets, remove_capability_from_bounding_set, set_capabilities};

use crate::options::{DEFAULT_FILE_SIZE, DEFAULT_OPEN_FILES, Options};

/// Sets every limit; the detail lists them, an error names the first that failed.
pub fn set(options: &Options) -> Result<String, String> {
    let mut set = Vec::new();
    let limits = [
        ("memory", Resource::As, options.memory),
        ("cpu-seconds", Resource::Cpu, options.cpu_seconds),
        ("file-size", Resource::Fsize, Some(options.file_size.unwrap_or(DEFAULT_FILE_SIZE))),
        ("open-files", Resource::Nofile, Some(options.open_files.unwrap_or(DEFAULT_OPEN_FILES))),
        ("core", Resource::Core, Some(0)),
        ("processes", Resource::Nproc, options.processes),
    ];
    for (name, resource, value) in limits {
        let Some(value) = value else { continue };
        // A soft limit below the hard one leaves room for SIGXCPU before SIGKILL; for the
        // others both are equal, so the bot cannot raise them back.
        let maximum = if resource == Resource::Cpu { value.saturating_add(1) } else { value };
        setrlimit(resource, Rlimit { current: Some(value), maximum: Some(maximum) })
            .map_err(|err| format!("{name}: {}", err.to_string().to_lowercase()))?;
        set.push(format!("{name}={value}"));
    }
    if options.processes.is_some() && getuid().is_root() {
        set.push("(root is exempt from the process limit: the cgroup pids limit holds)".to_string());
    }
    Ok(set.join(" "))
}

/// Drops every capability: first from the bounding set (needs CAP_SETPCAP), then the
/// thread's own sets.
pub fn drop_capabilities() -> Result<String, String> {
    for bit in 0..64 {
        let cap = CapabilitySet::from_bits_retain(1 << bit);
        // Bits the kernel does not know are refused with EINVAL: nothing to drop there.
        match remove_capability_from_bounding_set(cap) {
            // Without CAP_SETPCAP (not root) there is nothing to regain by exec either.
            Ok(()) | Err(rustix::io::Errno::INVAL | rustix::io::Errno::PERM) => {}
            Err(err) => return Err(format!("cannot drop capability {bit}: {}", err.to_string().to_lowercase())),
        }
    }
    let empty =
        CapabilitySets { effective: CapabilitySet::empty(), permitted: CapabilitySet::empty(), inheritable: CapabilitySet::empty() };
    set_capabilities(None, empty).map_err(|err| format!("capset: {}", err.to_string().to_lowercase()))?;
    Ok("no capabilities".to_string())
}
