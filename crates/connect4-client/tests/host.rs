//! The Rust example player against itself through the host's game loop
//! (`referee::drivers::connect4_tcp`, what `arbiter host connect4` runs), on 7 × 6 and
//! 20 × 20.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use referee::Termination;
use referee::drivers::connect4_tcp::{Remote, play_remote_game};
use rules::Game;
use rules::connect4::Position;
use tokio::net::TcpListener;

fn client(addr: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_connect4-random")).env("ARBITER_ADDR", addr).stderr(Stdio::null()).spawn().expect("the example starts")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_plays_pairs_of_games_on_one_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut children = [client(&addr), client(&addr)];
    let limit = Duration::from_secs(10);
    let mut a = Remote::greet(listener.accept().await.unwrap().0, limit).await.expect("first client greets");
    let mut b = Remote::greet(listener.accept().await.unwrap().0, limit).await.expect("second client greets");
    assert_eq!((a.name.as_str(), b.name.as_str()), ("random-rs", "random-rs"));
    for (width, height) in [(7, 6), (7, 6), (20, 20)] {
        let start = Position::empty(width, height).unwrap();
        for first_is_a in [true, false] {
            let remotes = if first_is_a { [&mut a, &mut b] } else { [&mut b, &mut a] };
            let game = play_remote_game(remotes, &start, limit).await;
            assert_eq!(game.termination, Termination::Rules, "{width}x{height}");
            assert!(game.moves.len() >= 7, "{:?}", game.moves);
            let mut replay = start.clone();
            for text in &game.moves {
                let mv = replay.parse_move(text).unwrap();
                replay.play(&mv).unwrap();
            }
            assert_eq!(replay.outcome().map(|o| o.winner), Some(game.outcome.winner));
        }
    }
    a.bye(limit).await;
    b.bye(limit).await;
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
}
