//! The helper's command line: `arbiter-sandbox [OPTIONS] -- PROGRAM ARGS...`,
//! `arbiter-sandbox --check [--workdir DIR]`, the probes `--check` runs inside the
//! sandbox, and `--inner MODE`, which the helper's first stage adds when it starts its
//! second. Parsed by hand so that [`crate::Policy::to_args`] and [`parse`] are each
//! other's inverse (tested).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::{Net, Root, System, Work};

/// The defaults where the referee sets nothing.
pub const DEFAULT_FILE_SIZE: u64 = 64 * 1024 * 1024;
pub const DEFAULT_OPEN_FILES: u64 = 256;

pub const USAGE: &str = "usage: arbiter-sandbox [--workdir DIR] [--read-only PATH]... [--root copy|bind \
[--system DIR | --system-path PATH...] [--disk BYTES] [--files N]] [--memory BYTES] \
[--cpu-seconds N] [--file-size BYTES] [--open-files N] [--processes N] [--net none|given:PORT|connect:PORT] \
[--env KEY=VALUE]... [--lifeline FIFO] [--status FIFO] [--zygote] [--report FILE] -- PROGRAM [ARGS]...\n       \
arbiter-sandbox --check [--workdir DIR]\n       arbiter-sandbox --keeper";

/// What the helper was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Confine itself and run the bot.
    Run(Box<Options>),
    /// Probe each guarantee and print one line per guarantee.
    Check { workdir: Option<PathBuf> },
    /// One probe, run as the "bot" inside the sandbox by `--check` (not for people).
    Probe(Vec<OsString>),
    /// Keep a referee's plain bots: kill their groups when the referee ends
    /// ([`crate::keeper`]; not for people).
    Keeper,
}

/// What the helper's second stage does about `/proc` (see [`crate::helper`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcView {
    /// Mount a fresh procfs of the bot's own PID namespace over `/proc` (the first stage
    /// made a mount namespace of its own).
    Fresh,
    /// Keep the host's `/proc`: Landlock lets the bot read only its own process's entry.
    Host,
}

impl ProcView {
    pub fn name(self) -> &'static str {
        match self {
            ProcView::Fresh => "fresh-proc",
            ProcView::Host => "host-proc",
        }
    }
}

