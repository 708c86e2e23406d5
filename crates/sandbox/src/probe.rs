//! The probes `--check` runs as the "bot" inside the sandbox: each tries one thing a
//! confined bot must not be able to do (or must) and prints `ok[: detail]` or
//! `refused: reason` on one line.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::time::Duration;

use rustix::net::{AddressFamily, SocketType, socket};
use rustix::thread::UnshareFlags;

use crate::sys::{self, describe};

/// Runs the probe named by the first argument; returns the line to print.
pub fn run(args: &[OsString]) -> String {
    let arg = |i: usize| args.get(i).map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let outcome: Result<String, String> = match arg(0).as_str() {
        "write" => std::fs::File::create(arg(1)).and_then(|mut f| f.write_all(b"probe")).map(|()| String::new()).map_err(text),
        "read" => read(&arg(1)),
        "connect" => TcpStream::connect_timeout(&arg(1).parse().expect("a socket address"), Duration::from_secs(2))
            .map(|_| String::new())
            .map_err(text),
        "udp" => UdpSocket::bind("0.0.0.0:0").and_then(|s| s.send_to(b"probe", arg(1))).map(|n| n.to_string()).map_err(text),
        "socket" => socket(AddressFamily::INET, SocketType::STREAM, None).map(|_| String::new()).map_err(describe),
        "unshare" => sys::unshare(UnshareFlags::NEWUSER).map(|()| String::new()).map_err(describe),
        "ptrace" => sys::trace_me().map(|()| String::new()).map_err(describe),
        "setsid" => rustix::process::setsid().map(|_| String::new()).map_err(describe),
        "env" => Ok(std::env::vars().map(|(k, _)| k).collect::<Vec<_>>().join(" ")),
        "status" => status_fields(&["Seccomp", "CapEff", "CapBnd", "NoNewPrivs"]),
        "limits" => std::fs::read_to_string("/proc/self/limits").map(|t| limits(&t)).map_err(text),
        "procs" => Ok(processes(&arg(1), &arg(2))),
        "list" => std::fs::read_dir(arg(1))
            .map(|entries| {
                let mut names: Vec<String> = entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
                names.sort();
                names.join(" ")
            })
            .map_err(text),
        "fill" => fill(arg(1).parse().unwrap_or(0)),
        "files" => files(arg(1).parse().unwrap_or(0)),
        "tcp" => Ok(tcp(&args[1..])),
        "ns" => std::fs::read_link(format!("/proc/self/ns/{}", arg(1))).map(|p| p.display().to_string()).map_err(text),
        "sleep" => {
            // The line tells the checker the bot runs (so the lifeline was read).
            println!("started");
            let _ = std::io::stdout().flush();
            loop {
                std::thread::park();
            }
        }
        other => Err(format!("unknown probe {other:?}")),
    };
    match outcome {
        Ok(detail) if detail.is_empty() => "ok".to_string(),
        Ok(detail) => format!("ok: {detail}"),
        Err(reason) => format!("refused: {reason}"),
    }
}

/// Writes `bytes` zeros into a file of the working folder: refused when its disk quota
/// stops it first.
fn fill(bytes: u64) -> Result<String, String> {
    let mut file = std::fs::File::create("fill").map_err(text)?;
    let chunk = vec![0u8; 64 * 1024];
    let mut written = 0;
    while written < bytes {
        file.write_all(&chunk).map_err(|err| format!("{} after {written} bytes", text(err)))?;
        written += chunk.len() as u64;
    }
    Ok(format!("{written} bytes"))
}

/// Makes `count` empty files in the working folder: refused when its quota of files
/// stops it first.
fn files(count: u64) -> Result<String, String> {
    for n in 0..count {
        std::fs::File::create(format!("f{n}")).map_err(|err| format!("{} after {n} files", text(err)))?;
    }
    Ok(format!("{count} files"))
}

/// Connects to each address (`ADDR=ok` or `ADDR=refused`), then listens on a port of its
/// own that no one named (`listening=N`, a `listen` without a `bind`) until its input
/// ends, for the checker to try from outside.
fn tcp(targets: &[OsString]) -> String {
    let mut words = Vec::new();
    for target in targets {
        let target = target.to_string_lossy();
        let reached = target.parse().ok().is_some_and(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok());
        words.push(format!("{target}={}", if reached { "ok" } else { "refused" }));
    }
    // On every address of both families (an IPv6 socket takes IPv4 too), as `listen` picks.
    let listening = rustix::net::socket(rustix::net::AddressFamily::INET6, rustix::net::SocketType::STREAM, None).ok().and_then(|fd| {
        rustix::net::listen(&fd, 1).ok()?;
        let addr = rustix::net::getsockname(&fd).ok()?;
        let port = std::net::SocketAddr::try_from(addr).ok()?.port();
        Some((fd, port))
    });
    match listening {
        Some((_fd, port)) => {
            words.push(format!("listening={port}"));
            println!("ok: {}", words.join(" "));
            let _ = std::io::stdout().flush();
            let _ = std::io::stdin().read_to_end(&mut Vec::new());
        }
        None => words.push("listening=none".to_string()),
    }
    words.join(" ")
}

fn text(err: std::io::Error) -> String {
    err.to_string().to_lowercase()
}

fn read(path: &str) -> Result<String, String> {
    match std::fs::read_dir(path) {
        Ok(entries) => Ok(format!("{} entries", entries.count())),
        Err(_) => {
            let mut text_read = String::new();
            std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text_read)).map(|n| format!("{n} bytes")).map_err(text)
        }
    }
}

/// What the bot sees of processes in `/proc`: how many it can list, whether a command
/// line holding `marker` (a process of the checker's, pid `pid` outside) is readable, and
/// the bot's own pid as its `/proc` knows it (1 in a procfs of its own PID namespace).
fn processes(marker: &str, pid: &str) -> String {
    let listed: Vec<String> = match std::fs::read_dir("/proc") {
        Ok(entries) => entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
            .filter(|name| name.parse::<u32>().is_ok())
            .collect(),
        Err(_) => Vec::new(),
    };
    let shows_marker =
        |pid: &str| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker));
    // The probe's own command line holds the marker too.
    let own = std::fs::read_link("/proc/self").map_or_else(|_| "unknown".to_string(), |p| p.display().to_string());
    let seen = listed.iter().filter(|p| **p != own).any(|p| shows_marker(p)) || (!pid.is_empty() && pid != own && shows_marker(pid));
    format!("visible={} marker={} self={own}", listed.len(), if seen { "seen" } else { "hidden" })
}

fn status_fields(names: &[&str]) -> Result<String, String> {
    let status = std::fs::read_to_string("/proc/self/status").map_err(text)?;
    let fields: Vec<String> = status
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(key, _)| names.contains(key))
        .map(|(key, value)| format!("{key}={}", value.trim()))
        .collect();
    Ok(fields.join(" "))
}

/// `/proc/self/limits` as `name=soft/hard` words.
fn limits(text: &str) -> String {
    let mut words = Vec::new();
    for line in text.lines().skip(1) {
        let name = line.get(..26).unwrap_or(line).trim().replace(' ', "-").to_lowercase();
        let rest: Vec<&str> = line.get(26..).unwrap_or("").split_whitespace().collect();
        if rest.len() >= 2 {
            words.push(format!("{name}={}/{}", rest[0], rest[1]));
        }
    }
    words.join(" ")
}
