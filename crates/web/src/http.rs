//! The server's front door: the accept loop with its connection caps (overall and per
//! client) and timeouts, the Host allow-list against DNS rebinding, the security headers
//! on every response, and JSON for every refusal the router makes itself (an unknown
//! route, a wrong method, a body too large). `docs/web.md` gives the figures and why.
//!
//! Descriptors: every connection costs one, and the tournament runner in the same
//! process needs its own for bots and databases (a game must never be lost because
//! clients took them all), so connections are capped well below the process's limit,
//! which [`raise_descriptor_limit`] lifts to the hard limit at start.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;
use tower_http::set_header::response::SetMultipleResponseHeadersLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::error::ApiError;
use crate::quota::{Client, Quota};
use crate::tasks::Tasks;

/// How much of the server connections may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once, over all clients. Beyond it new connections wait in the
    /// kernel's queue (costing no descriptor) until one closes.
    pub max_connections: usize,
    /// Connections open at once from one client ([`Client`]: an IPv4 address or an IPv6
    /// /64). Beyond it a new connection is answered 429 at once and closed, so one client
    /// cannot fill the server.
    pub max_connections_per_client: usize,
    /// How long a client may take to send a request's headers, from the moment the
    /// server starts waiting for them: a new connection, or a kept-alive one between
    /// requests (so this is also the idle timeout).
    pub header_timeout: Duration,
    /// The longest pause while a request's body is received.
    pub body_timeout: Duration,
}

/// The most connections the server holds, whatever the descriptor limit.
const MAX_CONNECTIONS: usize = 1024;

impl Limits {
    /// The limits for a process allowed `descriptors` open files: a quarter of them for
    /// connections (at most 1024), a quarter of those for one client.
    pub fn for_descriptors(descriptors: u64) -> Limits {
        let max_connections = usize::try_from(descriptors / 4).unwrap_or(usize::MAX).clamp(32, MAX_CONNECTIONS);
        Limits {
            max_connections,
            max_connections_per_client: (max_connections / 4).max(8),
            header_timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(30),
        }
    }
}

impl Default for Limits {
    /// The limits for this process's descriptor limit as it is now.
    fn default() -> Limits {
        Limits::for_descriptors(descriptor_limit())
    }
}

/// The soft limit on open files of this process.
pub fn descriptor_limit() -> u64 {
    use rustix::process::{Resource, getrlimit};
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

/// Raises this process's soft limit on open files to its hard limit (no privilege
/// needed); the limit afterwards.
pub fn raise_descriptor_limit() -> u64 {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // An unlimited hard limit cannot be the soft one (the kernel caps open files at
    // `fs.nr_open`); a million is the usual `nr_open`.
    let target = limit.maximum.unwrap_or(1 << 20);
    if limit.current.is_some_and(|current| current < target) {
        let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(target), maximum: limit.maximum });
    }
    descriptor_limit()
}

