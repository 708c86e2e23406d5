//! Every bot interface as pure encoding and decoding of messages: no I/O, so each can be
//! tested from strings. The games' own text formats (Gomoku field, Pah-tum board,
//! Legions map and orders, Nupud calls, Connect Four board rows) live with their rules
//! in `rules`; this crate adds the dialogues built from them.

pub mod arbiter;
pub mod connect4_tcp;
pub mod gomocup;
pub mod gomoku_console;
pub mod names;
pub mod uci;
