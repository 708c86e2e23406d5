-- HTTP workers the organiser let in (`arbiter workers add`, the workers page): only a
-- hash of each token is kept (SHA-256, hex). A revoked worker keeps its row and its
-- figures. The figures are what the server saw of the worker's reports, so that a worker
-- whose results stand out can be seen (and revoked).
CREATE TABLE arena_workers (
    name         TEXT    PRIMARY KEY,
    token_hash   TEXT    NOT NULL UNIQUE,
    created_ms   BIGINT  NOT NULL,
    revoked_ms   BIGINT,
    -- The host it last said it runs on, and when it last called (any call).
    host         TEXT,
    last_seen_ms BIGINT,
    -- Games it reported that were stored.
    games        BIGINT  NOT NULL DEFAULT 0,
    -- Of those, games that ended by a fault of side 0 (the first mover) and of side 1.
    faults0      BIGINT  NOT NULL DEFAULT 0,
    faults1      BIGINT  NOT NULL DEFAULT 0,
    -- Records the server's check refused (illegal moves, a wrong result or start).
    refused      BIGINT  NOT NULL DEFAULT 0,
    last_refusal TEXT,
    -- Moves in its stored games and their time, for its mean time per move.
    moves        BIGINT  NOT NULL DEFAULT 0,
    move_ms      BIGINT  NOT NULL DEFAULT 0
);
