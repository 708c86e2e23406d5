//! Who a request comes from, and how much of the server one client may hold: the
//! global caps on testing-ground matches and human games keep a share free for the
//! other clients, so that one client can never take every slot.
//!
//! A client is the TCP peer's address: an IPv4 address, or an IPv6 /64 (one machine
//! commonly holds a whole /64, so counting single IPv6 addresses would give it
//! thousands of quotas). Headers such as `X-Forwarded-For` are not trusted: behind a
//! reverse proxy every visitor is the proxy, one client.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::StatusCode;
use axum::http::request::Parts;

use crate::error::ApiError;

/// One client: an IPv4 address or an IPv6 /64 prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client(IpAddr);

impl Client {
    /// The client of a peer address.
    pub fn of(ip: IpAddr) -> Client {
        match ip {
            IpAddr::V4(v4) => Client(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Client(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }

    /// Requests that did not come through [`crate::http::serve`] (a router used
    /// directly): one client for all of them.
    pub const UNKNOWN: Client = Client(IpAddr::V6(Ipv6Addr::UNSPECIFIED));
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip());
        Ok(peer.map_or(Client::UNKNOWN, Client::of))
    }
}

/// A bounded kind of thing clients start (testing-ground matches, human games, uploads):
/// at most `total` at once, and at most `per_client` of them from one client (a
/// [`Client`], or another key such as an entrant's name).
pub struct Quota<K = Client> {
    /// What is counted, singular and plural, and how they are, for the refusals
    /// ("match", "matches", "running").
    pub what: (&'static str, &'static str, &'static str),
    /// Whom the share is of, for the refusals ("client", "entrant").
    pub who: &'static str,
    pub total: usize,
    pub per_client: usize,
    held: Mutex<Held<K>>,
}

struct Held<K> {
    total: usize,
    by_client: HashMap<K, usize>,
}

/// One unit of a [`Quota`], held until dropped (when the match or game ends).
pub struct Slot<K: Eq + std::hash::Hash + Clone = Client> {
    quota: Arc<Quota<K>>,
    client: K,
}

impl<K: Eq + std::hash::Hash + Clone> Quota<K> {
    pub fn new(what: (&'static str, &'static str, &'static str), total: usize, per_client: usize) -> Arc<Quota<K>> {
        Arc::new(Quota {
            what,
            who: "client",
            total,
            per_client: per_client.min(total),
            held: Mutex::new(Held { total: 0, by_client: HashMap::new() }),
        })
    }

    /// The same quota, its share named as `who`'s ("entrant").
    pub fn of(what: (&'static str, &'static str, &'static str), who: &'static str, total: usize, per: usize) -> Arc<Quota<K>> {
        Arc::new(Quota { what, who, total, per_client: per.min(total), held: Mutex::new(Held { total: 0, by_client: HashMap::new() }) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held<K>> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes a slot for `client`, or refuses with 429 (`code` `quota`): the client's own
    /// share is used up, or the server's.
    pub fn take(self: &Arc<Self>, client: K) -> Result<Slot<K>, ApiError> {
        let (one, many, state) = self.what;
        let mut held = self.lock();
        let mine = held.by_client.get(&client).copied().unwrap_or(0);
        if mine >= self.per_client {
            let count = if mine == 1 { format!("1 {one}") } else { format!("{mine} {many}") };
            return Err(too_many(format!("you have {count} {state}, the most one {} may have at once; try again when one ends", self.who)));
        }
        if held.total >= self.total {
            return Err(too_many(format!(
                "the server is busy ({} {many} {state}, the most it allows); try again when one ends",
                held.total
            )));
        }
        held.total += 1;
        *held.by_client.entry(client.clone()).or_insert(0) += 1;
        Ok(Slot { quota: Arc::clone(self), client })
    }

    /// How many slots are held now.
    pub fn in_use(&self) -> usize {
        self.lock().total
    }
}

/// A 429 refusal with the code programs act on.
pub fn too_many(message: String) -> ApiError {
    ApiError { code: Some("quota"), ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, message) }
}

impl<K: Eq + std::hash::Hash + Clone> Drop for Slot<K> {
    fn drop(&mut self) {
        let mut held = self.quota.lock();
        held.total -= 1;
        if let Some(mine) = held.by_client.get_mut(&self.client) {
            *mine -= 1;
            if *mine == 0 {
                held.by_client.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(text: &str) -> Client {
        Client::of(text.parse().expect("an address"))
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64_and_a_mapped_ipv4_is_the_ipv4() {
        assert_eq!(client("2001:db8:1:2::1"), client("2001:db8:1:2:ffff::9"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_eq!(client("::ffff:10.0.0.1"), client("10.0.0.1"));
        assert_ne!(client("10.0.0.1"), client("10.0.0.2"));
        assert_eq!(client("2001:db8:1:2::1").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn a_client_over_its_share_is_refused_while_another_still_gets_a_slot() {
        let quota = Quota::new(("match", "matches", "running"), 3, 2);
        let (a, b) = (client("10.0.0.1"), client("10.0.0.2"));
        let first = quota.take(a).expect("a's first");
        let _second = quota.take(a).expect("a's second");
        let refused = quota.take(a).err().expect("a's third is over its share");
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.message.starts_with("you have 2 matches running"), "{}", refused.message);
        let _b = quota.take(b).expect("b still gets one");
        let busy = quota.take(client("10.0.0.3")).err().expect("the server is full");
        assert!(busy.message.starts_with("the server is busy (3 matches running"), "{}", busy.message);
        drop(first);
        assert_eq!(quota.in_use(), 2);
        let _again = quota.take(a).expect("a's slot came back");
    }
}
