//! The helper's system calls that rustix has no safe function for, each alone in a safe
//! function of its own: `unshare` of namespaces (rustix marks it `unsafe` for the sake of
//! `CLONE_FILES`), the calling thread's signal mask, `raise` and `ptrace(PTRACE_TRACEME)`
//! (the C library's, through `libc`); and the words of an error number in the helper's
//! messages.

use rustix::io::Errno;
use rustix::process::Signal;
use rustix::thread::UnshareFlags;

/// Moves the calling thread into new namespaces (`unshare(flags)`). Only namespace flags
/// are taken: EINVAL for `CLONE_FILES`, `CLONE_FS` or `CLONE_SYSVSEM`.
pub fn unshare(flags: UnshareFlags) -> rustix::io::Result<()> {
    let namespaces = UnshareFlags::NEWNS
        | UnshareFlags::NEWCGROUP
        | UnshareFlags::NEWIPC
        | UnshareFlags::NEWNET
        | UnshareFlags::NEWPID
        | UnshareFlags::NEWTIME
        | UnshareFlags::NEWUSER
        | UnshareFlags::NEWUTS;
    if !namespaces.contains(flags) {
        return Err(Errno::INVAL);
    }
    // SAFETY: `unshare_unsafe` is unsafe only for `CLONE_FILES`, which would leave file
    // descriptors other threads hold out of this thread's table; namespace flags alone
    // (checked above) touch no descriptor.
    unsafe { rustix::thread::unshare_unsafe(flags) }
}

/// Adds `signals` to the calling thread's signal mask (`pthread_sigmask(SIG_BLOCK)`).
pub fn block(signals: &[Signal]) -> rustix::io::Result<()> {
    thread_mask(libc::SIG_BLOCK, signals)
}

/// Takes `signals` out of the calling thread's signal mask (`pthread_sigmask(SIG_UNBLOCK)`).
pub fn unblock(signals: &[Signal]) -> rustix::io::Result<()> {
    thread_mask(libc::SIG_UNBLOCK, signals)
}

fn thread_mask(how: libc::c_int, signals: &[Signal]) -> rustix::io::Result<()> {
    // SAFETY: an all-zero `sigset_t` is a valid value (a plain array of integers), which
    // `sigemptyset` then sets as it should be.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY (the three calls): `set` is a live, writable `sigset_t`, the only memory
    // `sigemptyset` and `sigaddset` touch; `pthread_sigmask` reads it and writes nothing
    // (no old set is asked for). A signal number that is not valid fails with EINVAL.
    unsafe {
        libc::sigemptyset(&mut set);
        for signal in signals {
            if libc::sigaddset(&mut set, signal.as_raw()) != 0 {
                return Err(Errno::INVAL);
            }
        }
        match libc::pthread_sigmask(how, &set, std::ptr::null_mut()) {
            0 => Ok(()),
            code => Err(Errno::from_raw_os_error(code)),
        }
    }
}

/// Sends `signal` to the calling thread (`raise`).
pub fn raise(signal: Signal) -> rustix::io::Result<()> {
    // SAFETY: `raise` takes a number and touches no memory of the caller's; what a
    // handler of the signal does is the handler's (the helper installs none).
    match unsafe { libc::raise(signal.as_raw()) } {
        0 => Ok(()),
        _ => Err(last_errno()),
    }
}

/// Asks to be traced by the parent (`ptrace(PTRACE_TRACEME)`): a probe of the sandbox,
/// which must refuse it.
pub fn trace_me() -> rustix::io::Result<()> {
    // SAFETY: PTRACE_TRACEME ignores its pid, address and data arguments (zero and null
    // here) and touches no memory of the caller's.
    let done = unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, std::ptr::null_mut::<libc::c_void>(), std::ptr::null_mut::<libc::c_void>()) };
    if done == -1 { Err(last_errno()) } else { Ok(()) }
}

/// The error number the C library's last failed call left.
fn last_errno() -> Errno {
    Errno::from_raw_os_error(std::io::Error::last_os_error().raw_os_error().expect("the last OS error has a number"))
}

