//! New network, IPC, UTS and PID namespaces for the helper's children. The bot becomes
//! pid 1 of its own PID namespace: when it exits, the kernel kills everything it left
//! behind, even processes that left its process group.

use nix::sched::{CloneFlags, unshare};

use crate::Net;

/// Unshares the namespaces; with `Net::Connect` the host's network namespace is kept.
pub fn enter(net: Net) -> Result<String, String> {
    let mut flags = CloneFlags::CLONE_NEWIPC | CloneFlags::CLONE_NEWUTS | CloneFlags::CLONE_NEWPID;
    let mut names = vec!["ipc", "uts", "pid"];
    if net == Net::None {
        flags |= CloneFlags::CLONE_NEWNET;
        names.insert(0, "network");
    }
    match unshare(flags) {
        Ok(()) => Ok(format!("new {} namespaces", names.join(", "))),
        // Without privileges, try again without the network one, which needs them too:
        // what is left is still worth having only as a whole, so report the failure.
        Err(err) => Err(format!("unshare failed: {}", err.desc().to_lowercase())),
    }
}
