//! `arbiter new GAME LANG DIR`: writes a starter kit, a bot over the project's protocol
//! that plays legal moves (a random one of the `legal` line, from the seed the referee
//! gives its side), with its manifest, a README and the commands that test it, in every
//! language of the published set (`crates/languages`: the compile and run commands come
//! from its table). The templates are in `crates/arbiter/kits/`.
//! With `--protocol` a native interface's kit is its sample bot of `bots/` (Python or C;
//! for connect4-tcp, the seed's client library, also C++, C#, Java, PHP and Pascal),
//! renamed: the samples are compiled in, so the kit and the tested sample are one code.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use languages::Language;
use rules::GameKind;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game the bot plays (`arbiter games` lists them), or `any` for every game.
    game: String,
    /// The language of the bot (`arbiter languages` lists them).
    #[arg(value_parser = language_parser())]
    lang: Language,
    /// A new (or empty) folder for the bot; its name is the bot's name.
    dir: PathBuf,
    /// The interface: `arbiter` (the project's protocol, every language), or a native
    /// interface of the game (`python` and `c`; connect4-tcp also `cpp`, `csharp`,
    /// `java`, `php`, `pascal`): gomoku-file, gomoku-console, gomocup, legions, pahtum,
    /// nupud, connect4-tcp.
    #[arg(long, default_value = "arbiter")]
    protocol: String,
}

/// The files of a sample bot of `bots/`, by name, compiled in.
macro_rules! sample {
    ($protocol:literal, $lang:literal, [$($file:literal),+]) => {
        ($protocol, $lang, &[$(($file, include_str!(concat!("../../../bots/", $protocol, "/", $lang, "/", $file)))),+])
    };
}

/// The native interfaces' kits: each one's sample bot, by interface and language.
type Sample = (&'static str, &'static str, &'static [(&'static str, &'static str)]);
const SAMPLES: &[Sample] = &[
    sample!("gomoku-file", "python", ["bot.toml", "random_bot.py"]),
    sample!("gomoku-file", "c", ["bot.toml", "random.c"]),
    sample!("gomoku-console", "python", ["bot.toml", "random_bot.py"]),
    sample!("gomoku-console", "c", ["bot.toml", "random.c"]),
    sample!("gomocup", "python", ["bot.toml", "brain.py"]),
    sample!("gomocup", "c", ["bot.toml", "brain.c"]),
    sample!("legions", "python", ["bot.toml", "random_bot.py"]),
    sample!("legions", "c", ["bot.toml", "random.c"]),
    sample!("pahtum", "python", ["bot.toml", "random_bot.py"]),
    sample!("pahtum", "c", ["bot.toml", "random.c"]),
    sample!("nupud", "python", ["bot.toml", "random_bot.py"]),
    sample!("nupud", "c", ["bot.toml", "random.c"]),
    sample!("connect4-tcp", "python", ["bot.toml", "random_bot.py", "c4client.py"]),
    sample!("connect4-tcp", "c", ["bot.toml", "random.c", "c4client.c", "c4client.h"]),
    sample!("connect4-tcp", "cpp", ["bot.toml", "random.cpp", "c4client.hpp"]),
    sample!("connect4-tcp", "csharp", ["bot.toml", "RandomBot.cs", "C4Client.cs"]),
    sample!("connect4-tcp", "java", ["bot.toml", "RandomBot.java", "C4Client.java"]),
    sample!("connect4-tcp", "php", ["bot.toml", "random_bot.php", "c4client.php"]),
    sample!("connect4-tcp", "pascal", ["bot.toml", "random_bot.pas", "c4client.pas"]),
];

/// The kit's program text for a language, before `{{NAME}}` is filled in.
fn template(lang: Language) -> &'static str {
    match lang {
        Language::Python => include_str!("../kits/bot.py"),
        Language::C => include_str!("../kits/bot.c"),
        Language::Cpp => include_str!("../kits/bot.cpp"),
        Language::Rust => include_str!("../kits/bot.rs"),
        Language::JavaScript => include_str!("../kits/bot.js"),
        Language::Java => include_str!("../kits/Bot.java"),
        Language::Go => include_str!("../kits/bot.go"),
        Language::CSharp => include_str!("../kits/bot.cs"),
        Language::Pascal => include_str!("../kits/bot.pas"),
        Language::Php => include_str!("../kits/bot.php"),
    }
}

