//! The web arena: an HTTP server with a JSON API under `/api`, live updates by
//! server-sent events, and embedded pages (tournaments, game viewer, testing ground,
//! human play, submissions).

pub mod submissions;
