//! `arbiter worker --server URL --token TOKEN`: a worker that holds no database, only
//! its own token: it leases games from `arbiter serve` over HTTP (the server carries out
//! the lease, renewal and fenced store on its database, `web/src/work.rs`), fetches the
//! bots' files by content hash (checked on arrival, cached by hash) and plays the games
//! with the same lanes as a database worker (`arena::shared::work_remote`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arena::ArenaError;
use arena::shared::{Claim, Queue, Reported};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::{Value, json};
use tournament::{Entrant, EntrantId};

/// The longest a call to the server may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The most of an answer read: a bot's file is at most 64 MiB (`bundles`).
const MAX_ANSWER: usize = 65 * 1024 * 1024;

/// The code the server gives a refused worker token (`web::work::TOKEN_REFUSED`).
const TOKEN_REFUSED: &str = "worker-token-refused";

/// The line a worker stops with when the server refuses its token.
pub const REFUSED_LINE: &str = "the server refused this worker's token (revoked or unknown)";

/// One server, as a worker calls it.
#[derive(Clone)]
pub struct Server {
    client: Client<HttpConnector, Full<Bytes>>,
    /// `http://host:port`, without a trailing `/`.
    base: String,
    token: String,
    /// This machine's name, sent with each call (the organiser's page shows it).
    host: String,
}

impl Server {
    /// A server at `url` (`http://host:port`); HTTPS is for a proxy in front of it
    /// (`docs/distributed.md`).
    pub fn new(url: &str, token: &str) -> anyhow::Result<Server> {
        let base = url.trim_end_matches('/');
        if !base.starts_with("http://") {
            anyhow::bail!("--server {url}: give the server's address as http://HOST:PORT (a worker speaks plain HTTP; put TLS in a proxy)");
        }
        if token.trim().is_empty() {
            anyhow::bail!("--token: give the worker's token (`arbiter workers add NAME` makes one)");
        }
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(Duration::from_secs(10)));
        let client = Client::builder(TokioExecutor::new()).pool_idle_timeout(Duration::from_secs(15)).build(connector);
        Ok(Server { client, base: base.to_string(), token: token.trim().to_string(), host: store::WorkerInfo::here("", "").host })
    }

    /// `http://host:port`, as messages name the server.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Calls `path` (with a JSON body when `body` is given) and returns the answer's bytes;
    /// a refusal is the server's line, transient when trying again may work.
    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Bytes, ArenaError> {
        let url = format!("{}{path}", self.base);
        let content = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        let request = Request::builder()
            .method(method)
            .uri(&url)
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .header("x-arbiter-host", &self.host)
            .body(Full::new(content))
            .map_err(|err| ArenaError::Remote { message: format!("{url}: {err}"), transient: false })?;
        let unreachable =
            |what: String| ArenaError::Remote { message: format!("the server {} cannot be reached: {what}", self.base), transient: true };
        let answer = async {
            let response = self.client.request(request).await.map_err(|err| unreachable(err.to_string()))?;
            let status = response.status();
            let bytes = Limited::new(response.into_body(), MAX_ANSWER)
                .collect()
                .await
                .map_err(|err| unreachable(format!("its answer was cut off: {err}")))?
                .to_bytes();
            Ok::<_, ArenaError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(CALL_TIMEOUT, answer)
            .await
            .map_err(|_| unreachable(format!("no answer in {} s", CALL_TIMEOUT.as_secs())))??;
        if status.is_success() {
            return Ok(bytes);
        }
        let said: Option<Value> = serde_json::from_slice(&bytes).ok();
        let code = said.as_ref().and_then(|v| v["code"].as_str());
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
            && (code == Some(TOKEN_REFUSED) || code == Some("token-required"))
        {
            return Err(ArenaError::Remote { message: REFUSED_LINE.to_string(), transient: false });
        }
        let line = said
            .as_ref()
            .and_then(|v| v["error"].as_str())
            .map_or_else(|| String::from_utf8_lossy(&bytes).chars().take(200).collect(), str::to_string);
        // The server busy, restarting behind a proxy, or at its connection cap.
        let transient = matches!(
            status,
            StatusCode::SERVICE_UNAVAILABLE | StatusCode::BAD_GATEWAY | StatusCode::GATEWAY_TIMEOUT | StatusCode::TOO_MANY_REQUESTS
        );
        Err(ArenaError::Remote { message: format!("the server refused {path}: {line} ({status})"), transient })
    }

    async fn json<T: serde::de::DeserializeOwned>(&self, method: Method, path: &str, body: Option<&Value>) -> Result<T, ArenaError> {
        let bytes = self.call(method, path, body).await?;
        serde_json::from_slice(&bytes)
            .map_err(|err| ArenaError::Remote { message: format!("the server's answer to {path} does not read: {err}"), transient: false })
    }
}