/// The name of the function a kit's author makes better.
fn choose(lang: Language) -> &'static str {
    match lang {
        Language::JavaScript | Language::Java | Language::Go => "chooseMove",
        Language::CSharp | Language::Pascal => "ChooseMove",
        _ => "choose_move",
    }
}

const NODE_LEAN_NOTES: &str = "\nThe manifest runs Node with `--jitless --v8-pool-size=0`: without them V8 reserves more\n\
                               address space than a small memory cap allows (Pah-tum's 128 MB), and the bot cannot start.\n\
                               For a game without such a cap, drop them: the bot runs faster.\n";

/// What a kit's README adds for a language.
fn notes(lang: Language) -> String {
    let spec = lang.spec();
    let mut notes =
        format!("\nIts toolchain on the server: {} (Debian: {}). Memory: {}.\n", spec.title, spec.packages.join(", "), spec.memory);
    if lang == Language::Rust {
        notes.push_str(
            "\nA Rust toolchain installed with rustup lives in your home folder, which the sandbox does not\n\
             show a bot: list it for the bots, `ARBITER_SYSTEM_PATHS=$HOME/.cargo:$HOME/.rustup`, or install\n\
             Debian's rustc (`docs/bots.md`).\n",
        );
    }
    notes
}

/// A language by its name, for the command line (its help lists them).
fn language_parser() -> impl clap::builder::TypedValueParser<Value = Language> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = Language::ALL.iter().map(|l| l.name()).collect();
    clap::builder::PossibleValuesParser::new(names)
        .map(|name: String| Language::from_name(&name).expect("a possible value is a language's name"))
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = match args.game.as_str() {
        referee::manifest::ANY_GAME => None,
        name => Some(GameKind::from_name(name)?),
    };
    let name = bot_name(&args.dir);
    let files = match args.protocol.as_str() {
        "arbiter" => kit_files(game, args.lang, &name),
        protocol => native_kit(game, protocol, args.lang, &name)?,
    };
    write_kit(&args.dir, &files)?;
    let listed: Vec<&str> = files.iter().map(|(file, _)| file.as_str()).collect();
    println!("wrote a {} bot {name} for {} in {}: {}", args.lang.spec().title, args.game, args.dir.display(), listed.join(", "));
    println!("test it: arbiter doctor {} --no-sandbox", args.dir.display());
    Ok(())
}

/// The bot's name: the folder's name in lower case, letters, digits and `-` only.
fn bot_name(dir: &Path) -> String {
    let folder = dir.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let name: String = folder.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let name = name.trim_matches('-');
    if name.is_empty() { "my-bot".to_string() } else { name.chars().take(referee::manifest::MAX_NAME_WIDTH).collect() }
}

