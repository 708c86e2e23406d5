//! `arbiter-sandbox`: confines itself and runs a bot (see the `sandbox` library), or
//! checks what this machine enforces (`--check`), or keeps a referee's plain bots
//! (`--keeper`).

use sandbox::options::{Invocation, USAGE, parse};

fn main() {
    let invocation = match parse(std::env::args_os().skip(1)) {
        Ok(invocation) => invocation,
        Err(err) => {
            eprintln!("arbiter-sandbox: {err}\n{USAGE}");
            std::process::exit(125);
        }
    };
    match invocation {
        Invocation::Run(options) if options.inner.is_some() => {
            let view = options.inner.expect("matched above");
            let err = sandbox::helper::run_inner(&options, view);
            eprintln!("arbiter-sandbox: {err}");
            std::process::exit(err.exit_code());
        }
        Invocation::Run(options) => match sandbox::helper::run(&options) {
            Ok(status) => sandbox::helper::exit_like(status),
            Err(err) => {
                eprintln!("arbiter-sandbox: {err}");
                std::process::exit(err.exit_code());
            }
        },
        Invocation::Check { workdir } => {
            let Ok(me) = std::env::current_exe() else {
                eprintln!("arbiter-sandbox: cannot find its own program file");
                std::process::exit(125);
            };
            let base = workdir.unwrap_or_else(std::env::temp_dir);
            let guarantees = sandbox::check::check_in(&me, &base);
            for guarantee in &guarantees {
                println!("{guarantee}");
            }
            let all = guarantees.iter().all(|g| g.status == sandbox::Status::Enforced);
            std::process::exit(if all { 0 } else { 1 });
        }
        Invocation::Probe(args) => println!("{}", sandbox::probe::run(&args)),
        Invocation::Keeper => sandbox::keeper::run(),
    }
}
