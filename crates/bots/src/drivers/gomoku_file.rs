//! The Gomoku file interface (seed 000, `docs/bots.md`): one process per move, started in
//! the bot's working directory as `PROGRAM X|0 field.txt answer.txt`. The referee writes
//! the field into `field.txt`, removes any old `answer.txt`, waits for the program to
//! exit (5 s per move by default, counted from before the start, the whole process group
//! killed at the deadline) and reads its move from `answer.txt`. `PROGRAM INFO field.txt
//! answer.txt` writes two lines into `answer.txt`: the name, then the author.
//!
//! Decisions where the seed is silent:
//! - The file names are `field.txt` and `answer.txt`, passed relative to the working
//!   directory (the program's current directory). The working directory and everything
//!   the bot keeps there persist across the moves of a game; only these two files are
//!   replaced before each move.
//! - The answer file may hold surrounding whitespace and line ends and a lowercase
//!   letter (` b7\r\n`); at most 64 bytes are read.
//! - No answer file, an empty one, something that is not a plain file, not text, or text
//!   that is not a letter and then digits: a protocol error. A letter and digits that is
//!   no empty cell of the board (`K3`, `A10`, an occupied cell): an illegal move.
//! - A non-zero exit or a death by signal is a crash, even with an answer written.
//! - The program's stdout is read and ignored (more than 1 MiB is a protocol error); its
//!   stderr is the move's debug log.
//! - For `INFO` the field file holds the empty field; the first line of the answer is
//!   the name (it must not be empty), the second the author (optional).

use std::io::Read;
use std::path::Path;

use protocols::gomoku_console::is_move_shaped;
use rules::{Outcome, Registered, gomoku};

use super::{DESCRIBE_TIME, Driver, Identity, Launcher, command, quote};
use crate::{
    BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest, is_exhaustion, read_move,
};

/// The field file's name in the bot's working directory.
pub const FIELD_FILE: &str = "field.txt";
/// The answer file's name in the bot's working directory.
pub const ANSWER_FILE: &str = "answer.txt";
/// The most bytes of an answer file read for a move.
const ANSWER_CAP: u64 = 64;
/// The most bytes of an answer file read for `INFO`.
const INFO_CAP: u64 = 4096;

pub struct Bot {
    launcher: Launcher,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        let mark = gomoku::mark_char(ctx.side).to_string();
        let launcher = Launcher::open(bot, ctx, &[&mark, FIELD_FILE, ANSWER_FILE]).await?;
        Ok(Bot { launcher })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, gomoku::Position>) -> Result<Reply<gomoku::Move>, RefereeError> {
        let pos = req.pos;
        // The bot's working folder, in its own root where it has one.
        let workdir = self.launcher.files().await?;
        let field = pos.field_text();
        let written = field.clone();
        if let Some(fault) = write_field(&workdir, field, self.launcher.in_own_root()).await? {
            return Ok(Reply { input: written, ..Reply::fault(fault.kind, fault.detail, std::time::Duration::ZERO, jail::Log::default()) });
        }
        let once = self.launcher.run_once(b"", &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(_) => {
                let path = workdir.join(ANSWER_FILE);
                let text = tokio::task::spawn_blocking(move || read_answer(&path, ANSWER_CAP))
                    .await
                    .map_err(|err| RefereeError::new("cannot read the answer file", std::io::Error::other(err)))?;
                // A letter and digits off the board (`K3`) is an illegal move, as an
                // occupied cell is.
                text.and_then(|text| parse_move_answer(&text)).and_then(|text| read_move(pos, &text, FaultKind::IllegalMove))
            }
        };
        // The turn's input is the field file the referee wrote (the process reads no stdin).
        let mut reply = once.reply(answer);
        reply.input = written;
        Ok(reply)
    }
}

impl Driver<gomoku::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, gomoku::Position>) -> BoxFuture<'a, Result<Reply<gomoku::Move>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.launcher.finish())
    }
}

/// Writes the field file into `workdir` (the bot's working folder as the referee reaches
/// it): `Some(fault)` when the bot is to blame (what it left there, its disk quota full),
/// an `Err` when the machine is.
async fn write_field(workdir: &Path, field: String, own_root: bool) -> Result<Option<Fault>, RefereeError> {
    let dir = workdir.to_path_buf();
    let prepared = tokio::task::spawn_blocking(move || prepare(&dir, &field))
        .await
        .map_err(|err| RefereeError::new("cannot write the field file", std::io::Error::other(err)))?;
    let Err(err) = prepared else { return Ok(None) };
    let what = format!("cannot write {FIELD_FILE} into the working directory");
    // The bot owns its working directory: what it did there is its fault, and so is a
    // full quota in a root of its own (a tmpfs of its own); the machine running short is
    // ours.
    let full = err.raw_os_error().is_some_and(|code| code == nix_enospc() || code == nix_edquot());
    if own_root && full {
        return Ok(Some(super::disk_full_fault(&what)));
    }
    if is_exhaustion(&err) {
        return Err(RefereeError::new(what, err));
    }
    Ok(Some(Fault::new(FaultKind::Crash, format!("{what}: {err}"))))
}

fn nix_enospc() -> i32 {
    rustix::io::Errno::NOSPC.raw_os_error()
}

fn nix_edquot() -> i32 {
    rustix::io::Errno::DQUOT.raw_os_error()
}

/// Runs `PROGRAM INFO field.txt answer.txt` in `workdir` and reads the two lines.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let ours = |err: std::io::Error| RefereeError::new("cannot prepare the working directory", err);
    tokio::fs::create_dir_all(workdir).await.map_err(ours)?;
    let mut limits = crate::Limits::for_kind(gomoku::Position::KIND).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    // Through a launcher: in a root of the bot's own, the answer stays readable after the
    // process has ended, in the sandbox kept for its moves.
    let mut launcher = Launcher::new(command(bot, workdir, &limits, &["INFO", FIELD_FILE, ANSWER_FILE]));
    let described = describe_in(&mut launcher).await;
    launcher.finish().await;
    described
}

