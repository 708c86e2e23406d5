//! `arbiter new GAME LANG DIR`: writes a starter kit, a bot over the project's protocol
//! that plays legal moves (a random one of the `legal` line), with its manifest, a README
//! and the commands that test it, in Python, C, C++, Rust (the standard library only,
//! built by `rustc`) or JavaScript (Node). The templates are in `crates/arbiter/kits/`.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rules::{GameKind, Options};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game the bot plays (`arbiter games` lists them), or `any` for every game.
    game: String,
    /// The language of the bot.
    #[arg(value_enum)]
    lang: Language,
    /// A new (or empty) folder for the bot; its name is the bot's name.
    dir: PathBuf,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Language {
    Python,
    C,
    Cpp,
    Rust,
    Javascript,
}

/// A memory cap below which a Node bot runs lean (`--jitless --v8-pool-size=0`).
const NODE_LEAN_BELOW_MB: u64 = 1024;

const NODE_LEAN_NOTES: &str = "\nThe manifest runs Node with `--jitless --v8-pool-size=0`: without them V8 reserves more\n\
                               address space than a small memory cap allows (Pah-tum's 128 MB), and the bot cannot start.\n\
                               For a game without such a cap, drop them: the bot runs faster.\n";

/// What a kit of one language is made of.
struct Kit {
    title: &'static str,
    file: &'static str,
    template: &'static str,
    choose: &'static str,
    command: &'static [&'static str],
    build: Option<&'static [&'static str]>,
    notes: &'static str,
}

impl Language {
    fn kit(self) -> Kit {
        match self {
            Language::Python => Kit {
                title: "Python 3",
                file: "bot.py",
                template: include_str!("../kits/bot.py"),
                choose: "choose_move",
                command: &["python3", "./bot.py"],
                build: None,
                notes: "",
            },
            Language::C => Kit {
                title: "C",
                file: "bot.c",
                template: include_str!("../kits/bot.c"),
                choose: "choose_move",
                command: &["./bot"],
                build: Some(&["cc", "-O2", "-o", "bot", "bot.c"]),
                notes: "",
            },
            Language::Cpp => Kit {
                title: "C++",
                file: "bot.cpp",
                template: include_str!("../kits/bot.cpp"),
                choose: "choose_move",
                command: &["./bot"],
                build: Some(&["c++", "-O2", "-std=c++17", "-o", "bot", "bot.cpp"]),
                notes: "",
            },
            Language::Rust => Kit {
                title: "Rust",
                file: "bot.rs",
                template: include_str!("../kits/bot.rs"),
                choose: "choose_move",
                command: &["./bot"],
                build: Some(&["rustc", "-O", "--edition", "2021", "-o", "bot", "bot.rs"]),
                notes: "\nThe sandbox cannot run rustup's `rustc` (a proxy that needs your home folder): before a\n\
                        sandboxed run (a tournament, `play` without `--no-sandbox`) build the bot once yourself,\n\
                        `rustc -O --edition 2021 -o bot bot.rs`; the manifest builds it again only when `bot.rs`\n\
                        is newer than `bot`.\n",
            },
            Language::Javascript => Kit {
                title: "JavaScript (Node.js)",
                file: "bot.js",
                template: include_str!("../kits/bot.js"),
                choose: "chooseMove",
                command: &["node", "./bot.js"],
                build: None,
                notes: "",
            },
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = match args.game.as_str() {
        referee::manifest::ANY_GAME => None,
        name => Some(GameKind::from_name(name)?),
    };
    let name = bot_name(&args.dir);
    let files = kit_files(game, args.lang, &name);
    write_kit(&args.dir, &files)?;
    let listed: Vec<&str> = files.iter().map(|(file, _)| file.as_str()).collect();
    println!("wrote a {} bot {name} for {} in {}: {}", args.lang.kit().title, args.game, args.dir.display(), listed.join(", "));
    println!("test it: arbiter doctor {} --no-sandbox", args.dir.display());
    Ok(())
}

/// The bot's name: the folder's name in lower case, letters, digits and `-` only.
fn bot_name(dir: &Path) -> String {
    let folder = dir.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let name: String = folder.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let name = name.trim_matches('-');
    if name.is_empty() { "my-bot".to_string() } else { name.chars().take(referee::manifest::MAX_NAME_CHARS).collect() }
}

/// The files of a kit, by name, with their text.
fn kit_files(game: Option<GameKind>, lang: Language, name: &str) -> Vec<(String, String)> {
    let kit = lang.kit();
    let game_name = game.map_or(referee::manifest::ANY_GAME, GameKind::name);
    let list = |argv: &[&str]| argv.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ");
    // Node reserves more address space than a small memory cap allows (Pah-tum's 128 MB)
    // unless V8 runs without its compiler and helper threads.
    let small_cap = game.is_none_or(|g| g.seed_limits(&Options::new()).memory_mb.is_some_and(|mb| mb < NODE_LEAN_BELOW_MB));
    let (command, notes) = match lang {
        Language::Javascript if small_cap => (&["node", "--jitless", "--v8-pool-size=0", "./bot.js"][..], NODE_LEAN_NOTES),
        _ => (kit.command, kit.notes),
    };
    let mut manifest = format!(
        "# The manifest of {name} (docs/bots.md in Arbiter's repository).\nname = \"{name}\"\ngame = \"{game_name}\"\nprotocol = \"arbiter\"\ncommand = [{}]\n",
        list(command)
    );
    if let Some(build) = kit.build {
        manifest.push_str(&format!("build = [{}]\n", list(build)));
    }
    let readme = include_str!("../kits/README.md")
        .replace("{{LANGUAGE}}", kit.title)
        .replace("{{GAME_WORDS}}", &game.map_or("every game (`game = \"any\"`)".to_string(), |g| g.name().to_string()))
        .replace("{{CHOOSE}}", kit.choose)
        .replace("{{FILE}}", kit.file)
        .replace("{{BUILD_WORDS}}", if kit.build.is_some() { ", and the build command it is compiled with when needed" } else { "" })
        .replace("{{GAME_FLAG}}", "")
        .replace("{{PLAY_GAME}}", game.map_or("gomoku", GameKind::name))
        .replace("{{NOTES}}", notes)
        .replace("{{NAME}}", name);
    let mut files = vec![
        (kit.file.to_string(), kit.template.replace("{{NAME}}", name)),
        ("bot.toml".to_string(), manifest),
        ("README.md".to_string(), readme),
    ];
    if kit.build.is_some() {
        files.push((".gitignore".to_string(), "bot\n.arbiter-build.lock\n".to_string()));
    }
    files
}

/// Writes the files into `dir`, which must be new or empty (nothing is overwritten).
fn write_kit(dir: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        bail!("{} is not empty: give a new folder for the bot", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make the folder {}", dir.display()))?;
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
