//! Games the server starts itself: the testing ground (two bots, one game or a short
//! match, watched live) and human play (a person in the browser against a bot, moves
//! checked before they are sent so that a refused click gets its reason).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::SeedableRng;
use referee::{BotSpec, GameSetup, Limits};
use rules::{AnyPosition, GameKind, Options};
use serde::{Deserialize, Serialize};

use crate::App;
use crate::error::{ApiError, ApiResult};
use crate::live::{HumanSeat, LiveGame, Origin};
use crate::quota::Client;

/// Most testing-ground matches played at once (each plays one game at a time).
pub const MAX_MATCHES: usize = 4;
/// Most testing-ground matches one client plays at once (half: the rest stay free for
/// the others).
pub const MAX_MATCHES_PER_CLIENT: usize = 2;
/// Most human games open at once.
pub const MAX_HUMAN_GAMES: usize = 32;
/// Most human games one client has open at once.
pub const MAX_HUMAN_GAMES_PER_CLIENT: usize = 4;
/// Most games in one testing-ground match.
pub const MAX_MATCH_GAMES: usize = 20;
/// How long a person may think over one move before the game is lost on time.
pub const HUMAN_MOVE_TIME: Duration = Duration::from_secs(15 * 60);

/// A testing-ground request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestRequest {
    pub game: String,
    #[serde(default)]
    pub options: Options,
    /// The first player (moves first in the first game), then the second: `random`,
    /// `greedy`, `medium`, `strong`, `perfect` (any built-in player), or the name of a registered bot of this game.
    pub bots: [String; 2],
    /// Games in the match, sides swapped after each game (default 1).
    #[serde(default)]
    pub games: Option<usize>,
    /// Seed of the start positions (default: from the clock).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A human-play request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    pub game: String,
    #[serde(default)]
    pub options: Options,
    /// The opponent: a built-in player (`random` ... `strong`), or a registered bot of this game.
    pub bot: String,
    /// The person's side: 0 moves first (default), 1 second.
    #[serde(default)]
    pub side: usize,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// What a started match or game answers.
#[derive(Debug, Serialize)]
pub struct Started {
    /// The games, in the order they are played.
    pub games: Vec<String>,
    /// For human play: the secret that authorises the person's moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// A move from the person.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    pub text: String,
    pub secret: String,
    /// Whether the move is written as a person types it, as the move list writes moves
    /// (Connect Four's columns from 1), rather than in the notation (a click sends the
    /// cell's name, which is the notation).
    #[serde(default)]
    pub typed: bool,
}

/// Reads a game name, or says which exist.
pub fn parse_game(name: &str) -> ApiResult<GameKind> {
    GameKind::from_name(name).map_err(|_| {
        let known: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        ApiError::bad_request(format!("unknown game {name:?} (games: {})", known.join(", ")))
    })
}

/// Checks the options against the game and makes a start position from the seed.
pub fn start_position(kind: GameKind, options: &Options, seed: u64) -> ApiResult<AnyPosition> {
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    let start = kind.random_start(options, &mut rng).map_err(|err| ApiError::bad_request(format!("options for {kind}: {err}")))?;
    kind.new_position(options, start.as_deref()).map_err(|err| ApiError::bad_request(format!("options for {kind}: {err}")))
}

/// A bot named in a request: a built-in or a registered bot of the game.
pub fn resolve_bot(app: &App, kind: GameKind, options: &Options, name: &str) -> ApiResult<BotSpec> {
    if players::Builtin::is_builtin_name(name) {
        let builtin = players::Builtin::parse(name).map_err(|err| ApiError::bad_request(err.to_string()))?;
        builtin.check_plays(kind, options).map_err(|err| ApiError::bad_request(err.to_string()))?;
        return Ok(BotSpec::Builtin(builtin));
    }
    let Some(folder) = app.registered_bot(kind, name) else {
        return Err(ApiError::bad_request(format!(
            "unknown bot {name:?} for {kind} ({}, or a registered bot: see /api/bots?game={kind})",
            players::Builtin::names()
        )));
    };
    BotSpec::from_arg(&folder.to_string_lossy()).map_err(|err| ApiError::internal(format!("registered bot {name}: {err}")))
}

