//! What a command makes once for all its games: the processes kept between games (a
//! `Pool`), the sandboxes started ahead (an `Ahead` stock) and the lanes the games run on
//! (`Lanes`), ended in the one order that works, whether closed or dropped.

use std::sync::Arc;

use crate::ahead::Ahead;
use crate::lanes::Lanes;
use crate::pool::Pool;

/// The shared resources of a command's games ([`GameResources::close`] ends them).
#[derive(Default)]
pub struct GameResources {
    pool: Option<Arc<Pool>>,
    ahead: Option<Arc<Ahead>>,
    lanes: Option<Arc<Lanes>>,
}

impl GameResources {
    pub fn new(pool: Option<Arc<Pool>>, ahead: Option<Arc<Ahead>>, lanes: Option<Arc<Lanes>>) -> GameResources {
        GameResources { pool, ahead, lanes }
    }

    /// Where a game's processes wait for its next game (`GameSetup::pool`).
    pub fn pool(&self) -> Option<Arc<Pool>> {
        self.pool.clone()
    }

    /// Where a game's next sandboxes are started ahead (`GameSetup::ahead`).
    pub fn ahead(&self) -> Option<Arc<Ahead>> {
        self.ahead.clone()
    }

    /// The lanes the games run on; `None`: the caller's runtime.
    pub fn lanes(&self) -> Option<&Arc<Lanes>> {
        self.lanes.as_ref()
    }

    /// Ends them, waiting for each: the kept processes, the stocked sandboxes, and the
    /// lanes last (the processes above were started on the lanes and are watched there).
    pub async fn close(mut self) {
        if let Some(pool) = self.pool.take() {
            pool.close().await;
        }
        if let Some(ahead) = self.ahead.take() {
            ahead.close().await;
        }
        if let Some(lanes) = self.lanes.take() {
            lanes.close().await;
        }
    }
}

impl Drop for GameResources {
    /// Not closed (a command returned early with an error, a run was dropped): the same
    /// order without waiting. The kept processes and the stocked sandboxes die with their
    /// handles (kill on drop), then the lanes are told to stop (`lanes::join_dropped`
    /// waits for their threads).
    fn drop(&mut self) {
        drop(self.pool.take());
        drop(self.ahead.take());
        drop(self.lanes.take());
    }
}
