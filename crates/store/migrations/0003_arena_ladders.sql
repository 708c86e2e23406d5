-- Ladders: continuous leagues per game and options, in the server's `arena.db`.

CREATE TABLE ladders (
    id          INTEGER PRIMARY KEY,
    game        TEXT    NOT NULL,
    -- The game's options as a JSON object of strings.
    options     TEXT    NOT NULL,
    -- The bosses (built-in players), weakest first, as a JSON array of names.
    bosses      TEXT    NOT NULL,
    frozen      INTEGER NOT NULL DEFAULT 0,
    created_ms  BIGINT  NOT NULL
);

-- A player of a ladder: a boss (version 0) or one version of a registered bot. Only the
-- current version of a bot is active; older versions keep their rows for the history.
CREATE TABLE ladder_players (
    ladder      INTEGER NOT NULL REFERENCES ladders (id),
    bot         TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    entrant     TEXT,
    boss        INTEGER NOT NULL,
    active      INTEGER NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    joined_ms   BIGINT  NOT NULL,
    PRIMARY KEY (ladder, bot, version)
);

-- Every finished ladder game: the players (bot and version; version 0 a boss) by side,
-- the result, and the game's id in the data folder's `games/`.
CREATE TABLE ladder_games (
    ladder      INTEGER NOT NULL REFERENCES ladders (id),
    number      INTEGER NOT NULL,
    game_id     TEXT    NOT NULL,
    bot0        TEXT    NOT NULL,
    version0    INTEGER NOT NULL,
    bot1        TEXT    NOT NULL,
    version1    INTEGER NOT NULL,
    -- The winning side (0 or 1), NULL for a draw.
    winner      INTEGER,
    -- The side that made a fault and its kind, if play stopped on a fault.
    fault_side  INTEGER,
    fault       TEXT,
    finished_ms BIGINT  NOT NULL,
    PRIMARY KEY (ladder, number)
);
CREATE INDEX ladder_games_by_bot0 ON ladder_games (bot0, version0);
CREATE INDEX ladder_games_by_bot1 ON ladder_games (bot1, version1);

-- A player's rating after each of its games, for the rating charts.
CREATE TABLE ladder_history (
    ladder      INTEGER NOT NULL REFERENCES ladders (id),
    bot         TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    number      INTEGER NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    at_ms       BIGINT  NOT NULL,
    PRIMARY KEY (ladder, bot, version, number)
);
