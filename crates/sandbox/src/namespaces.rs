//! New mount, network, IPC, UTS, PID and cgroup namespaces for the helper's children, and the
//! fresh `/proc` of the bot's PID namespace. The bot becomes pid 1 of its own PID
//! namespace: when it exits, the kernel kills everything it left behind, even processes
//! that left its process group; and the procfs mounted inside shows only its processes.

use rustix::ffi::CStr;
use rustix::mount::{MountFlags, MountPropagationFlags, mount, mount_change};
use rustix::thread::UnshareFlags;

use crate::Net;
use crate::options::ProcView;
use crate::sys::{describe, unshare};

/// Unshares the namespaces. The network namespace is new for `Net::None`; for
/// `Net::Given` the helper is already in the one the referee made for the bot, and for
/// `Net::Connect` (the fallback without namespaces) it stays in the host's.
/// The new mount namespace gets private mounts, so that nothing mounted inside (the bot's
/// `/proc`) shows outside; where they cannot be made private, the bot keeps the host's
/// `/proc` ([`ProcView::Host`]).
pub fn enter(net: Net) -> Result<(String, ProcView), String> {
    // The cgroup namespace roots the bot's view of cgroups at its own (the referee put the
    // helper there before the go), so `/proc/self/cgroup` shows no host layout.
    let mut flags = UnshareFlags::NEWNS | UnshareFlags::NEWIPC | UnshareFlags::NEWUTS | UnshareFlags::NEWPID | UnshareFlags::NEWCGROUP;
    let mut names = vec!["mount", "ipc", "uts", "pid", "cgroup"];
    if net == Net::None {
        flags |= UnshareFlags::NEWNET;
        names.insert(1, "network");
    }
    // Without privileges every one of them fails (each needs CAP_SYS_ADMIN): what is
    // left is still worth having only as a whole, so report the failure.
    unshare(flags).map_err(|err| format!("unshare failed: {}", describe(err)))?;
    let entered = format!("new {} namespaces", names.join(", "));
    match mount_change("/", MountPropagationFlags::REC | MountPropagationFlags::PRIVATE) {
        Ok(()) => Ok((entered, ProcView::Fresh)),
        Err(err) => Ok((format!("{entered}; mounts stay shared ({}): no fresh /proc", describe(err)), ProcView::Host)),
    }
}

/// Mounts a fresh procfs over `/proc`. Called by pid 1 of the new PID namespace (the
/// helper's second stage) inside the new mount namespace: a procfs shows the PID
/// namespace of the process that mounts it, so the bot sees its own processes only.
pub fn mount_fresh_proc() -> Result<String, String> {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    mount("proc", "/proc", "proc", flags, None::<&CStr>)
        .map(|()| "a fresh procfs of its own pid namespace".to_string())
        .map_err(|err| format!("cannot mount a fresh procfs: {}", describe(err)))
}
