//! What the libraries log (`tracing`), on stderr as the command line prints its own
//! lines: an error as `arbiter COMMAND: ...`, a warning as `warning: ...`, anything else
//! as it is. Only the project's own crates are heard, not the database driver's logs.

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The crates whose events are printed.
const OURS: [&str; 6] = ["web", "arena", "referee", "bots", "store", "submissions"];

/// One line per event, in the command line's words.
struct Lines {
    /// The subcommand, which names the errors (`arbiter serve: ...`).
    command: String,
}

impl<S, N> FormatEvent<S, N> for Lines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> std::fmt::Result {
        match *event.metadata().level() {
            Level::ERROR => write!(writer, "arbiter {}: ", self.command)?,
            Level::WARN => write!(writer, "warning: ")?,
            _ => {}
        }
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// Prints the project's events of level info and above on stderr for `command`.
pub fn init(command: &str) {
    // A second subscriber (never set here) would only mean these lines go elsewhere.
    let _ = lines(command, std::io::stderr).try_init();
}

/// The project's events of level info and above, as [`Lines`], into `writer`.
fn lines<W>(command: &str, writer: W) -> impl Subscriber + Send + Sync + 'static
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let ours = OURS.iter().fold(Targets::new(), |targets, name| targets.with_target(*name, Level::INFO));
    let lines = tracing_subscriber::fmt::layer().event_format(Lines { command: command.to_string() }).with_writer(writer);
    tracing_subscriber::registry().with(lines.with_filter(ours))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    /// What the subscriber wrote.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Written {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn events_print_as_the_command_lines_own() {
        let written = Written::default();
        let sink = written.clone();
        let subscriber = super::lines("serve", move || sink.clone());
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(target: "web::games", "game g1 was not played: no space");
            tracing::warn!(target: "web", "skipped t.db: not a database");
            tracing::info!(target: "arena", "a note");
            tracing::debug!(target: "web", "not shown");
            tracing::warn!(target: "sqlx::query", "slow statement: not ours");
        });
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "arbiter serve: game g1 was not played: no space\nwarning: skipped t.db: not a database\na note\n");
    }
}
