//! The languages bots may be written in, as one published table: how each is named and
//! detected, how a program in it is compiled and run, how its toolchain tells its
//! version, and which Debian packages provide it. Kits (`arbiter new`), uploads, the
//! system image (`arbiter system build`) and `arbiter languages` all read this table,
//! so a language is added here once. Pure data: nothing here runs a program.
//!
//! Commands are templates: `{file}` is the program's source file (`bot.c`, `Main.java`)
//! and `{stem}` its name without the extension (Java's class). A compiled language
//! leaves its program as `bot` (C# `bot.exe`, Java its classes) in the bot's folder.

use serde::{Deserialize, Serialize};

/// A language of the published set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    C,
    Cpp,
    Rust,
    #[serde(rename = "javascript")]
    JavaScript,
    Java,
    Go,
    #[serde(rename = "csharp")]
    CSharp,
    Pascal,
    Php,
}

/// What one language is: its row of the table.
#[derive(Debug)]
pub struct Spec {
    /// The name on the command line and in uploads (`cpp`, `csharp`).
    pub name: &'static str,
    /// Other names accepted for it (`c++`, `c#`, `cs`).
    pub aliases: &'static [&'static str],
    /// The name people read (`C++`, `C#`).
    pub title: &'static str,
    /// The file extensions of its sources, lower case, the first the one written.
    pub extensions: &'static [&'static str],
    /// The stem of a kit's program file (`bot`, Java's class `Bot`).
    pub kit_stem: &'static str,
    /// The stem of an upload's source file (`main`, Java's class `Main`).
    pub upload_stem: &'static str,
    /// The compile command, or for a script the syntax check (`check` says which).
    pub compile: &'static [&'static str],
    /// Whether [`Spec::compile`] only checks the source: a script runs from its source.
    pub script: bool,
    /// The command that runs the program, from the bot's folder.
    pub run: &'static [&'static str],
    /// The command that prints the toolchain's version (the first line that is not
    /// empty, from stdout or else stderr).
    pub version: &'static [&'static str],
    /// The Debian packages that provide the toolchain and the runtime.
    pub packages: &'static [&'static str],
    /// The memory a bot in it needs beyond its own data, in words (`docs/bots.md`).
    pub memory: &'static str,
}

/// The JVM's flags for a bot: the serial collector (one GC thread, the smallest
/// footprint), the client compiler (it starts sooner), a heap of at most 256 MiB
/// (enough for a game bot; raise it in the manifest for more).
const JAVA_RUN: &[&str] = &["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xss16m", "-jar", "./bot.jar"];

/// Java compiles to classes packed in one jar (`bot.jar`, the class `{stem}` its entry):
/// one program file, so a manifest rebuilds it when the source is newer.
const JAVA_COMPILE: &[&str] =
    &["sh", "-c", "javac -encoding UTF-8 -d classes {file} && jar --create --file bot.jar --main-class {stem} -C classes ."];

impl Language {
    /// Every language, in the order they are listed.
    pub const ALL: [Language; 10] = [
        Language::Python,
        Language::C,
        Language::Cpp,
        Language::Rust,
        Language::JavaScript,
        Language::Java,
        Language::Go,
        Language::CSharp,
        Language::Pascal,
        Language::Php,
    ];

