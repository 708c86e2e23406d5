//! `arbiter standings --db FILE|URL`: the standings and cross table of every stage of a
//! tournament's database, with Elo ratings, as text, JSON, CSV, HTML or Markdown.

use std::path::Path;

use store::Location;

use anyhow::Context;
pub use arena::report::{Report, Row, StageReport};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tournament's database: a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "FILE|URL")]
    db: Location,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How the standings are written.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Csv,
    Html,
    /// Markdown.
    Md,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    print_all(&args.db, args.format)
}

/// Prints the standings of the tournament in `db` in the given format.
pub fn print_all(db: &Location, format: Format) -> anyhow::Result<()> {
    let report = load(db)?;
    let out = match format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Csv => csv(&report),
        Format::Html => html(&report),
        Format::Md => markdown(&report),
        Format::Text => text(&report),
    };
    print!("{out}");
    Ok(())
}

/// Reads the database and computes the standings of every stage.
pub fn load(db: &Location) -> anyhow::Result<Report> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = store::Store::open_read_only_at(db).await?;
        let report = arena::report::load_report(&store, &db.name()).await?;
        store.close().await;
        Ok(report)
    })
}

/// Whether `path` is to be read as a results database rather than as a game record:
/// an SQLite file, or anything that is not a readable regular file (the store then
/// says what it is, in the words every command uses).
pub fn is_database(path: &Path) -> bool {
    let mut header = [0u8; 16];
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let read = std::fs::File::open(path).and_then(|mut file| std::io::Read::read(&mut file, &mut header));
            !matches!(read, Ok(n) if n < header.len() || &header != b"SQLite format 3\0")
        }
        _ => true,
    }
}

fn points(p: f64) -> String {
    tournament::scoring::format_points(p)
}

fn elo(row: &Row) -> String {
    match (row.elo, row.elo_error95) {
        // No spread in the games (a single pair, say) gives no margin, not a margin of 0.
        (Some(elo), Some(err)) if elo.is_finite() && err.is_finite() && err >= 0.5 => format!("{elo:+.0} ± {err:.0}"),
        (Some(elo), _) if elo.is_finite() => format!("{elo:+.0}"),
        _ => "-".to_string(),
    }
}

fn wdl(v: [u32; 3]) -> String {
    format!("{}-{}-{}", v[0], v[1], v[2])
}

fn faults(row: &Row) -> String {
    let parts: Vec<String> = [(row.timeouts, "T"), (row.crashes, "C"), (row.illegal_moves, "I"), (row.protocol_errors, "P")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, tag)| format!("{n}{tag}"))
        .collect();
    if parts.is_empty() { "-".to_string() } else { parts.join(" ") }
}

fn ms(row: &Row) -> String {
    row.avg_ms_per_move.map_or("-".to_string(), |ms| format!("{ms:.1}"))
}

fn cells_of(row: &Row) -> Vec<String> {
    vec![
        row.rank.to_string(),
        row.entrant.clone(),
        points(row.points),
        row.games.to_string(),
        wdl(row.first),
        wdl(row.second),
        faults(row),
        ms(row),
        row.score_sum.map_or("-".to_string(), |s| s.to_string()),
        elo(row),
    ]
}

const HEADERS: [&str; 10] =
    ["#", "entrant", "points", "games", "W-D-L 1st", "W-D-L 2nd", "faults", "ms/move", "scores", "Elo ± 95% (this stage)"];

const BRACKET_HEADERS: [&str; 10] = ["match", "round", "part", "side 1", "side 2", "points", "games", "winner", "winner to", "loser to"];

fn stage_title(report: &Report, stage: &StageReport) -> String {
    let status = if stage.provisional { "running, provisional standings (the games still to play may change them)" } else { &stage.status };
    format!(
        "{}: stage {} of {}, {} ({}, {}): {}, {} games",
        report.tournament,
        stage.index + 1,
        report.stages.len(),
        stage.name,
        stage.format,
        stage.scoring,
        status,
        stage.games
    )
}