/// The tournaments the server offers its workers.
#[derive(Deserialize)]
struct Open {
    tournaments: Vec<OpenTournament>,
}

#[derive(Deserialize)]
struct OpenTournament {
    id: String,
    name: String,
}

/// The tournament as the server describes it to a worker.
#[derive(Deserialize)]
struct Described {
    name: String,
    config: String,
    entrants: Vec<DescribedEntrant>,
    config_files: Option<String>,
}

#[derive(Deserialize)]
struct DescribedEntrant {
    id: EntrantId,
    name: String,
    bot: String,
    files: Option<String>,
}

/// Which tournament to play: `wanted`, else the only one the server offers.
pub async fn choose(server: &Server, wanted: Option<&str>) -> Result<String, ArenaError> {
    let open: Open = server.json(Method::GET, "/api/work", None).await?;
    let refuse = |message: String| ArenaError::Remote { message, transient: false };
    match wanted {
        Some(id) if open.tournaments.iter().any(|t| t.id == id) => Ok(id.to_string()),
        Some(id) => Err(refuse(format!("the server offers its workers no tournament {id:?} (it offers: {})", names(&open)))),
        None => match open.tournaments.as_slice() {
            [only] => Ok(only.id.clone()),
            [] => Err(refuse("the server offers its workers no tournament yet (record one with `arbiter tournament CONFIG --db FILE|URL --for-workers` and serve it with `arbiter serve --db`)".to_string())),
            _ => Err(refuse(format!("the server offers several tournaments: choose one with --tournament ({})", names(&open)))),
        },
    }
}

fn names(open: &Open) -> String {
    open.tournaments.iter().map(|t| format!("{} ({})", t.id, t.name)).collect::<Vec<_>>().join(", ")
}

/// Joins tournament `id` (the server records this process as one of the token's
/// workers) and assembles the tournament: its config, and its bots fetched by hash into
/// `cache`.
pub async fn join(
    server: &Server,
    id: &str,
    info: &store::WorkerInfo,
    cache: &Path,
) -> Result<(String, arena::shared::Tournament), ArenaError> {
    let body = json!({ "host": info.host, "pid": info.pid, "version": info.version, "sandbox": info.sandbox });
    let joined: Value = server.json(Method::POST, &format!("/api/work/{id}/join"), Some(&body)).await?;
    let worker = joined["worker"].as_str().unwrap_or_default().to_string();
    let described: Described = server.json(Method::GET, &format!("/api/work/{id}/tournament"), None).await?;
    let config =
        tournament::TournamentConfig::parse_without_entrants(&described.config, &described.name).map_err(ArenaError::StoredConfig)?;
    let mut all = Vec::new();
    let mut specs = Vec::new();
    for described in &described.entrants {
        let entrant = Entrant { id: described.id, name: described.name.clone(), bot: described.bot.clone(), submitted: None };
        let spec = match &described.files {
            Some(hash) => {
                let what = format!("bot {}", entrant.name);
                let cached = cache.join("bots").join(hash).is_dir();
                let (listing, contents) = fetch_bundle(server, id, hash, &what, cached).await?;
                arena::shared::unpacked_bot(&entrant, listing, contents, config.game, cache).await?
            }
            None => arena::shared::built_in_bot(&entrant, config.game)?,
        };
        all.push(entrant);
        specs.push(spec);
    }
    let mut files = HashMap::new();
    if let Some(hash) = &described.config_files {
        let (listing, contents) = fetch_bundle(server, id, hash, "the config", false).await?;
        for file in &listing.files {
            let text = String::from_utf8(contents[&file.sha256].clone()).map_err(|_| ArenaError::NotText(file.path.clone()))?;
            files.insert(PathBuf::from(&file.path), text);
        }
    }
    // No folder of the server's: every file the config reads came by hash.
    let config_dir = cache.join("no-server-paths");
    let t = arena::shared::Tournament::assemble(&described.config, &described.name, all, specs, files, config_dir)?;
    Ok((worker, t))
}

