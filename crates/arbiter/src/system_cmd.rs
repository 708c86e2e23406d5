//! `arbiter system build DIR`: builds the bots' system image, a root filesystem of
//! Debian's packages holding the languages' compilers and runtimes (`crates/languages`),
//! with `mmdebstrap`; `ARBITER_SYSTEM_IMAGE=DIR` then makes it every bot's read-only root,
//! on the server and on a student's machine alike (`docs/bots.md`). The image is built
//! beside `DIR` and renamed into place whole: a failed build leaves nothing at `DIR`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use languages::Language;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: SystemCommand,
}

#[derive(clap::Subcommand, Debug)]
enum SystemCommand {
    /// Build a system image for the bots into DIR (a new folder), with mmdebstrap.
    Build(BuildArgs),
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// The new image's folder.
    dir: PathBuf,
    /// The languages it holds, comma-separated (`arbiter languages` lists them); every
    /// language by default.
    #[arg(long, value_delimiter = ',')]
    languages: Vec<String>,
    /// More Debian packages to put in the image, comma-separated (e.g. `tini`, the
    /// container image's init: `scripts/build-image`).
    #[arg(long, value_delimiter = ',')]
    include: Vec<String>,
    /// The Debian release (default: this machine's, else bookworm).
    #[arg(long)]
    suite: Option<String>,
    /// The Debian mirror.
    #[arg(long, default_value = "http://deb.debian.org/debian")]
    mirror: String,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    match &args.command {
        SystemCommand::Build(build) => build_image(build),
    }
}

fn build_image(args: &BuildArgs) -> anyhow::Result<()> {
    let languages = if args.languages.is_empty() {
        Language::ALL.to_vec()
    } else {
        let mut chosen = Vec::new();
        for name in &args.languages {
            let Some(language) = Language::from_name(name) else {
                let names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                bail!("unknown language {name:?} (languages: {})", names.join(", "));
            };
            chosen.push(language);
        }
        chosen
    };
    let mut packages: Vec<&str> = Vec::new();
    for language in &languages {
        for package in language.spec().packages {
            if !packages.contains(package) {
                packages.push(package);
            }
        }
    }
    for package in &args.include {
        // mmdebstrap takes the list as one comma-separated argument: a name is letters,
        // digits and `+-.` (Debian policy), nothing that could split or quote it.
        let valid = !package.is_empty() && package.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-.".contains(c));
        if !valid {
            bail!("{package:?} is not a Debian package name");
        }
        if !packages.contains(&package.as_str()) {
            packages.push(package);
        }
    }
    if std::fs::symlink_metadata(&args.dir).is_ok() {
        bail!("{} exists: give a new folder for the image", args.dir.display());
    }
    let partial = partial_dir(&args.dir)?;
    if std::fs::symlink_metadata(&partial).is_ok() {
        std::fs::remove_dir_all(&partial).with_context(|| format!("cannot remove an unfinished image {}", partial.display()))?;
    }
    let suite = args.suite.clone().unwrap_or_else(this_release);
    let started = Instant::now();
    println!("building a system image for {} (Debian {suite}: {})", names(&languages), packages.join(" "));
    let mut command = Command::new("mmdebstrap");
    command
        .arg("--variant=minbase")
        .arg(format!("--include={}", packages.join(",")))
        .arg("--aptopt=APT::Install-Recommends \"false\"")
        // Documentation, manual pages and translations: nothing a bot reads.
        .args(["--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*"])
        .args(["--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/info/*"])
        // The JDK's scripts link its manual pages' alternatives into man1 (as in Debian's
        // slim container images): the folder must be there.
        .arg("--setup-hook=mkdir -p \"$1/usr/share/man/man1\"")
        .arg(&suite)
        .arg(&partial)
        .arg(&args.mirror);
    let status = match command.status() {
        Ok(status) => status,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            bail!("mmdebstrap is not installed: apt-get install mmdebstrap (scripts/build-system-image does it)")
        }
        Err(err) => return Err(err).context("cannot start mmdebstrap"),
    };
    if !status.success() {
        let _ = std::fs::remove_dir_all(&partial);
        bail!("mmdebstrap failed ({status}): no image was made");
    }
    // The image's password hashes (of its locked accounts) are no bot's business: without
    // them a bot reads nothing in /etc that the sandbox's check counts as a secret.
    for secret in ["etc/shadow", "etc/shadow-", "etc/gshadow", "etc/gshadow-"] {
        match std::fs::remove_file(partial.join(secret)) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(err).with_context(|| format!("cannot remove {secret} from the image"));
            }
            _ => {}
        }
    }
    std::fs::rename(&partial, &args.dir).with_context(|| format!("cannot move the image into {}", args.dir.display()))?;
    let bytes = size(&args.dir);
    println!(
        "built {} in {:.0} s: {:.0} MiB; use it with ARBITER_SYSTEM_IMAGE={}",
        args.dir.display(),
        started.elapsed().as_secs_f64(),
        bytes as f64 / (1024.0 * 1024.0),
        std::fs::canonicalize(&args.dir).unwrap_or_else(|_| args.dir.clone()).display()
    );
    Ok(())
}

fn names(languages: &[Language]) -> String {
    languages.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
}

/// The folder the image is built in, beside its final place.
fn partial_dir(dir: &Path) -> anyhow::Result<PathBuf> {
    let name = dir.file_name().with_context(|| format!("{} has no folder name", dir.display()))?;
    Ok(dir.with_file_name(format!("{}.partial", name.to_string_lossy())))
}

/// This machine's Debian release (`VERSION_CODENAME` of /etc/os-release), so that the
/// image's libraries match the sandbox helper's; bookworm when it cannot be read.
fn this_release() -> String {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix("VERSION_CODENAME="))
        .map(|name| name.trim_matches('"').to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "bookworm".to_string())
}

/// The bytes of the files under `dir` (links not followed).
pub fn size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                total += meta.len();
            }
        }
    }
    total
}