/// The options of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub workdir: Option<PathBuf>,
    pub read_only: Vec<PathBuf>,
    /// The system the bot sees (`--system` or `--system-path`).
    pub system: System,
    /// A root of the bot's own (`--root`, with `--disk` and `--files`; `--system` needs it).
    pub root: Option<Root>,
    pub memory: Option<u64>,
    pub cpu_seconds: Option<u64>,
    pub file_size: Option<u64>,
    pub open_files: Option<u64>,
    pub processes: Option<u64>,
    pub net: Net,
    pub env: Vec<(String, String)>,
    pub lifeline: Option<PathBuf>,
    /// The status FIFO: the bot's wait status goes there (4 bytes, native order) as soon
    /// as the bot has ended: from the first stage before its own exit tears the
    /// namespaces down, or from the zygote after each move.
    pub status: Option<PathBuf>,
    /// Keep the sandbox for a series of per-move processes (see [`crate::helper`]): the
    /// second stage, confined, starts one process of the program per input framed on its
    /// stdin instead of becoming the program.
    pub zygote: bool,
    pub report: Option<PathBuf>,
    /// Set in the helper's second stage only (`--inner`, given by the first stage).
    pub inner: Option<ProcView>,
    /// The bot's program and its arguments.
    pub command: Vec<OsString>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptionsError {
    #[error("unknown option {0}")]
    Unknown(String),
    #[error("option {0} needs a value")]
    MissingValue(String),
    #[error("option {0}: {1:?} is not a number")]
    NotANumber(String, OsString),
    #[error("option --net: expected none, given:PORT or connect:PORT, got {0:?}")]
    Net(OsString),
    #[error("option --root: expected copy or bind, got {0:?}")]
    Root(OsString),
    #[error("option {0} needs --root")]
    NeedsRoot(String),
    #[error("options --system and --system-path exclude each other")]
    SystemTwice,
    #[error("option --env: expected KEY=VALUE, got {0:?}")]
    Env(OsString),
    #[error("option --inner: expected fresh-proc or host-proc, got {0:?}")]
    Inner(OsString),
    #[error("no program to run after --")]
    NoProgram,
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, OptionsError> {
    let mut args = args.into_iter();
    let mut options = Options::default();
    let mut check = false;
    let (mut work, mut image, mut extra, mut disk, mut files) = (None, None, Vec::new(), None, None);
    let mut root_keys: Vec<String> = Vec::new();
    while let Some(arg) = args.next() {
        let key = arg.to_string_lossy().into_owned();
        let mut value = || args.next().ok_or_else(|| OptionsError::MissingValue(key.clone()));
        match key.as_str() {
            "--" => {
                options.command = args.collect();
                if options.command.is_empty() {
                    return Err(OptionsError::NoProgram);
                }
                options.system = match image {
                    Some(_) if !extra.is_empty() => return Err(OptionsError::SystemTwice),
                    Some(image) => System::Image(image),
                    None => System::Host { extra },
                };
                options.root = match work {
                    Some(work) => Some(Root { work, disk, files }),
                    None => match root_keys.first() {
                        Some(key) => return Err(OptionsError::NeedsRoot(key.clone())),
                        None => None,
                    },
                };
                return Ok(Invocation::Run(Box::new(options)));
            }
            "--check" => check = true,
            "--probe" => return Ok(Invocation::Probe(args.collect())),
            "--keeper" => return Ok(Invocation::Keeper),
            "--workdir" => options.workdir = Some(value()?.into()),
            "--read-only" => options.read_only.push(value()?.into()),
            "--root" => {
                let mode = value()?;
                work = Some(match mode.to_str() {
                    Some("copy") => Work::Copy,
                    Some("bind") => Work::Bind,
                    _ => return Err(OptionsError::Root(mode)),
                });
            }
            "--system" => {
                image = Some(value()?.into());
                root_keys.push(key.clone());
            }
            "--system-path" => extra.push(value()?.into()),
            "--disk" => {
                disk = Some(number(&key, value()?)?);
                root_keys.push(key.clone());
            }
            "--files" => {
                files = Some(number(&key, value()?)?);
                root_keys.push(key.clone());
            }
            "--lifeline" => options.lifeline = Some(value()?.into()),
            "--zygote" => options.zygote = true,
            "--status" => options.status = Some(value()?.into()),
            "--report" => options.report = Some(value()?.into()),
            "--memory" => options.memory = Some(number(&key, value()?)?),
            "--cpu-seconds" => options.cpu_seconds = Some(number(&key, value()?)?),
            "--file-size" => options.file_size = Some(number(&key, value()?)?),
            "--open-files" => options.open_files = Some(number(&key, value()?)?),
            "--processes" => options.processes = Some(number(&key, value()?)?),
            "--net" => options.net = net(value()?)?,
            "--inner" => {
                let mode = value()?;
                options.inner = Some(match mode.to_str() {
                    Some("fresh-proc") => ProcView::Fresh,
                    Some("host-proc") => ProcView::Host,
                    _ => return Err(OptionsError::Inner(mode)),
                });
            }
            "--env" => {
                let pair = value()?;
                let text = pair.to_str().ok_or_else(|| OptionsError::Env(pair.clone()))?;
                match text.split_once('=') {
                    Some((k, v)) if !k.is_empty() => options.env.push((k.to_string(), v.to_string())),
                    _ => return Err(OptionsError::Env(pair)),
                }
            }
            _ => return Err(OptionsError::Unknown(key)),
        }
    }
    if check {
        return Ok(Invocation::Check { workdir: options.workdir });
    }
    Err(OptionsError::NoProgram)
}

fn number(key: &str, value: OsString) -> Result<u64, OptionsError> {
    value.to_str().and_then(|v| v.parse().ok()).ok_or_else(|| OptionsError::NotANumber(key.to_string(), value))
}

fn net(value: OsString) -> Result<Net, OptionsError> {
    match value.to_str() {
        Some("none") => Ok(Net::None),
        Some(text) => {
            let port = |prefix: &str| text.strip_prefix(prefix).and_then(|p| p.parse().ok());
            match (port("given:"), port("connect:")) {
                (Some(port), _) => Ok(Net::Given(port)),
                (_, Some(port)) => Ok(Net::Connect(port)),
                _ => Err(OptionsError::Net(value)),
            }
        }
        None => Err(OptionsError::Net(value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Policy;

    #[test]
    fn policy_args_parse_back() {
        let mut policy = Policy::new("/w/bot", "/run/lifeline");
        policy.read_only = vec!["/bots/a".into(), "/opt/rt".into()];
        policy.system = System::Host { extra: vec!["/root/.rustup".into(), "/opt/jdk".into()] };
        policy.root = Some(Root { work: Work::Copy, disk: Some(1 << 26), files: Some(4096) });
        policy.memory = Some(1 << 30);
        policy.cpu_seconds = Some(130);
        policy.file_size = Some(5);
        policy.open_files = Some(64);
        policy.processes = Some(32);
        policy.net = Net::Given(4242);
        policy.env = vec![("ARBITER_ADDR".into(), "127.0.0.1:4242".into()), ("X".into(), "a=b".into())];
        policy.report = Some("/w/report".into());
        policy.zygote = true;
        policy.status = Some("/run/status".into());
        let mut args = policy.to_args();
        assert_eq!(args.last(), Some(&OsString::from("--")));
        args.extend(["python3".into(), "bot.py".into()]);
        let Ok(Invocation::Run(options)) = parse(args) else { panic!("the policy's arguments parse") };
        assert_eq!(options.workdir.as_deref(), Some(policy.workdir.as_path()));
        assert_eq!(options.read_only, policy.read_only);
        assert_eq!(options.root, policy.root);
        assert_eq!(options.system, policy.system);
        assert_eq!(
            [options.memory, options.cpu_seconds, options.file_size, options.open_files, options.processes],
            [Some(1 << 30), Some(130), Some(5), Some(64), Some(32)]
        );
        assert_eq!(options.net, Net::Given(4242));
        assert_eq!(options.env, policy.env);
        assert_eq!(options.lifeline, Some(policy.lifeline));
        assert_eq!(options.report, policy.report);
        assert!(options.zygote);
        assert_eq!(options.status, policy.status);
        assert_eq!(options.command, vec![OsString::from("python3"), "bot.py".into()]);
    }

    #[test]
    fn bad_arguments_are_refused() {
        let parse_strs = |args: &[&str]| parse(args.iter().map(OsString::from));
        assert_eq!(parse_strs(&["--memory", "lots", "--", "x"]), Err(OptionsError::NotANumber("--memory".into(), "lots".into())));
        assert_eq!(parse_strs(&["--net", "connect:http"]), Err(OptionsError::Net("connect:http".into())));
        assert_eq!(parse_strs(&["--root", "tmpfs", "--", "x"]), Err(OptionsError::Root("tmpfs".into())));
        assert_eq!(parse_strs(&["--disk", "5", "--", "x"]), Err(OptionsError::NeedsRoot("--disk".into())));
        assert_eq!(parse_strs(&["--root", "bind", "--system", "/i", "--system-path", "/p", "--", "x"]), Err(OptionsError::SystemTwice));
        let Ok(Invocation::Run(options)) = parse_strs(&["--root", "bind", "--system", "/srv/image", "--", "x"]) else {
            panic!("an image root parses")
        };
        assert_eq!(options.root, Some(Root { work: Work::Bind, disk: None, files: None }));
        assert_eq!(options.system, System::Image("/srv/image".into()));
        assert_eq!(parse_strs(&["--system", "/i", "--", "x"]), Err(OptionsError::NeedsRoot("--system".into())));
        let Ok(Invocation::Run(options)) = parse_strs(&["--net", "connect:80", "--", "x"]) else { panic!("connect parses") };
        assert_eq!(options.net, Net::Connect(80));
        assert_eq!(parse_strs(&["--env", "=x"]), Err(OptionsError::Env("=x".into())));
        assert_eq!(parse_strs(&["--frobnicate"]), Err(OptionsError::Unknown("--frobnicate".into())));
        assert_eq!(parse_strs(&["--workdir"]), Err(OptionsError::MissingValue("--workdir".into())));
        assert_eq!(parse_strs(&["--"]), Err(OptionsError::NoProgram));
        assert_eq!(parse_strs(&["--check"]), Ok(Invocation::Check { workdir: None }));
        assert_eq!(parse_strs(&["--inner", "proc", "--", "x"]), Err(OptionsError::Inner("proc".into())));
        let Ok(Invocation::Run(options)) = parse_strs(&["--inner", "fresh-proc", "--", "x"]) else { panic!("--inner parses") };
        assert_eq!(options.inner, Some(ProcView::Fresh));
    }
}
