//! `arbiter standings --db FILE`: the standings and cross table of every stage of a
//! tournament's database, with Elo ratings, as text, JSON, CSV, HTML or Markdown.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
pub use arena::report::{Report, Row, StageReport};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tournament's database.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// text, json, csv, html or md.
    #[arg(long, default_value = "text")]
    format: String,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    print_all(&args.db, &args.format)
}

/// Prints the standings of the tournament in `db` in the given format.
pub fn print_all(db: &Path, format: &str) -> anyhow::Result<()> {
    if !matches!(format, "text" | "json" | "csv" | "html" | "md") {
        bail!("unknown format {format:?} (text, json, csv, html, md)");
    }
    let report = load(db)?;
    let out = match format {
        "json" => serde_json::to_string_pretty(&report)? + "\n",
        "csv" => csv(&report),
        "html" => html(&report),
        "md" => markdown(&report),
        _ => text(&report),
    };
    print!("{out}");
    Ok(())
}

/// Reads the database and computes the standings of every stage.
pub fn load(db: &Path) -> anyhow::Result<Report> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = store::Store::open_read_only(db).await?;
        Ok(arena::report::load_report(&store, &db.display().to_string()).await?)
    })
}

fn points(p: f64) -> String {
    tournament::scoring::format_points(p)
}

fn elo(row: &Row) -> String {
    match (row.elo, row.elo_error95) {
        (Some(elo), Some(err)) if elo.is_finite() && err.is_finite() => format!("{elo:+.0} ± {err:.0}"),
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

fn cells(row: &Row) -> Vec<String> {
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

const HEADERS: [&str; 10] = ["#", "entrant", "points", "games", "W-D-L 1st", "W-D-L 2nd", "faults", "ms/move", "scores", "Elo ± 95%"];

fn stage_title(report: &Report, stage: &StageReport) -> String {
    format!(
        "{}: stage {} of {}, {} ({}, {}): {}, {} games",
        report.tournament,
        stage.index + 1,
        report.stages.len(),
        stage.name,
        stage.format,
        stage.scoring,
        stage.status,
        stage.games
    )
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    for stage in &report.stages {
        out.push_str(&stage_title(report, stage));
        out.push('\n');
        if stage.rows.is_empty() {
            out.push('\n');
            continue;
        }
        let mut table: Vec<Vec<String>> = vec![HEADERS.iter().map(|h| h.to_string()).collect()];
        table.extend(stage.rows.iter().map(cells));
        out.push_str(&aligned(&table));
        out.push_str("cross table (points of the row against the column):\n");
        let mut cross: Vec<Vec<String>> =
            vec![std::iter::once(String::new()).chain((1..=stage.rows.len()).map(|n| n.to_string())).collect()];
        for (row, line) in stage.rows.iter().zip(&stage.cross) {
            let mut cells = vec![format!("{} {}", row.rank, row.entrant)];
            cells.extend(line.iter().map(|c| c.map_or("-".to_string(), points)));
            cross.push(cells);
        }
        out.push_str(&aligned(&cross));
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
    let widths: Vec<usize> =
        (0..cols).map(|c| table.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in table {
        let line: Vec<String> = row.iter().enumerate().map(|(c, s)| format!("{s:<w$}", w = widths[c])).collect();
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
        "stage,rank,entrant,points,games,wins_first,draws_first,losses_first,wins_second,draws_second,losses_second,timeouts,crashes,illegal_moves,protocol_errors,avg_ms_per_move,score_sum,elo,elo_error95\n",
    );
    let opt = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.1}"));
    for stage in &report.stages {
        for row in &stage.rows {
            let fields = [
                csv_field(&stage.name),
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
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif}}table{{border-collapse:collapse;margin-bottom:1em}}td,th{{border:1px solid #999;padding:2px 6px;text-align:right}}td:nth-child(2){{text-align:left}}</style></head><body>\n<h1>{}</h1>\n",
        escape(&report.tournament),
        escape(&report.tournament)
    );
    for stage in &report.stages {
        out.push_str(&format!("<h2>{}</h2>\n", escape(&stage_title(report, stage))));
        if stage.rows.is_empty() {
            continue;
        }
        out.push_str("<table>\n<tr>");
        for h in HEADERS {
            out.push_str(&format!("<th>{}</th>", escape(h)));
        }
        out.push_str("</tr>\n");
        for row in &stage.rows {
            out.push_str("<tr>");
            for cell in cells(row) {
                out.push_str(&format!("<td>{}</td>", escape(&cell)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n<table>\n<tr><th></th>");
        for n in 1..=stage.rows.len() {
            out.push_str(&format!("<th>{n}</th>"));
        }
        out.push_str("</tr>\n");
        for (row, line) in stage.rows.iter().zip(&stage.cross) {
            out.push_str(&format!("<tr><td>{} {}</td>", row.rank, escape(&row.entrant)));
            for cell in line {
                out.push_str(&format!("<td>{}</td>", cell.map_or("-".to_string(), points)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
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

fn markdown(report: &Report) -> String {
    let mut out = format!("# {}\n\n", report.tournament);
    for stage in &report.stages {
        out.push_str(&format!("## {}\n\n", stage_title(report, stage)));
        if stage.rows.is_empty() {
            continue;
        }
        out.push_str(&format!("| {} |\n|{}\n", HEADERS.join(" | "), "---|".repeat(HEADERS.len())));
        for row in &stage.rows {
            let cells: Vec<String> = cells(row).iter().map(|c| c.replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push('\n');
    }
    for note in &report.notes {
        out.push_str(&format!("- {note}\n"));
    }
    out
}