    /// The language's row.
    pub fn spec(self) -> &'static Spec {
        match self {
            Language::Python => &Spec {
                name: "python",
                aliases: &["py", "python3"],
                title: "Python 3",
                extensions: &["py"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["python3", "-m", "py_compile", "{file}"],
                script: true,
                run: &["python3", "./{file}"],
                version: &["python3", "-c", "import sys, numpy; print('Python', sys.version.split()[0], 'numpy', numpy.__version__)"],
                packages: &["python3", "python3-numpy"],
                memory: "about 10 MB for the interpreter, 30 MB with numpy",
            },
            Language::C => &Spec {
                name: "c",
                aliases: &[],
                title: "C",
                extensions: &["c"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["cc", "-O2", "-std=c11", "-o", "bot", "{file}", "-lm"],
                script: false,
                run: &["./bot"],
                version: &["cc", "--version"],
                packages: &["gcc", "libc6-dev"],
                memory: "nothing beyond its own data",
            },
            Language::Cpp => &Spec {
                name: "cpp",
                aliases: &["c++", "cxx"],
                title: "C++",
                extensions: &["cpp", "cc", "cxx"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["c++", "-O2", "-std=c++17", "-o", "bot", "{file}"],
                script: false,
                run: &["./bot"],
                version: &["c++", "--version"],
                packages: &["g++"],
                memory: "nothing beyond its own data",
            },
            Language::Rust => &Spec {
                name: "rust",
                aliases: &["rs"],
                title: "Rust",
                extensions: &["rs"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["rustc", "-O", "--edition", "2021", "-o", "bot", "{file}"],
                script: false,
                run: &["./bot"],
                version: &["rustc", "--version"],
                packages: &["rustc"],
                memory: "nothing beyond its own data (the standard library only: no crates)",
            },
            Language::JavaScript => &Spec {
                name: "javascript",
                aliases: &["js", "node"],
                title: "JavaScript (Node.js)",
                extensions: &["js", "mjs"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["node", "--check", "{file}"],
                script: true,
                run: &["node", "./{file}"],
                version: &["node", "--version"],
                packages: &["nodejs"],
                memory: "about 40 MB; under a cap below 1 GB it runs with `--jitless --v8-pool-size=0`",
            },
            Language::Java => &Spec {
                name: "java",
                aliases: &[],
                title: "Java",
                extensions: &["java"],
                kit_stem: "Bot",
                upload_stem: "Main",
                compile: JAVA_COMPILE,
                script: false,
                run: JAVA_RUN,
                version: &["javac", "-version"],
                packages: &["default-jdk-headless"],
                memory: "about 40 MB resident, 2.5 GB of address space reserved; the heap is capped at 256 MiB by `-Xmx256m`: give a memory cap of at least 512 MB",
            },
            Language::Go => &Spec {
                name: "go",
                aliases: &["golang"],
                title: "Go",
                extensions: &["go"],
                kit_stem: "bot",
                upload_stem: "main",
                // The build cache in the build's own /tmp: the bot's folder stays clean.
                compile: &["env", "GOCACHE=/tmp/go-build", "GO111MODULE=off", "go", "build", "-o", "bot", "{file}"],
                script: false,
                run: &["./bot"],
                version: &["go", "version"],
                packages: &["golang-go"],
                memory: "a few MB for the runtime",
            },
            Language::CSharp => &Spec {
                name: "csharp",
                aliases: &["c#", "cs", "mono"],
                title: "C# (Mono)",
                extensions: &["cs"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["mcs", "-optimize+", "-out:bot.exe", "{file}"],
                script: false,
                run: &["mono", "./bot.exe"],
                version: &["mcs", "--version"],
                packages: &["mono-mcs", "mono-runtime"],
                memory: "about 20 MB for the runtime, 180 MB of address space reserved: give a memory cap of at least 256 MB",
            },
            Language::Pascal => &Spec {
                name: "pascal",
                aliases: &["fpc", "delphi"],
                title: "Pascal (Free Pascal)",
                extensions: &["pas", "pp", "dpr"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["fpc", "-O2", "-Mobjfpc", "-obot", "{file}"],
                script: false,
                run: &["./bot"],
                version: &["fpc", "-iV"],
                packages: &["fp-compiler", "fp-units-rtl"],
                memory: "nothing beyond its own data",
            },
            Language::Php => &Spec {
                name: "php",
                aliases: &[],
                title: "PHP",
                extensions: &["php"],
                kit_stem: "bot",
                upload_stem: "main",
                compile: &["php", "-l", "{file}"],
                script: true,
                run: &["php", "./{file}"],
                version: &["php", "--version"],
                packages: &["php-cli"],
                memory: "about 10 MB for the interpreter",
            },
        }
    }

    /// The name on the command line (`cpp`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The language of a name or an alias, in any letter case.
    pub fn from_name(name: &str) -> Option<Language> {
        let name = name.trim().to_ascii_lowercase();
        Language::ALL.into_iter().find(|l| l.spec().name == name || l.spec().aliases.contains(&name.as_str()))
    }

    /// The language of a file name, by its extension.
    pub fn from_filename(filename: &str) -> Option<Language> {
        let (_, ext) = filename.rsplit_once('.')?;
        let ext = ext.to_ascii_lowercase();
        Language::ALL.into_iter().find(|l| l.spec().extensions.contains(&ext.as_str()))
    }

    /// The language whose toolchain a program is (`javac`, `fpc`, `mono`): the first
    /// program of its compile, run or version command.
    pub fn of_program(program: &str) -> Option<Language> {
        // The first word that is not `env`, an assignment or a shell (`sh -c "javac ..."`).
        let first = |argv: &[&str]| {
            let words = argv.iter().flat_map(|a| a.split(' ')).filter(|a| !matches!(*a, "env" | "sh" | "-c") && !a.contains('='));
            words.map(str::to_string).next()
        };
        if program.starts_with("./") {
            return None;
        }
        Language::ALL.into_iter().find(|l| {
            let spec = l.spec();
            [spec.compile, spec.run, spec.version].iter().filter_map(|argv| first(argv)).any(|p| p == program)
        })
    }

    /// Every extension of every language, with its dot (`.c, .cpp, ...`), for messages.
    pub fn all_extensions() -> String {
        let all: Vec<String> = Language::ALL.iter().flat_map(|l| l.spec().extensions.iter().map(|e| format!(".{e}"))).collect();
        all.join(", ")
    }

    /// The source file name of a program whose stem is `stem` (`bot` -> `bot.py`).
    pub fn file(self, stem: &str) -> String {
        format!("{stem}.{}", self.spec().extensions[0])
    }

    /// A kit's program file (`bot.c`, `Bot.java`).
    pub fn kit_file(self) -> String {
        self.file(self.spec().kit_stem)
    }

    /// An upload's source file (`main.c`, `Main.java`).
    pub fn upload_file(self) -> String {
        self.file(self.spec().upload_stem)
    }

    /// The name an upload's single source is kept under: [`Language::upload_file`], but a
    /// Java source keeps its own name when it is a class name (`Bot.java` holds the class
    /// `Bot`, which the jar starts).
    pub fn file_for_upload(self, uploaded: &str) -> String {
        let stem = uploaded.strip_suffix(".java").unwrap_or("");
        let class =
            stem.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if self == Language::Java && class { uploaded.to_string() } else { self.upload_file() }
    }

    /// Whether the program runs from its source (Python, JavaScript, PHP).
    pub fn is_script(self) -> bool {
        self.spec().script
    }

    /// The compile (or check) command for the source `file`.
    pub fn compile_command(self, file: &str) -> Vec<String> {
        fill(self.spec().compile, file)
    }

    /// The run command for the source `file` (its compiled program, for a compiled one).
    pub fn run_command(self, file: &str) -> Vec<String> {
        fill(self.spec().run, file)
    }

    /// The program the compiled bot's command starts from its folder (`bot`,
    /// `bot.exe`, Java's `{stem}.class`), or the source for a script: what a build must
    /// have left.
    pub fn program(self, file: &str) -> String {
        match self {
            _ if self.is_script() => file.to_string(),
            Language::CSharp => "bot.exe".to_string(),
            Language::Java => "bot.jar".to_string(),
            _ => "bot".to_string(),
        }
    }

    /// The files a build leaves that are not the source (for a kit's `.gitignore`).
    pub fn built_files(self, file: &str) -> Vec<String> {
        match self {
            _ if self.is_script() => Vec::new(),
            Language::Java => vec!["bot.jar".to_string(), "classes/".to_string()],
            Language::Pascal => vec!["bot".to_string(), "*.o".to_string(), "*.ppu".to_string()],
            _ => vec![self.program(file)],
        }
    }

    /// The version line out of what the version command printed: the first line that
    /// is not empty, of stdout or else of stderr.
    pub fn version_line(stdout: &str, stderr: &str) -> Option<String> {
        [stdout, stderr].iter().flat_map(|text| text.lines()).map(str::trim).find(|line| !line.is_empty()).map(str::to_string)
    }
}

fn stem(file: &str) -> &str {
    file.rsplit_once('.').map_or(file, |(stem, _)| stem)
}

fn fill(template: &[&str], file: &str) -> Vec<String> {
    template.iter().map(|arg| arg.replace("{file}", file).replace("{stem}", stem(file))).collect()
}

/// Every Debian package of every language, once each, in the table's order.
pub fn all_packages() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Vec::new();
    for language in Language::ALL {
        for package in language.spec().packages {
            if !all.contains(package) {
                all.push(package);
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_files_find_their_language() {
        for (text, language) in [
            ("C++", Language::Cpp),
            ("c#", Language::CSharp),
            ("Golang", Language::Go),
            ("delphi", Language::Pascal),
            ("js", Language::JavaScript),
        ] {
            assert_eq!(Language::from_name(text), Some(language), "{text}");
        }
        for (file, language) in [
            ("bot.PY", Some(Language::Python)),
            ("main.cc", Some(Language::Cpp)),
            ("Main.java", Some(Language::Java)),
            ("main.go", Some(Language::Go)),
            ("bot.pas", Some(Language::Pascal)),
            ("Program.cs", Some(Language::CSharp)),
            ("client.php", Some(Language::Php)),
            ("Makefile", None),
        ] {
            assert_eq!(Language::from_filename(file), language, "{file}");
        }
    }

    #[test]
    fn every_name_extension_and_alias_is_one_language() {
        let mut seen = Vec::new();
        for language in Language::ALL {
            let spec = language.spec();
            for word in std::iter::once(spec.name).chain(spec.aliases.iter().copied()) {
                assert!(!seen.contains(&word), "{word} twice");
                seen.push(word);
                assert_eq!(Language::from_name(word), Some(language));
            }
            for ext in spec.extensions {
                assert_eq!(Language::from_filename(&format!("x.{ext}")), Some(language));
            }
            assert_eq!(serde_json::to_string(&language).ok(), Some(format!("\"{}\"", spec.name)));
        }
    }

    #[test]
    fn commands_are_filled_in() {
        assert!(Language::Java.compile_command("Main.java")[2].contains("javac -encoding UTF-8 -d classes Main.java && jar"));
        assert!(Language::Java.compile_command("Main.java")[2].contains("--main-class Main "));
        assert_eq!(Language::Java.run_command("Bot.java").last().map(String::as_str), Some("./bot.jar"));
        assert_eq!(Language::Java.program("Main.java"), "bot.jar");
        assert_eq!(Language::Python.run_command("main.py"), ["python3", "./main.py"]);
        assert_eq!(Language::CSharp.program("bot.cs"), "bot.exe");
        assert_eq!(Language::Pascal.kit_file(), "bot.pas");
        assert_eq!(Language::Java.kit_file(), "Bot.java");
        assert_eq!(Language::Java.file_for_upload("Bot.java"), "Bot.java");
        assert_eq!(Language::Java.file_for_upload("my bot.java"), "Main.java");
        assert_eq!(Language::C.file_for_upload("random.c"), "main.c");
        assert_eq!(Language::of_program("javac"), Some(Language::Java));
        assert_eq!(Language::of_program("mono"), Some(Language::CSharp));
        assert_eq!(Language::of_program("go"), Some(Language::Go));
        assert_eq!(Language::of_program("./bot"), None);
        assert_eq!(Language::version_line("\n", "javac 17.0.15\n"), Some("javac 17.0.15".to_string()));
    }

    #[test]
    fn the_setup_script_installs_every_package() {
        let script = include_str!("../../../scripts/setup-languages");
        let listed = script.lines().find(|l| l.starts_with("packages=(")).expect("the script's package list");
        let mut listed: Vec<&str> = listed.trim_start_matches("packages=(").trim_end_matches(')').split(' ').collect();
        // Rust: Debian's rustc only without rustup (the script's next lines).
        listed.push("rustc");
        listed.sort_unstable();
        let mut table = all_packages();
        table.sort_unstable();
        assert_eq!(listed, table);
    }
}
