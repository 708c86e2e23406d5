//! Output into a closed pipe (`arbiter games | head -0`): the command ends quietly with
//! the status of a SIGPIPE death (141), as Unix tools do, and no panic message.

use std::process::{Command, Stdio};

#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    // The reading end is closed before the command starts: its first write fails.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output =
        Command::new(env!("CARGO_BIN_EXE_arbiter")).args(["games"]).stdout(writer).stderr(Stdio::piped()).output().expect("arbiter runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(141), "{stderr}");
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
}
