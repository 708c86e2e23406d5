//! Text that people give and read, in one small place every crate can use: the one rule
//! for names (`name`: bot manifests, uploads, entrants, tournament configs), TOML errors
//! as one short line with the line number and the key (`config_error`), and columns that
//! line up when names hold wide characters such as CJK or emoji (`width`).
//!
//! No I/O: every function takes and returns text.

pub mod config_error;
pub mod name;
pub mod width;

pub use config_error::toml_error;
pub use name::{NameError, check_name, check_slug, check_text};
pub use width::{pad, pad_left, width};