/// A piece of a stage's report, rendered by each format its own way.
enum Block {
    /// A table under a caption; the first row is the header.
    Table {
        caption: String,
        cells: Vec<Vec<String>>,
    },
    Line(String),
}

fn standings_table(caption: String, rows: &[Row]) -> Block {
    let mut cells: Vec<Vec<String>> = vec![HEADERS.iter().map(|h| h.to_string()).collect()];
    cells.extend(rows.iter().map(cells_of));
    Block::Table { caption, cells }
}

fn cross_table(caption: String, rows: &[Row], cross: &[Vec<Option<f64>>]) -> Block {
    let mut cells: Vec<Vec<String>> = vec![std::iter::once(String::new()).chain((1..=rows.len()).map(|n| n.to_string())).collect()];
    for (n, (row, line)) in rows.iter().zip(cross).enumerate() {
        let mut cells_of_row = vec![format!("{} {}", n + 1, row.entrant)];
        cells_of_row.extend(line.iter().map(|c| c.map_or("-".to_string(), points)));
        cells.push(cells_of_row);
    }
    Block::Table { caption, cells }
}

/// What a stage's report shows: its tables (one per group for groups), the bracket of a
/// double elimination, and who went on.
fn blocks(stage: &StageReport) -> Vec<Block> {
    let mut out = Vec::new();
    if stage.rows.is_empty() {
        return out;
    }
    let cross_caption = "cross table (points of the row against the column)";
    if stage.groups.is_empty() {
        out.push(standings_table("standings".to_string(), &stage.rows));
        if !stage.cross.is_empty() {
            out.push(cross_table(cross_caption.to_string(), &stage.rows, &stage.cross));
        }
    } else {
        for group in &stage.groups {
            out.push(standings_table(group.name.clone(), &group.rows));
            out.push(cross_table(format!("{}: {cross_caption}", group.name), &group.rows, &group.cross));
        }
        let order: Vec<String> = stage.rows.iter().map(|r| format!("{} {}", r.rank, r.entrant)).collect();
        let label = if stage.provisional { "ranking so far" } else { "ranking of the stage" };
        out.push(Block::Line(format!("{label}: {}", order.join(", "))));
    }
    if !stage.bracket.is_empty() {
        let mut cells: Vec<Vec<String>> = vec![BRACKET_HEADERS.iter().map(|h| h.to_string()).collect()];
        for m in &stage.bracket {
            cells.push(vec![
                m.number.to_string(),
                m.round.to_string(),
                m.part.clone(),
                m.sides[0].clone(),
                m.sides[1].clone(),
                m.points.map_or("-".to_string(), |[a, b]| format!("{}-{}", points(a), points(b))),
                m.games.to_string(),
                m.winner.clone().unwrap_or_else(|| "-".to_string()),
                m.winner_to.clone(),
                m.loser_to.clone(),
            ]);
        }
        out.push(Block::Table { caption: "bracket (matches in playing order)".to_string(), cells });
    }
    if !stage.qualified.is_empty() {
        out.push(Block::Line(format!("qualified: {}", stage.qualified.join(", "))));
    }
    out
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    for stage in &report.stages {
        out.push_str(&stage_title(report, stage));
        out.push('\n');
        for block in blocks(stage) {
            match block {
                Block::Table { caption, cells } => {
                    out.push_str(&format!("{caption}:\n"));
                    out.push_str(&aligned(&cells));
                }
                Block::Line(line) => out.push_str(&format!("{line}\n")),
            }
        }
        out.push('\n');
    }
    if !report.notes.is_empty() {
        out.push_str("notes:\n");
        for note in &report.notes {
            out.push_str(&format!("  {note}\n"));
        }
    }
    out
}