/// A bundle by its hash: its list checked ([`arena::bundles::Listing::parse`]) and found
/// to hash to `hash`, and its contents (unless `cached`), each checked against its own.
async fn fetch_bundle(
    server: &Server,
    id: &str,
    hash: &str,
    what: &str,
    cached: bool,
) -> Result<(arena::bundles::Listing, HashMap<String, Vec<u8>>), ArenaError> {
    let refused = |message: String| ArenaError::StoredFiles { what: what.to_string(), db: server.base.clone(), message };
    if hash.len() != 64 || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(refused(format!("{hash:?} is not a SHA-256")));
    }
    let json = server.call(Method::GET, &format!("/api/work/{id}/bundles/{hash}"), None).await?;
    let json = String::from_utf8(json.to_vec()).map_err(|_| refused("their list is not text".to_string()))?;
    let listing = arena::bundles::Listing::parse(&json).map_err(refused)?;
    if listing.hash() != hash {
        return Err(refused("their list does not match its hash".to_string()));
    }
    let mut contents = HashMap::new();
    if cached {
        return Ok((listing, contents));
    }
    for file in &listing.files {
        if !contents.contains_key(&file.sha256) {
            let content = server.call(Method::GET, &format!("/api/work/{id}/blobs/{}", file.sha256), None).await?;
            contents.insert(file.sha256.clone(), content.to_vec());
        }
    }
    arena::bundles::check_contents(&listing, &contents).map_err(refused)?;
    Ok((listing, contents))
}

/// The server as a worker's queue: each call is the same call on the server's database.
pub struct HttpQueue {
    pub server: Server,
    pub tournament: String,
    pub worker: String,
    /// `scripts/bench-fleet` only: each claim's time (µs, one a line) is appended here.
    pub timings: Option<tokio::sync::Mutex<tokio::fs::File>>,
}

impl HttpQueue {
    fn path(&self, rest: &str) -> String {
        format!("/api/work/{}/{rest}", self.tournament)
    }
}

#[derive(Deserialize)]
struct Claimed {
    games: Vec<web::work::LeaseJson>,
    state: String,
}

impl Queue for HttpQueue {
    async fn claim(&self, length: Duration) -> Result<Claim, ArenaError> {
        let body = json!({ "worker": self.worker, "lease_seconds": length.as_secs_f64(), "count": 1 });
        let asked = std::time::Instant::now();
        let claimed: Claimed = self.server.json(Method::POST, &self.path("claim"), Some(&body)).await?;
        if let Some(file) = &self.timings {
            use tokio::io::AsyncWriteExt;
            let line = format!("{}\n", asked.elapsed().as_micros());
            // A figure lost is no failure of the worker's.
            let _ = file.lock().await.write_all(line.as_bytes()).await;
        }
        Ok(match claimed.games.into_iter().next() {
            Some(game) => Claim::Game(store::Lease { spec: game.spec, attempt: game.attempt, worker: self.worker.clone() }),
            None if claimed.state == "decided" => Claim::Decided,
            None => Claim::Wait,
        })
    }

    async fn renew(&self, lease: &store::Lease, length: Duration) -> Result<bool, ArenaError> {
        let body = json!({ "worker": self.worker, "lease_seconds": length.as_secs_f64(), "leases": [{ "key": lease.spec.key, "attempt": lease.attempt }] });
        let answer: Value = self.server.json(Method::POST, &self.path("renew"), Some(&body)).await?;
        Ok(answer["renewed"][0].as_bool() == Some(true))
    }

    async fn give_back(&self, lease: &store::Lease) -> Result<(), ArenaError> {
        let body = json!({ "worker": self.worker, "leases": [{ "key": lease.spec.key, "attempt": lease.attempt }] });
        self.server.call(Method::POST, &self.path("give-back"), Some(&body)).await.map(|_| ())
    }

    async fn finish(
        &self,
        lease: &store::Lease,
        record: &referee::GameRecord,
        _before_commit: impl Future<Output = ()> + Send,
    ) -> Result<Reported, ArenaError> {
        let body = json!({ "worker": self.worker, "results": [{ "key": lease.spec.key, "attempt": lease.attempt, "record": record }] });
        let answer: Value = self.server.json(Method::POST, &self.path("results"), Some(&body)).await?;
        let result = &answer["results"][0];
        Ok(match result["status"].as_str() {
            Some("stored") => Reported::Stored,
            Some("refused") => Reported::Refused(result["reason"].as_str().unwrap_or("no reason given").to_string()),
            // `stale`, or `not-yours`: the lease is no longer this worker's.
            _ => Reported::Stale,
        })
    }

    async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, ArenaError> {
        let answer: Value = self.server.json(Method::GET, &self.path(&format!("stages/{stage}/fingerprints")), None).await?;
        serde_json::from_value(answer["fingerprints"].clone())
            .map_err(|err| ArenaError::Remote { message: format!("the server's fingerprints do not read: {err}"), transient: false })
    }
}
