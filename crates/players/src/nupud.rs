//! Nupud's players: the defaults ([`Tuning`]'s): `greedy` maximises its score lead, the
//! search rungs run the tree search with the game's random playouts (no search while the
//! rules hide White's set-up, `Builtin::choose_tuned`).

use rules::nupud::Position;

use crate::Tuning;

impl Tuning for Position {}
