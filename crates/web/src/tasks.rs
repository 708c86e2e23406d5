//! The server's background tasks (games, tournaments, their watchers, connections): every
//! one is spawned here, under one cancellation token and one tracker, so that stopping
//! the server ends them all and waits until they are gone (a cancelled game drops its
//! bots, which kills them; a cancelled tournament keeps every finished game and resumes
//! at the next start).

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The server's spawned tasks. Cheap to clone: the clones share the token and tracker.
#[derive(Clone, Default)]
pub struct Tasks {
    cancel: CancellationToken,
    tracker: TaskTracker,
}

impl Tasks {
    /// Runs `task` in the background until it ends or the server stops, whichever is
    /// first. A task spawned after the stop does not run.
    pub fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let cancel = self.cancel.clone();
        self.tracker.spawn(async move {
            tokio::select! {
                biased;
                () = cancel.cancelled() => {}
                () = task => {}
            }
        });
    }

    /// The token that says the server is stopping (for loops that end on it).
    pub fn stopping(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Tasks spawned and not yet ended.
    pub fn running(&self) -> usize {
        self.tracker.len()
    }

    /// Cancels every task and waits up to `grace` for them to end; false when some
    /// were still running at the end of it.
    pub async fn shutdown(&self, grace: Duration) -> bool {
        self.cancel.cancel();
        self.tracker.close();
        tokio::time::timeout(grace, self.tracker.wait()).await.is_ok()
    }
}
