//! What the helper writes on the referee's status FIFO (`--status`): eight bytes, written
//! at once (less than a pipe's atomic write), per ended bot or per move of a zygote: the
//! wait status (native order), then flags (bit 0: the bot's disk quota was full when it
//! ended); and, from a zygote, [`READY`] once before its first move, when the bot's root
//! is built and the referee may reach its working folder.

use std::path::Path;

/// The length of one message.
pub const LEN: usize = 8;

/// A zygote's first message: its bot's root is in place.
pub const READY: [u8; LEN] = [0xff; LEN];

const DISK_FULL: u32 = 1;

/// What a message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    Ready,
    /// A bot (or a move's process) ended: its raw wait status, and whether its disk quota
    /// was full.
    Ended {
        status: i32,
        disk_full: bool,
    },
}

pub fn encode(status: i32, disk_full: bool) -> [u8; LEN] {
    let mut bytes = [0u8; LEN];
    bytes[..4].copy_from_slice(&status.to_ne_bytes());
    bytes[4..].copy_from_slice(&(if disk_full { DISK_FULL } else { 0 }).to_ne_bytes());
    bytes
}

pub fn decode(bytes: [u8; LEN]) -> Message {
    if bytes == READY {
        return Message::Ready;
    }
    let status = i32::from_ne_bytes(bytes[..4].try_into().expect("four bytes"));
    let flags = u32::from_ne_bytes(bytes[4..].try_into().expect("four bytes"));
    Message::Ended { status, disk_full: flags & DISK_FULL != 0 }
}

/// Whether the file system at `path` (the bot's tmpfs) is full: less than 64 KiB or four
/// files left. `false` when it cannot be told.
pub fn is_full(path: &Path) -> bool {
    match rustix::fs::statvfs(path) {
        Ok(stats) => stats.f_bavail.saturating_mul(stats.f_frsize) < 64 * 1024 || (stats.f_files > 0 && stats.f_favail < 4),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        assert_eq!(decode(READY), Message::Ready);
        for (status, full) in [(0, false), (9, true), (256 * 3, false), (-1, true)] {
            assert_eq!(decode(encode(status, full)), Message::Ended { status, disk_full: full });
        }
    }
}
