//! A test aid for the rule that no wait of ours blocks a runtime thread: work run on a
//! current-thread runtime beside a task that ticks every 10 ms, and the longest gap
//! between two of its ticks. Used by the jail's and the referee's tests.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs `work` on a new current-thread runtime beside a ticker; returns what it gave,
/// how long it took and the longest gap between two ticks meanwhile (a stall of the
/// runtime's one thread shows as a gap as long as the stall).
pub fn with_ticker<T, F: Future<Output = T>>(work: impl FnOnce() -> F) -> (T, Duration, Duration) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a current-thread runtime");
    runtime.block_on(async {
        let longest = Arc::new(Mutex::new(Duration::ZERO));
        let seen = Arc::clone(&longest);
        let ticker = tokio::spawn(async move {
            let mut last = Instant::now();
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                let now = Instant::now();
                let mut max = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                *max = (*max).max(now - last);
                last = now;
            }
        });
        // Let the ticker run once before the work starts.
        tokio::time::sleep(Duration::from_millis(30)).await;
        let began = Instant::now();
        let value = work().await;
        let took = began.elapsed();
        // One more beat after the work, so that a stall at its very end is seen too.
        tokio::time::sleep(Duration::from_millis(30)).await;
        ticker.abort();
        let gap = *longest.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (value, took, gap)
    })
}