/// Serves `router` on `listener` within `limits` until the server stops (`tasks`
/// cancelled); each connection is one of `tasks`.
pub async fn serve(router: Router, listener: TcpListener, limits: Limits, tasks: &Tasks) -> std::io::Result<()> {
    let stopping = tasks.stopping();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let per_client = Quota::new(("connection", "connections", "open"), usize::MAX, limits.max_connections_per_client);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        // Headers beyond 64 KiB are refused (hyper answers 431): a connection's buffer
        // stays small, so many of them cannot fill the memory.
        .max_buf_size(64 * 1024);
    loop {
        let slot = tokio::select! {
            () = stopping.cancelled() => return Ok(()),
            slot = Arc::clone(&slots).acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let accepted = tokio::select! {
            () = stopping.cancelled() => return Ok(()),
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of descriptors (the runner's, since connections are capped) or a
                // connection reset before it was accepted: wait a little and go on.
                if matches!(err.raw_os_error(), Some(23 | 24)) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                continue;
            }
        };
        let client = Client::of(peer.ip());
        let held = match per_client.take(client) {
            Ok(held) => held,
            Err(refusal) => {
                refuse(&stream, &refusal);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request)
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tasks.spawn(async move {
            // A connection's end is the client's business (closed, timed out, malformed).
            let _ = connection.await;
            drop((slot, held));
        });
    }
}

/// Answers a connection refused before any request was read: the refusal as JSON, sent
/// without waiting (it fits in the socket's buffer, else the connection just closes).
fn refuse(stream: &TcpStream, refusal: &ApiError) {
    let body = serde_json::json!({ "error": refusal.message }).to_string();
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{}\r\n",
        refusal.status.as_u16(),
        refusal.status.canonical_reason().unwrap_or(""),
        body.len(),
        security_headers().iter().map(|(name, value)| format!("{name}: {}\r\n", value.to_str().unwrap_or(""))).collect::<String>(),
    );
    let _ = stream.try_write(format!("{head}{body}").as_bytes());
}

/// The security headers of every response (the pages' Content-Security-Policy lets in
/// their own inline scripts by hash and nothing from elsewhere).
fn security_headers() -> [(HeaderName, HeaderValue); 5] {
    [
        (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(crate::pages::content_security_policy())),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        (HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin")),
    ]
}

/// The Host names the server answers to: `localhost`, any IP address (a DNS rebinding
/// attack needs a name the attacker controls), and the names given.
#[derive(Clone, Debug)]
pub struct Hosts {
    names: Vec<String>,
}

impl Hosts {
    pub fn new(names: &[String]) -> Hosts {
        let mut names: Vec<String> = names.iter().map(|n| normalise(n)).collect();
        names.push("localhost".to_string());
        Hosts { names }
    }

    /// Whether a `Host` header (a name or address, with or without a port) is one of
    /// this server's.
    pub fn allows(&self, host: &str) -> bool {
        let name = normalise(strip_port(host));
        let address = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(&name);
        address.parse::<IpAddr>().is_ok() || self.names.contains(&name)
    }
}

fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        // `[::1]:8080`: the address is up to the bracket.
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn normalise(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

async fn check_host(State(hosts): State<Arc<Hosts>>, request: Request, next: Next) -> Response {
    if request.headers().get_all(header::HOST).iter().count() > 1 {
        return ApiError::bad_request("the request has more than one Host header").into_response();
    }
    // The Host header, and the host of an absolute-form target (`GET http://name/`),
    // which a server must prefer: both must be ours.
    let header = request.headers().get(header::HOST).map(|h| h.to_str().unwrap_or("?"));
    let names: Vec<&str> = header.into_iter().chain(request.uri().host()).collect();
    match names.iter().find(|name| !hosts.allows(name)) {
        None if !names.is_empty() => next.run(request).await,
        Some(host) => ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this server does not answer to the host name {:?} (the organiser can add it: `arbiter serve --public-host NAME`)",
                host.chars().take(100).collect::<String>()
            ),
        )
        .into_response(),
        None => ApiError::bad_request("the request has no Host header").into_response(),
    }
}

/// Turns a refusal that is not JSON yet (axum's own: an unknown route, a wrong method, a
/// body too large or cut off, a malformed query) into `{"error": ...}`, keeping its
/// status and headers.
async fn json_refusals(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().chars().take(200).collect::<String>());
    let response = next.run(request).await;
    let status = response.status();
    let kind = response.headers().get(header::CONTENT_TYPE).map(|v| v.as_bytes().to_vec()).unwrap_or_default();
    // JSON already, or the 404 page of an address that is no page.
    let is_json = kind.starts_with(b"application/json") || kind.starts_with(b"text/html");
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024).await.map(|b| String::from_utf8_lossy(&b).trim().to_string()).unwrap_or_default();
    let message = match status {
        StatusCode::NOT_FOUND if text.is_empty() => format!("no page or API endpoint {path} (GET /api lists the endpoints)"),
        // The router adds the `Allow` header after this layer.
        StatusCode::METHOD_NOT_ALLOWED => format!("{method} is not allowed on {path} (the Allow header says what is)"),
        _ if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("refused").to_lowercase(),
    };
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut refusal = ApiError::new(status, message).into_response();
    for (name, value) in parts.headers.iter() {
        refusal.headers_mut().append(name.clone(), value.clone());
    }
    refusal
}

/// An unknown address: a page for a person's browser (a GET outside `/api` and
/// `/assets` that accepts HTML), else the API's refusal.
async fn not_found(method: Method, headers: axum::http::HeaderMap, uri: axum::http::Uri) -> Response {
    let path: String = uri.path().chars().take(200).collect();
    let wants_page = method == Method::GET
        && !path.starts_with("/api")
        && !path.starts_with("/assets")
        && headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"));
    if wants_page {
        return (StatusCode::NOT_FOUND, axum::response::Html(crate::pages::NOT_FOUND)).into_response();
    }
    ApiError::not_found(format!("no page or API endpoint {method} {path} (GET /api lists the endpoints)")).into_response()
}

/// The router behind the front door's layers: the Host check, the body timeout, JSON
/// refusals and the security headers, on every route and on the fallback.
pub fn protect(router: Router, hosts: &[String], limits: &Limits) -> Router {
    router
        .fallback(not_found)
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(middleware::from_fn_with_state(Arc::new(Hosts::new(hosts)), check_host))
        .layer(middleware::from_fn(json_refusals))
        .layer(SetMultipleResponseHeadersLayer::overriding(security_headers().into_iter().map(Into::into).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_allow_list_takes_addresses_localhost_and_the_names_given() {
        let hosts = Hosts::new(&["Arena.Example.org".to_string()]);
        for ok in [
            "127.0.0.1:8080",
            "localhost",
            "LOCALHOST:80",
            "[::1]:8080",
            "[::1]",
            "10.1.2.3",
            "arena.example.org.",
            "arena.example.org:443",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "arena.example.org.evil.example",
            "localhost.evil.example",
            "",
            "[::1",
            "127.0.0.1.nip.io",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
    }

    #[test]
    fn connections_get_a_quarter_of_the_descriptors_and_one_client_a_quarter_of_those() {
        assert_eq!(Limits::for_descriptors(1024).max_connections, 256);
        assert_eq!(Limits::for_descriptors(1024).max_connections_per_client, 64);
        assert_eq!(Limits::for_descriptors(1 << 20).max_connections, 1024);
        assert_eq!(Limits::for_descriptors(1 << 20).max_connections_per_client, 256);
        assert_eq!(Limits::for_descriptors(64).max_connections, 32);
    }
}