fn aligned(table: &[Vec<String>]) -> String {
    let cols = table.iter().map(Vec::len).max().unwrap_or(0);
    // Widths in terminal columns: a CJK name or an emoji takes two per character.
    let widths: Vec<usize> = (0..cols).map(|c| table.iter().filter_map(|r| r.get(c)).map(|s| text::width(s)).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in table {
        let line: Vec<String> = row.iter().enumerate().map(|(c, s)| text::pad(s, widths[c])).collect();
        out.push_str("  ");
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

fn csv(report: &Report) -> String {
    let mut out = String::from(
        "stage,status,group,rank,entrant,points,games,wins_first,draws_first,losses_first,wins_second,draws_second,losses_second,timeouts,crashes,illegal_moves,protocol_errors,avg_ms_per_move,score_sum,stage_elo,stage_elo_error95\n",
    );
    let opt = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.1}"));
    for stage in &report.stages {
        for row in &stage.rows {
            let group = stage.groups.iter().find(|g| g.rows.iter().any(|r| r.entrant_id == row.entrant_id)).map_or("", |g| &g.name);
            let fields = [
                csv_field(&stage.name),
                stage.status.clone(),
                csv_field(group),
                row.rank.to_string(),
                csv_field(&row.entrant),
                points(row.points),
                row.games.to_string(),
                row.first[0].to_string(),
                row.first[1].to_string(),
                row.first[2].to_string(),
                row.second[0].to_string(),
                row.second[1].to_string(),
                row.second[2].to_string(),
                row.timeouts.to_string(),
                row.crashes.to_string(),
                row.illegal_moves.to_string(),
                row.protocol_errors.to_string(),
                opt(row.avg_ms_per_move),
                row.score_sum.map_or(String::new(), |s| s.to_string()),
                opt(row.elo),
                opt(row.elo_error95),
            ];
            out.push_str(&fields.join(","));
            out.push('\n');
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn html(report: &Report) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif}}table{{border-collapse:collapse;margin-bottom:1em}}td,th{{border:1px solid #999;padding:2px 6px;text-align:right}}td:nth-child(2){{text-align:left}}caption{{text-align:left;font-weight:bold}}</style></head><body>\n<h1>{}</h1>\n",
        escape(&report.tournament),
        escape(&report.tournament)
    );
    for stage in &report.stages {
        out.push_str(&format!("<h2>{}</h2>\n", escape(&stage_title(report, stage))));
        for block in blocks(stage) {
            match block {
                Block::Table { caption, cells } => {
                    out.push_str(&format!("<table>\n<caption>{}</caption>\n", escape(&caption)));
                    for (n, line) in cells.iter().enumerate() {
                        let tag = if n == 0 { "th" } else { "td" };
                        out.push_str("<tr>");
                        for cell in line {
                            out.push_str(&format!("<{tag}>{}</{tag}>", escape(cell)));
                        }
                        out.push_str("</tr>\n");
                    }
                    out.push_str("</table>\n");
                }
                Block::Line(line) => out.push_str(&format!("<p>{}</p>\n", escape(&line))),
            }
        }
    }
    if !report.notes.is_empty() {
        out.push_str("<h2>Notes</h2>\n<ul>\n");
        for note in &report.notes {
            out.push_str(&format!("<li>{}</li>\n", escape(note)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn markdown(report: &Report) -> String {
    let mut out = format!("# {}\n\n", md_cell(&report.tournament));
    for stage in &report.stages {
        out.push_str(&format!("## {}\n\n", md_cell(&stage_title(report, stage))));
        for block in blocks(stage) {
            match block {
                Block::Table { caption, cells } => {
                    out.push_str(&format!("{}:\n\n", md_cell(&caption)));
                    for (n, line) in cells.iter().enumerate() {
                        let line: Vec<String> = line.iter().map(|c| md_cell(c)).collect();
                        out.push_str(&format!("| {} |\n", line.join(" | ")));
                        if n == 0 {
                            out.push_str(&format!("|{}\n", "---|".repeat(line.len())));
                        }
                    }
                    out.push('\n');
                }
                Block::Line(line) => out.push_str(&format!("{}\n\n", md_cell(&line))),
            }
        }
    }
    for note in &report.notes {
        out.push_str(&format!("- {}\n", md_cell(note)));
    }
    out
}
