//! The seccomp filter, applied last: calls a bot has no business making return EPERM
//! (`socket` entirely but for TCP with `--net connect:PORT`: a Unix socket could reach
//! any listener's socket file, which Landlock up to ABI 7 does not mediate; `socketpair`
//! stays allowed; `prctl(PR_SET_PDEATHSIG)`; ptrace, io_uring, mounts and namespaces, keys, BPF,
//! perf, modules, reboot, swap, the clock; for a bot the referee stops between its moves,
//! `setsid` and `setpgid`), `clone` with namespace flags too, and
//! `clone3` returns ENOSYS (its flags are behind a pointer a filter cannot read, and C
//! libraries fall back to `clone` on ENOSYS). On x86_64 every call of the x32 ABI is
//! refused too: its calls carry the x86_64 architecture with the x32 bit set in their
//! number, which no rule by number would match.

use std::collections::BTreeMap;

use seccompiler::{BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch};

use crate::Net;

/// The compiled programs: the EPERM filter, the ENOSYS one, and on x86_64 the x32 one.
pub struct Filters(Vec<BpfProgram>);

/// The bit that marks a call of the x32 ABI in the number of a call that carries the
/// x86_64 architecture (`__X32_SYSCALL_BIT`).
pub const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// A program that refuses every call whose number has the x32 bit (EPERM), and lets every
/// other through to the next program. Four instructions, written out: `seccompiler`
/// matches calls by their exact number only.
fn x32_filter() -> BpfProgram {
    use seccompiler::sock_filter;
    // From linux/bpf_common.h (class | size | mode, or class | op | source) and
    // linux/seccomp.h.
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
    const BPF_JMP_JGE_K: u16 = 0x35; // BPF_JMP (5) | BPF_JGE (0x30) | BPF_K (0)
    const BPF_RET_K: u16 = 0x06; // BPF_RET (6) | BPF_K (0)
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let nr_offset = 0; // `struct seccomp_data`'s first field, the call's number
    vec![
        sock_filter { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: nr_offset },
        sock_filter { code: BPF_JMP_JGE_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT },
        sock_filter { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | libc::EPERM as u32 },
        sock_filter { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    ]
}

/// Calls refused outright.
const DENIED: &[(&str, i64)] = &[
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("move_mount", libc::SYS_move_mount),
    ("open_tree", libc::SYS_open_tree),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("clock_adjtime", libc::SYS_clock_adjtime),
    ("adjtimex", libc::SYS_adjtimex),
    ("syslog", libc::SYS_syslog),
    ("quotactl", libc::SYS_quotactl),
    #[cfg(target_arch = "x86_64")]
    ("iopl", libc::SYS_iopl),
    #[cfg(target_arch = "x86_64")]
    ("ioperm", libc::SYS_ioperm),
];

const NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWTIME as u64,
];

/// Compiles the filters for this machine's architecture (before anything is restricted,
/// since compiling allocates). `paused`: the referee stops the bot's process group
/// between its moves (a persistent bot, not a zygote's moves).
pub fn compile(net: Net, paused: bool) -> Result<Filters, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|err| format!("unsupported architecture: {err}"))?;
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = DENIED.iter().map(|&(_, nr)| (nr, Vec::new())).collect();
    denied.insert(libc::SYS_socket, socket_rules(net).map_err(|e| e.to_string())?);
    // The bot dies with the helper by the parent-death signal the helper set before the
    // `exec` (the helper shares the referee's process group, where a kill of that group
    // reaches it): a bot must not clear it.
    denied.insert(
        libc::SYS_prctl,
        vec![rule(vec![cond(0, SeccompCmpOp::Eq, libc::PR_SET_PDEATHSIG as u64).map_err(|e| e.to_string())?]).map_err(|e| e.to_string())?],
    );
    // The referee stops a persistent bot between its moves by its process group: a
    // process of the bot that left the group (a new session, or a group of its own) would
    // go on thinking on the opponent's time. A zygote's moves are never stopped (each
    // ends with its move) and the zygote may give each a group of its own.
    if paused {
        denied.insert(libc::SYS_setsid, Vec::new());
        denied.insert(libc::SYS_setpgid, Vec::new());
    }
    let clone = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| rule(vec![cond(0, SeccompCmpOp::MaskedEq(flag), flag)?]))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    denied.insert(libc::SYS_clone, clone);
    let eperm =
        SeccompFilter::new(denied, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch).map_err(|e| e.to_string())?;
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut programs = [eperm, clone3].into_iter().map(BpfProgram::try_from).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
    if cfg!(target_arch = "x86_64") {
        programs.push(x32_filter());
    }
    Ok(Filters(programs))
}

/// Applies the filters to the calling thread (and so to the children it starts).
pub fn apply(filters: &Filters, net: Net, paused: bool) -> Result<String, String> {
    for program in &filters.0 {
        seccompiler::apply_filter(program).map_err(|err| format!("cannot load the filter: {err}"))?;
    }
    let sockets = match net {
        Net::None => "no sockets but socketpair".to_string(),
        Net::Given(_) | Net::Connect(_) => "no sockets but socketpair and tcp".to_string(),
    };
    let (refused, group) = match paused {
        true => (DENIED.len() + 2, ", no leaving the process group"),
        false => (DENIED.len(), ""),
    };
    let x32 = if cfg!(target_arch = "x86_64") { ", no x32 calls" } else { "" };
    Ok(format!("{refused} calls refused, {sockets}, no clone into namespaces{group}{x32}"))
}

/// Which `socket(domain, type, protocol)` calls are refused.
fn socket_rules(net: Net) -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
    let inet = [libc::AF_INET as u64, libc::AF_INET6 as u64];
    match net {
        // No condition: every call matches.
        Net::None => Ok(Vec::new()),
        Net::Given(_) | Net::Connect(_) => {
            let mut rules = vec![rule(vec![cond(0, SeccompCmpOp::Ne, inet[0])?, cond(0, SeccompCmpOp::Ne, inet[1])?])?];
            for domain in inet {
                // The socket type sits in the low four bits (the rest are SOCK_NONBLOCK,
                // SOCK_CLOEXEC): every type but a stream is refused.
                for kind in (0..16u64).filter(|&k| k != libc::SOCK_STREAM as u64) {
                    rules.push(rule(vec![cond(0, SeccompCmpOp::Eq, domain)?, cond(1, SeccompCmpOp::MaskedEq(0xf), kind)?])?);
                }
                // Streams other than TCP (SCTP, MPTCP) escape Landlock's TCP rules.
                rules.push(rule(vec![
                    cond(0, SeccompCmpOp::Eq, domain)?,
                    cond(2, SeccompCmpOp::Ne, 0)?,
                    cond(2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64)?,
                ])?);
            }
            Ok(rules)
        }
    }
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, seccompiler::BackendError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(conditions)
}
