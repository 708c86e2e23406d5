//! Lanes: the threads a run plays its games on, one game at a time each, every lane
//! with an async runtime of its own on one thread. When there are no more lanes than
//! CPUs, each lane is pinned to a CPU of its own, and the bots it starts inherit that
//! CPU: a game's referee and its two bots then wake each other on one CPU instead of
//! across two (on this project's virtual machines a wake-up across CPUs costs tens of
//! microseconds, many times a move's own work), and two games never compete for one
//! CPU. With more lanes than CPUs nothing is pinned and the scheduler places them.

use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::runtime::{Builder, Handle};
use tokio::sync::{Semaphore, oneshot};

/// One lane: its runtime's handle, the CPU it is pinned to, and what stops its thread.
struct Lane {
    handle: Handle,
    cpu: Option<usize>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A run's lanes. Dropping them stops their threads; the games still on them are
/// dropped (their bots killed), so a run drops its lanes only after its games and the
/// processes it kept between games ([`close`](Lanes::close) waits for the threads).
pub struct Lanes {
    lanes: Vec<Lane>,
    free: Mutex<Vec<usize>>,
    permits: Semaphore,
}

impl Lanes {
    /// Starts `count` lanes (at least one); `pin` pins them, one CPU each, when the CPUs
    /// this process may use are at least as many as the lanes.
    pub fn start(count: usize, pin: bool) -> std::io::Result<Arc<Lanes>> {
        let count = count.max(1);
        let cpus = jail::affinity::allowed_cpus();
        let pinned = pin && cpus.len() >= count;
        let mut lanes = Vec::with_capacity(count);
        for index in 0..count {
            let wanted = cpus.get(index).copied().filter(|_| pinned);
            let (handle_tx, handle_rx) = std::sync::mpsc::channel();
            let (stop, stopped) = oneshot::channel::<()>();
            let thread = std::thread::Builder::new().name(format!("lane-{index}")).spawn(move || {
                // For speed only: a lane the kernel will not pin still plays, unpinned.
                let cpu = wanted.filter(|&cpu| jail::affinity::pin_this_thread(cpu).is_ok());
                let runtime = match Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => runtime,
                    Err(err) => {
                        let _ = handle_tx.send(Err(err));
                        return;
                    }
                };
                let _ = handle_tx.send(Ok((runtime.handle().clone(), cpu)));
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })?;
            let (handle, cpu) = handle_rx.recv().map_err(|_| std::io::Error::other("a lane's thread ended at its start"))??;
            lanes.push(Lane { handle, cpu, stop: Some(stop), thread: Some(thread) });
        }
        Ok(Arc::new(Lanes { free: Mutex::new((0..count).rev().collect()), permits: Semaphore::new(count), lanes }))
    }

    /// The CPU of each lane (`None` where a lane is not pinned).
    pub fn cpus(&self) -> Vec<Option<usize>> {
        self.lanes.iter().map(|lane| lane.cpu).collect()
    }

    /// Runs `work` on the first free lane, waiting for one, and returns its output; a
    /// panic in `work` is raised again here. Dropping the returned future stops `work`
    /// too (it is aborted on its lane).
    pub async fn run<F>(&self, work: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let _permit = self.permits.acquire().await.expect("the lanes' permits are never closed");
        let index = self.free.lock().expect("the free lanes' lock").pop().expect("a permit means a free lane");
        let _lane = GiveBack { lanes: self, index };
        let task = self.lanes[index].handle.spawn(work);
        let _abort = AbortOnDrop(task.abort_handle());
        match task.await {
            Ok(output) => output,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(err) => panic!("a game's task on lane {index} was cancelled while awaited: {err}"),
        }
    }

    /// Stops the lanes and waits for their threads to end (on a blocking thread).
    pub async fn close(self: Arc<Lanes>) {
        let Ok(mut lanes) = Arc::try_unwrap(self) else { return };
        let threads: Vec<_> = lanes.lanes.iter_mut().filter_map(Lane::stop).collect();
        let _ = tokio::task::spawn_blocking(move || {
            for thread in threads {
                let _ = thread.join();
            }
        })
        .await;
    }
}