/// The files of a kit, by name, with their text.
fn kit_files(game: Option<GameKind>, lang: Language, name: &str) -> Vec<(String, String)> {
    let file = lang.kit_file();
    let game_name = game.map_or(referee::manifest::ANY_GAME, GameKind::name);
    let list = |argv: &[String]| argv.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ");
    // Node reserves more address space than a small memory cap allows (Pah-tum's 128 MB)
    // unless V8 runs without its compiler and helper threads (as uploads run it).
    let node: Vec<String> = submissions::node_command(game, &format!("./{file}")).into_iter().map(str::to_string).collect();
    let mut notes = notes(lang);
    let command = match lang {
        Language::JavaScript if node.len() > 2 => {
            notes.push_str(NODE_LEAN_NOTES);
            node
        }
        _ => lang.run_command(&file),
    };
    let mut manifest = format!(
        "# The manifest of {name} (docs/bots.md in Arbiter's repository).\nname = \"{name}\"\ngame = \"{game_name}\"\nprotocol = \"arbiter\"\ncommand = [{}]\n",
        list(&command)
    );
    let build = (!lang.is_script()).then(|| lang.compile_command(&file));
    if let Some(build) = &build {
        manifest.push_str(&format!("build = [{}]\n", list(build)));
    }
    let build_words = match &build {
        Some(build) => format!(", and the build command it is compiled with when needed, `{}`", build.join(" ")),
        None => String::new(),
    };
    let readme = include_str!("../kits/README.md")
        .replace("{{LANGUAGE}}", lang.spec().title)
        .replace("{{GAME_WORDS}}", &game.map_or("every game (`game = \"any\"`)".to_string(), |g| g.name().to_string()))
        .replace("{{CHOOSE}}", choose(lang))
        .replace("{{FILE}}", &file)
        .replace("{{BUILD_WORDS}}", &build_words)
        .replace("{{PLAY_GAME}}", game.unwrap_or(GameKind::ALL[0]).name())
        // A bot of every game is examined in one game at a time: the README shows how.
        .replace("{{GAME_FLAG}}", &game.map_or(format!(" --game {}", GameKind::ALL[0].name()), |_| String::new()))
        .replace("{{NOTES}}", &notes)
        .replace("{{NAME}}", name);
    let mut files = vec![
        (file.clone(), template(lang).replace("{{NAME}}", name)),
        ("bot.toml".to_string(), manifest),
        ("README.md".to_string(), readme),
    ];
    if build.is_some() {
        let mut ignored = lang.built_files(&file);
        ignored.push(".arbiter-build.lock".to_string());
        files.push((".gitignore".to_string(), format!("{}\n", ignored.join("\n"))));
    }
    files
}

/// The kit of a native interface: its sample for the language, with the kit's name in
/// the manifest (the sample's comments and author dropped) and a README.
fn native_kit(game: Option<GameKind>, protocol: &str, lang: Language, name: &str) -> anyhow::Result<Vec<(String, String)>> {
    let Some(&known) = referee::Protocol::ALL.iter().find(|p| p.name() == protocol) else {
        let names: Vec<&str> = referee::Protocol::ALL.iter().map(|p| p.name()).collect();
        bail!("unknown interface {protocol:?} (interfaces: {})", names.join(", "));
    };
    let plays = known.game().expect("every interface but arbiter belongs to a game");
    let lang_dir = lang_name(lang);
    let Some((_, _, files)) = SAMPLES.iter().find(|(p, l, _)| *p == protocol && *l == lang_dir.as_str()) else {
        let kits: Vec<&str> = SAMPLES.iter().filter(|(p, _, _)| *p == protocol).map(|(_, l, _)| *l).collect();
        bail!("the {protocol} interface has kits in {} only", kits.join(", "));
    };
    if game != Some(plays) {
        bail!("the {protocol} interface plays {plays} only: use arbiter new {plays} {lang_dir} DIR --protocol {protocol}");
    }
    let mut kit = Vec::new();
    let mut program = String::new();
    for (file, text) in files.iter() {
        if *file == "bot.toml" {
            let manifest: String = text
                .lines()
                .filter(|line| !line.starts_with('#') && !line.starts_with("author"))
                .map(|line| if line.starts_with("name = ") { format!("name = \"{name}\"\n") } else { format!("{line}\n") })
                .collect();
            kit.push(("bot.toml".to_string(), manifest));
        } else {
            if program.is_empty() {
                program = file.to_string();
            }
            let text = own_name(text, name);
            // The first program file names the interface, for the web arena's upload form.
            let text = if program == *file { with_marker(&text, file, protocol) } else { text };
            kit.push((file.to_string(), text));
        }
    }
    let manifest = files.iter().find(|(f, _)| *f == "bot.toml").map_or("", |(_, t)| *t);
    let build = manifest_list(manifest, "build");
    let command = manifest_list(manifest, "command");
    let build_words = match &build {
        Some(build) => {
            format!("Build it (the manifest does it too, when a source is newer than the program):\n\n\x20   {}\n\n", shell_words(build))
        }
        None => String::new(),
    };
    let mut readme = format!(
        "# {name}\n\nA player of {plays} over the `{protocol}` interface, in {}: the sample bot of Arbiter's\n\
         repository (`bots/{protocol}/{lang_dir}`), with your name. The interface is described in full\n\
         in `docs/bots.md` of that repository. Make it better in `{program}`; `bot.toml` is its\n\
         manifest.\n\n{build_words}Test it (from this folder; your own bot may run without the sandbox):\n\n\
         \x20   arbiter doctor . --no-sandbox\n\x20   arbiter play {plays} . random --games 4 --show --no-sandbox\n",
        lang.spec().title
    );
    if protocol == "connect4-tcp"
        && let Some(command) = &command
    {
        readme.push_str(&format!(
            "\nOr as in the contest's test environment: start the host, then two clients (this one twice,\n\
             or one of yours against it); each takes the host's address as its first argument:\n\n\
             \x20   arbiter host connect4 --pairs 5 &\n\x20   {cmd} 127.0.0.1:4000 &\n\x20   {cmd} 127.0.0.1:4000\n",
            cmd = shell_words(command)
        ));
    }
    readme.push_str(&notes(lang));
    kit.push(("README.md".to_string(), readme));
    if build.is_some() {
        let mut ignored: Vec<String> = match lang {
            Language::Java | Language::CSharp => lang.built_files(""),
            _ => vec![command.as_ref().and_then(|c| c.first()).map_or("bot", |p| p.trim_start_matches("./")).to_string()],
        };
        if lang == Language::Pascal {
            ignored.extend(["*.o".to_string(), "*.ppu".to_string()]);
        }
        ignored.push(".arbiter-build.lock".to_string());
        kit.push((".gitignore".to_string(), format!("{}\n", ignored.join("\n"))));
    }
    Ok(kit)
}

