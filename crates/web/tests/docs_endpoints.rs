//! `docs/web.md` documents every endpoint of the router and only those: the paths given
//! to `.route(...)` in the web crate's source, read from the source itself, against the
//! paths the page writes as `` `GET /api/...` `` (or any other method) and as pages in
//! its table. An endpoint added without a line in the docs, or a line left behind by a
//! removed one, fails here.

use std::collections::BTreeSet;
use std::path::Path;

/// Every path literal passed to `.route(` in the crate's source files.
fn router_paths() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = BTreeSet::new();
    for entry in std::fs::read_dir(&src).expect("the web crate's src") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (at, _) in text.match_indices(".route(") {
            let rest = text[at + ".route(".len()..].trim_start();
            let Some(literal) = rest.strip_prefix('"') else { continue };
            let end = literal.find('"').expect("a closed string literal");
            paths.insert(literal[..end].to_string());
        }
    }
    paths
}

/// The paths `docs/web.md` documents: after an HTTP method in backticks, or a page
/// (`` | `/...` | `` in the pages table).
fn documented_paths(doc: &str) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    for method in ["GET ", "POST ", "PUT ", "DELETE ", "PATCH "] {
        for (at, _) in doc.match_indices(&format!("`{method}/")) {
            let rest = &doc[at + 1 + method.len()..];
            let end = rest.find(['`', '[', '?', ' ']).expect("a closed code span");
            paths.insert(rest[..end].to_string());
        }
    }
    // A page row's first cell: one or more paths in code spans, a query at most after each.
    for line in doc.lines().filter(|line| line.starts_with("| `/")) {
        let cell = line[1..].split('|').next().unwrap_or_default();
        for span in cell.split('`').skip(1).step_by(2) {
            paths.insert(span.split('?').next().unwrap_or_default().to_string());
        }
    }
    paths
}

#[test]
fn the_docs_list_every_endpoint_of_the_router_and_no_other() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/web.md")).expect("docs/web.md");
    let documented = documented_paths(&doc);
    // The API's index and its catch-all (an unknown endpoint's one-line 404), the
    // browser's icon and the pages' assets are no endpoints a reader calls.
    let unlisted = ["/api", "/api/{*rest}", "/favicon.ico", "/assets/{name}"];
    let routed: BTreeSet<String> = router_paths().into_iter().filter(|path| !unlisted.contains(&path.as_str())).collect();
    assert!(routed.len() > 30, "the router's paths were not found: {routed:?}");
    let missing: Vec<&String> = routed.difference(&documented).collect();
    assert!(missing.is_empty(), "docs/web.md does not document {missing:?}");
    let stale: Vec<&String> = documented.difference(&routed).collect();
    assert!(stale.is_empty(), "docs/web.md documents {stale:?}, which the router does not serve");
}