/// A side's limits: the game's (`base`), then the bot's manifest; a person gets a long
/// move time instead.
fn side_limits(app: &App, base: Limits, bot: &BotSpec) -> Limits {
    let mut limits = base;
    match bot {
        BotSpec::Program(program) => limits = limits.with(&program.manifest.limits),
        BotSpec::Remote(_) => limits = Limits { move_time: Some(HUMAN_MOVE_TIME), game_time: None, game_cpu: None, ..limits },
        _ => {}
    }
    limits.sandboxed = app.sandboxed();
    limits
}

fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(crate::live::now_us)
}

/// Starts a testing-ground match for `client`; its games are played one after the
/// other.
pub fn start_match(app: &Arc<App>, client: Client, req: TestRequest) -> ApiResult<Started> {
    let kind = parse_game(&req.game)?;
    let count = req.games.unwrap_or(1);
    if count == 0 || count > MAX_MATCH_GAMES {
        return Err(ApiError::bad_request(format!("games must be 1 to {MAX_MATCH_GAMES}, not {count}")));
    }
    let seed = seed_or_clock(req.seed);
    // Every start is made (and the options checked) before anything is created.
    let starts: Vec<AnyPosition> =
        (0..count).map(|n| start_position(kind, &req.options, seed.wrapping_add((n / 2) as u64))).collect::<ApiResult<_>>()?;
    let bots = [resolve_bot(app, kind, &req.options, &req.bots[0])?, resolve_bot(app, kind, &req.options, &req.bots[1])?];
    let names = [req.bots[0].clone(), req.bots[1].clone()];
    let slot = app.matches.take(client)?;
    let match_id = format!("m{}", app.registry.new_id());
    let ids: Vec<String> = (0..count).map(|_| app.registry.new_id()).collect();
    let mut games = Vec::new();
    for (n, start) in starts.into_iter().enumerate() {
        let swap = n % 2 == 1;
        let seat_names = if swap { [names[1].clone(), names[0].clone()] } else { names.clone() };
        let origin = Origin::Test { r#match: match_id.clone(), number: n + 1, of: count, games: ids.clone() };
        let game = Arc::new(LiveGame::new(ids[n].clone(), seat_names, req.options.clone(), start, origin, None));
        app.registry.insert(Arc::clone(&game));
        games.push((game, swap));
    }
    let app = Arc::clone(app);
    app.tasks.clone().spawn(async move {
        // A bot that can play game after game keeps its process through the match.
        let pool = referee::pool::Pool::new(referee::pool::Pool::size_for(2, 1));
        for (n, (game, swap)) in games.into_iter().enumerate() {
            let seats = if swap { [&bots[1], &bots[0]] } else { [&bots[0], &bots[1]] };
            play_live(&app, &game, seats, seed.wrapping_add(n as u64), Some(&pool)).await;
        }
        pool.close().await;
        drop(slot);
    });
    Ok(Started { games: ids, secret: None })
}

/// Starts a game between the person (`client`) and a bot.
pub fn start_human(app: &Arc<App>, client: Client, req: PlayRequest) -> ApiResult<Started> {
    let kind = parse_game(&req.game)?;
    if req.side > 1 {
        return Err(ApiError::bad_request(format!("side must be 0 (move first) or 1, not {}", req.side)));
    }
    let seed = seed_or_clock(req.seed);
    let start = start_position(kind, &req.options, seed)?;
    let bot = resolve_bot(app, kind, &req.options, &req.bot)?;
    let slot = app.human_games.take(client)?;
    let (remote, moves) = referee::human::Remote::new("you");
    let secret = crate::auth::random_token();
    let human = HumanSeat { side: req.side, secret: secret.clone(), moves, sent_at: Mutex::new(None) };
    let mut names = [req.bot.clone(), req.bot.clone()];
    names[req.side] = "you".to_string();
    let id = app.registry.new_id();
    let game = Arc::new(LiveGame::new(id.clone(), names, req.options.clone(), start, Origin::Human, Some(human)));
    app.registry.insert(Arc::clone(&game));
    let app = Arc::clone(app);
    let person = BotSpec::Remote(remote);
    app.tasks.clone().spawn(async move {
        let seats = if req.side == 0 { [&person, &bot] } else { [&bot, &person] };
        play_live(&app, &game, seats, seed, None).await;
        drop(slot);
    });
    Ok(Started { games: vec![id], secret: Some(secret) })
}

/// Plays one game, showing every move live, and keeps its record on disk; the record,
/// unless the referee failed.
pub(crate) async fn play_live(
    app: &Arc<App>,
    game: &Arc<LiveGame>,
    bots: [&BotSpec; 2],
    seed: u64,
    pool: Option<&Arc<referee::pool::Pool>>,
) -> Option<referee::GameRecord> {
    let start = game.position();
    let mut setup = GameSetup::new(start.clone(), game.options.clone(), seed);
    setup.pool = pool.cloned();
    setup.limits = [side_limits(app, setup.limits[0], bots[0]), side_limits(app, setup.limits[1], bots[1])];
    game.start();
    let watched = Arc::clone(game);
    let mut record = match referee::play_game(&setup, bots, move |pos, turn| watched.turn(pos, turn)).await {
        Ok(record) => record,
        Err(err) => {
            // Our own failure, no side's: there is no result to show or keep.
            tracing::error!("game {} was not played: {err}", game.id);
            app.registry.remove(&game.id);
            return None;
        }
    };
    record.players[0].name = game.names[0].clone();
    record.players[1].name = game.names[1].clone();
    let kept = app.registry.save_record(&game.id, &record, &game.origin).await;
    game.finish(&record);
    match kept {
        // Kept on disk: the memory copy goes once the pages following it had the end.
        Ok(()) => {
            let registry = Arc::clone(&app.registry);
            let id = game.id.clone();
            app.tasks.spawn(async move {
                tokio::time::sleep(crate::tournaments::LINGER).await;
                registry.remove(&id);
            });
        }
        Err(err) => tracing::error!("cannot keep game {} on disk (it stays in memory): {err}", game.id),
    }
    Some(record)
}

/// A person's move: checked against the position, then sent to the referee.
pub fn human_move(app: &App, id: &str, req: MoveRequest) -> ApiResult<String> {
    let game = app.registry.get(id).ok_or_else(|| ApiError::not_found(format!("no game {id:?} is being played")))?;
    let Some(seat) = &game.human else {
        return Err(ApiError::conflict("no person plays in this game"));
    };
    if !crate::auth::same(&req.secret, &seat.secret) {
        return Err(ApiError::new(axum::http::StatusCode::FORBIDDEN, "this is not your game (wrong secret)"));
    }
    if game.finished() {
        return Err(ApiError::conflict("the game is over"));
    }
    let (pos, ply) = game.position_and_ply();
    match pos.to_move() {
        Some(side) if side.index() == seat.side => {}
        _ => return Err(ApiError::conflict(format!("it is not your turn: {} is thinking", game.names[1 - seat.side]))),
    }
    let mut sent = seat.sent_at.lock().unwrap_or_else(|p| p.into_inner());
    if *sent == Some(ply) {
        return Err(ApiError::conflict("your move is already on its way"));
    }
    // A refusal speaks as the move list does (Connect Four's "column 4", not `3`): a
    // click's cell name (the notation) is read back as people write it first.
    let text = if req.typed {
        pos.move_from_people(&req.text).map_err(ApiError::unprocessable)?
    } else {
        pos.move_from_people(&game.kind.move_for_people(req.text.trim())).map_err(ApiError::unprocessable)?;
        req.text.trim().to_string()
    };
    let canonical = pos.check_text(&text).map_err(|err| {
        let reason = match err {
            rules::MoveError::Illegal { reason, .. } => reason,
            other => other.to_string(),
        };
        ApiError::unprocessable(format!("{:?} cannot be played: {reason}", game.kind.move_for_people(&text)))
    })?;
    seat.moves.try_send(canonical.clone()).map_err(|_| ApiError::conflict("the game is not waiting for a move"))?;
    *sent = Some(ply);
    Ok(canonical)
}