impl Lane {
    /// Tells the lane's thread to stop; its thread, to be joined.
    fn stop(&mut self) -> Option<std::thread::JoinHandle<()>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.thread.take()
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        // The threads end on their own once told; not joined here, which could block an
        // async caller, but kept for `join_dropped`.
        let threads: Vec<_> = self.lanes.iter_mut().filter_map(Lane::stop).collect();
        DROPPED.lock().expect("the dropped lanes' lock").extend(threads);
    }
}

/// The threads of lanes dropped without [`Lanes::close`] (a run stopped by a signal drops
/// its games where they are): told to stop, and still dropping their games (killing the
/// bots, removing the games' folders) when the command returns.
static DROPPED: Mutex<Vec<std::thread::JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for the threads of every dropped lane to end, so that the games dropped on them
/// leave nothing behind: a command's last step before the process exits. It blocks: call
/// it off any async runtime.
pub fn join_dropped() {
    let threads = std::mem::take(&mut *DROPPED.lock().expect("the dropped lanes' lock"));
    for thread in threads {
        let _ = thread.join();
    }
}

/// Puts a lane back among the free ones when its game ends or is dropped.
struct GiveBack<'a> {
    lanes: &'a Lanes,
    index: usize,
}

impl Drop for GiveBack<'_> {
    fn drop(&mut self) {
        self.lanes.free.lock().expect("the free lanes' lock").push(self.index);
    }
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_pinned_lane_runs_on_a_cpu_of_its_own() {
        let cpus = jail::affinity::allowed_cpus();
        let lanes = Lanes::start(cpus.len(), true).unwrap();
        assert_eq!(lanes.cpus(), cpus.iter().map(|&c| Some(c)).collect::<Vec<_>>());
        // Occupy every lane at once, so that each answers from its own thread.
        let barrier = Arc::new(tokio::sync::Barrier::new(cpus.len()));
        let mut seen = Vec::new();
        let mut runs = tokio::task::JoinSet::new();
        for _ in 0..cpus.len() {
            let (lanes, barrier) = (Arc::clone(&lanes), Arc::clone(&barrier));
            runs.spawn(async move {
                lanes
                    .run(async move {
                        barrier.wait().await;
                        (jail::affinity::lane_cpu(), jail::affinity::allowed_cpus())
                    })
                    .await
            });
        }
        while let Some(joined) = runs.join_next().await {
            let (lane_cpu, affinity) = joined.unwrap();
            let cpu = lane_cpu.expect("a pinned lane knows its CPU");
            assert_eq!(affinity, vec![cpu], "the lane's thread may run on its CPU alone");
            seen.push(cpu);
        }
        seen.sort_unstable();
        assert_eq!(seen, cpus, "every CPU has one lane");
        lanes.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn more_lanes_than_cpus_are_not_pinned() {
        let cpus = jail::affinity::allowed_cpus();
        let lanes = Lanes::start(cpus.len() + 1, true).unwrap();
        assert!(lanes.cpus().iter().all(Option::is_none));
        let (cpu, affinity) = lanes.run(async { (jail::affinity::lane_cpu(), jail::affinity::allowed_cpus()) }).await;
        assert_eq!((cpu, affinity), (None, cpus));
        let unpinned = Lanes::start(1, false).unwrap();
        assert_eq!(unpinned.cpus(), vec![None]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_run_aborts_its_work_and_frees_its_lane() {
        let lanes = Lanes::start(1, false).unwrap();
        let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
        struct Tell(Option<oneshot::Sender<()>>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.0.take().map(|tx| tx.send(()));
            }
        }
        let tell = Tell(Some(dropped_tx));
        let (started_tx, started_rx) = oneshot::channel::<()>();
        let run = {
            let lanes = Arc::clone(&lanes);
            tokio::spawn(async move {
                lanes
                    .run(async move {
                        let _tell = tell;
                        let _ = started_tx.send(());
                        std::future::pending::<()>().await
                    })
                    .await
            })
        };
        // Once the work runs on its lane, drop the run.
        started_rx.await.expect("the work started on its lane");
        run.abort();
        dropped_rx.await.expect("the work on the lane was dropped");
        // The one lane is free again.
        assert_eq!(lanes.run(async { 7 }).await, 7);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[should_panic(expected = "on the lane")]
    async fn a_panic_on_a_lane_is_raised_to_the_caller() {
        let lanes = Lanes::start(1, false).unwrap();
        lanes.run(async { panic!("on the lane") }).await
    }
}