/// The words for an error number in the helper's messages, lowercase: the Linux headers'
/// wording (`errno-base.h`, `errno.h`), which these messages have always used, where the
/// C library words it otherwise; "unknown errno" for a number Linux does not define.
pub fn describe(err: Errno) -> String {
    let kernel = match err {
        Errno::IO => "I/O error",
        Errno::BADF => "Bad file number",
        Errno::AGAIN => "Try again",
        Errno::NOMEM => "Out of memory",
        Errno::XDEV => "Cross-device link",
        Errno::NFILE => "File table overflow",
        Errno::NOTTY => "Not a typewriter",
        Errno::DOM => "Math argument out of domain of func",
        Errno::RANGE => "Math result not representable",
        Errno::DEADLK => "Resource deadlock would occur",
        Errno::NOLCK => "No record locks available",
        Errno::LOOP => "Too many symbolic links encountered",
        Errno::BADMSG => "Not a data message",
        Errno::ILSEQ => "Illegal byte sequence",
        Errno::OPNOTSUPP => "Operation not supported on transport endpoint",
        Errno::NETRESET => "Network dropped connection because of reset",
        Errno::DQUOT => "Quota exceeded",
        _ => {
            let code = err.raw_os_error();
            let text = std::io::Error::from_raw_os_error(code).to_string();
            let text = text.strip_suffix(&format!(" (os error {code})")).unwrap_or(&text);
            if code <= 0 || text.starts_with("Unknown error") {
                return "unknown errno".to_string();
            }
            return text.to_lowercase();
        }
    };
    kernel.to_lowercase()
}

#[cfg(test)]
mod tests {
    use rustix::io::Errno;
    use rustix::process::Signal;
    use rustix::thread::UnshareFlags;

    #[test]
    fn error_numbers_are_said_in_the_words_the_helper_always_used() {
        // The Linux headers' words where the C library's differ (NOMEM, NFILE, LOOP,
        // DQUOT), the C library's elsewhere; lowercase.
        let table = [
            (Errno::PERM, "operation not permitted"),
            (Errno::NOENT, "no such file or directory"),
            (Errno::INVAL, "invalid argument"),
            (Errno::BUSY, "device or resource busy"),
            (Errno::NOMEM, "out of memory"),
            (Errno::NFILE, "file table overflow"),
            (Errno::LOOP, "too many symbolic links encountered"),
            (Errno::DQUOT, "quota exceeded"),
            (Errno::from_raw_os_error(41), "unknown errno"),
            (Errno::from_raw_os_error(500), "unknown errno"),
        ];
        for (errno, words) in table {
            assert_eq!(super::describe(errno), words, "{errno:?}");
        }
    }

    #[test]
    fn only_namespaces_are_unshared() {
        assert_eq!(super::unshare(UnshareFlags::FILES), Err(Errno::INVAL));
        assert_eq!(super::unshare(UnshareFlags::NEWNET | UnshareFlags::FS), Err(Errno::INVAL));
    }

    /// The calling thread's blocked signals as the kernel shows them.
    fn blocked_here() -> u64 {
        let status = std::fs::read_to_string("/proc/thread-self/status").expect("this thread's status");
        let mask = status.lines().find_map(|line| line.strip_prefix("SigBlk:")).expect("a SigBlk line");
        u64::from_str_radix(mask.trim(), 16).expect("a hex mask")
    }

    #[test]
    fn signals_are_blocked_and_unblocked_on_the_calling_thread_alone() {
        let bit = |signal: Signal| 1u64 << (signal.as_raw() - 1);
        let (usr1, usr2) = (bit(Signal::USR1), bit(Signal::USR2));
        // On a thread of its own: the test harness's threads keep their masks.
        std::thread::spawn(move || {
            let before = blocked_here();
            assert_eq!(before & (usr1 | usr2), 0);
            super::block(&[Signal::USR1, Signal::USR2]).expect("block");
            assert_eq!(blocked_here(), before | usr1 | usr2);
            super::unblock(&[Signal::USR1]).expect("unblock");
            assert_eq!(blocked_here(), before | usr2);
            // A blocked signal raised waits, pending on the thread.
            super::raise(Signal::USR2).expect("raise");
            let status = std::fs::read_to_string("/proc/thread-self/status").expect("status");
            let pending = status.lines().find_map(|line| line.strip_prefix("SigPnd:")).expect("a SigPnd line");
            assert_eq!(u64::from_str_radix(pending.trim(), 16).expect("a hex mask") & usr2, usr2);
        })
        .join()
        .expect("the thread's checks");
    }
}