/// A list of a manifest's (`build = [...]`), read back.
fn manifest_list(manifest: &str, key: &str) -> Option<Vec<String>> {
    let table: toml::Table = manifest.parse().ok()?;
    let list = table.get(key)?.as_array()?;
    Some(list.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
}

/// A command as a person types it in a shell (words with spaces quoted).
fn shell_words(argv: &[String]) -> String {
    argv.iter().map(|a| if a.contains(' ') { format!("'{a}'") } else { a.clone() }).collect::<Vec<_>>().join(" ")
}

/// The names the samples give of themselves (Gomocup's `ABOUT`, the Gomoku interfaces'
/// `INFO`, the Legions, Nupud and Connect Four names), longest first.
const SAMPLE_NAMES: [&str; 10] = [
    "Sample Brain (Python)",
    "Sample Brain",
    "Random Player",
    "\"random-py\"",
    "\"random-cpp\"",
    "\"random-cs\"",
    "\"random-java\"",
    "\"random-c\"",
    "'random-php'",
    "'random-pascal'",
];

/// A sample's program with the kit's name wherever the sample names itself, so that a
/// kit never calls itself "Sample Brain". Legions and Nupud take names of at most 16
/// characters (`protocols::names`).
fn own_name(program: &str, name: &str) -> String {
    let short: String = name.chars().take(protocols::names::MAX_NAME_CHARS).collect();
    SAMPLE_NAMES.iter().fold(program.to_string(), |text, sample| match sample.chars().next() {
        Some(quote @ ('"' | '\'')) => text.replace(sample, &format!("{quote}{short}{quote}")),
        _ => text.replace(sample, name),
    })
}

/// A program with the kit's marker (`submissions::KIT_MARKER`) in a comment at its top
/// (after a `#!` line), so that an upload of this file alone takes its interface.
fn with_marker(program: &str, file: &str, protocol: &str) -> String {
    let marker = submissions::KIT_MARKER;
    if file.ends_with(".py") {
        match program.strip_prefix("#!") {
            Some(_) => {
                let (shebang, rest) = program.split_once('\n').unwrap_or((program, ""));
                format!("{shebang}\n# {marker} {protocol}\n{rest}")
            }
            None => format!("# {marker} {protocol}\n{program}"),
        }
    } else if file.ends_with(".php") {
        // Before `<?php` a comment would be printed: the marker goes after it.
        let (open, rest) = program.split_once('\n').unwrap_or((program, ""));
        format!("{open}\n// {marker} {protocol}\n{rest}")
    } else if file.ends_with(".pas") {
        format!("{{ {marker} {protocol} }}\n{program}")
    } else {
        format!("/* {marker} {protocol} */\n{program}")
    }
}

/// The language's name on the command line.
fn lang_name(lang: Language) -> String {
    lang.name().to_string()
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