async fn describe_in(launcher: &mut Launcher) -> Result<Option<Identity>, StartError> {
    let workdir = launcher.files().await?;
    if let Some(fault) = write_field(&workdir, gomoku::Position::empty().field_text(), launcher.in_own_root()).await? {
        return Err(fault.into());
    }
    let clock = TurnClock { move_time: Some(DESCRIBE_TIME), ..TurnClock::default() };
    let once = launcher.run_once(b"", &clock).await?;
    let stderr = once.stderr.clone();
    once.into_output()?;
    let path = workdir.join(ANSWER_FILE);
    let text = tokio::task::spawn_blocking(move || read_answer(&path, INFO_CAP))
        .await
        .map_err(|err| RefereeError::new("cannot read the answer file", std::io::Error::other(err)))?
        .and_then(|text| identity(&text));
    text.map(Some).map_err(|fault| StartError::Bot { fault, stderr })
}

/// The identity in the two lines of an `INFO` answer: the name, then the author.
pub(super) fn identity(text: &str) -> Result<Identity, Fault> {
    let mut lines = text.lines().map(str::trim);
    let name = lines.next().unwrap_or_default();
    if name.is_empty() {
        return Err(Fault::new(
            FaultKind::ProtocolError,
            format!("the INFO answer {} has no name on its first line", quote(text.as_bytes())),
        ));
    }
    let author = lines.next().filter(|line| !line.is_empty()).map(str::to_string);
    Ok(Identity { name: name.to_string(), author, details: Vec::new() })
}

/// Writes the field file and removes the old answer, whatever the bot left under these
/// names (a symbolic link is removed, not followed).
fn prepare(workdir: &Path, field: &str) -> std::io::Result<()> {
    let field_path = workdir.join(FIELD_FILE);
    remove(&field_path)?;
    remove(&workdir.join(ANSWER_FILE))?;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&field_path)?;
    std::io::Write::write_all(&mut file, field.as_bytes())
}

fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

/// The text of the answer file, at most `cap` bytes; a missing, empty, over-long or
/// non-text answer, or one that is not a plain file, is a protocol error.
fn read_answer(path: &Path, cap: u64) -> Result<String, Fault> {
    let fault = |detail: String| Fault::new(FaultKind::ProtocolError, detail);
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Err(fault(format!("exited without writing {ANSWER_FILE}"))),
        Err(err) => return Err(fault(format!("cannot read {ANSWER_FILE}: {err}"))),
    };
    if !meta.is_file() {
        return Err(fault(format!("{ANSWER_FILE} is not a plain file")));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(cap + 1).read_to_end(&mut bytes))
        .map_err(|err| fault(format!("cannot read {ANSWER_FILE}: {err}")))?;
    if bytes.len() as u64 > cap {
        return Err(fault(format!("{ANSWER_FILE} holds more than {cap} bytes: {}", quote(&bytes))));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(fault(format!("{ANSWER_FILE} does not hold text")));
    };
    if text.trim().is_empty() {
        return Err(fault(format!("{ANSWER_FILE} is empty")));
    }
    Ok(text)
}

/// The move in an answer file's text, not yet checked against the position.
fn parse_move_answer(text: &str) -> Result<String, Fault> {
    let word = text.trim();
    if is_move_shaped(word) {
        Ok(word.to_string())
    } else {
        Err(Fault::new(FaultKind::ProtocolError, format!("{ANSWER_FILE} holds {}, not a move like B7", quote(text.as_bytes()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(parse_move_answer("B7"), Ok("B7".to_string()));
        assert_eq!(parse_move_answer(" b7\r\n"), Ok("b7".to_string()));
        assert_eq!(parse_move_answer("K3\n"), Ok("K3".to_string()), "off the board: left to the rules");
        for garbage in ["B7 C8", "hello", "--"] {
            assert_eq!(parse_move_answer(garbage).unwrap_err().kind, FaultKind::ProtocolError, "{garbage}");
        }
    }

    #[test]
    fn identities() {
        let id = identity("Ivan Petrov\r\nMSU, group 101\n").unwrap();
        assert_eq!(id, Identity { name: "Ivan Petrov".to_string(), author: Some("MSU, group 101".to_string()), details: Vec::new() });
        assert_eq!(identity("Solo\n").unwrap().author, None);
        assert_eq!(identity("\nMSU\n").unwrap_err().kind, FaultKind::ProtocolError);
    }

    #[test]
    fn answer_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ANSWER_FILE);
        let err = read_answer(&path, ANSWER_CAP).unwrap_err();
        assert_eq!((err.kind, err.detail.as_str()), (FaultKind::ProtocolError, "exited without writing answer.txt"));
        std::fs::write(&path, " \n").unwrap();
        assert_eq!(read_answer(&path, ANSWER_CAP).unwrap_err().detail, "answer.txt is empty");
        std::fs::write(&path, "x".repeat(100)).unwrap();
        assert!(read_answer(&path, ANSWER_CAP).unwrap_err().detail.starts_with("answer.txt holds more than 64 bytes"));
        std::fs::write(&path, "C3\n").unwrap();
        assert_eq!(read_answer(&path, ANSWER_CAP).unwrap(), "C3\n");
        // A link the bot left is removed, not followed.
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "keep").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join(FIELD_FILE)).unwrap();
        std::fs::create_dir(&path).unwrap();
        prepare(dir.path(), "field").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.path().join(FIELD_FILE)).unwrap(), "field");
        assert!(!path.exists());
    }
}
