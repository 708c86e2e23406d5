-- The server's own database (`arena.db` in the web arena's data folder), apart from the
-- tournament files: entrants with their tokens, and who owns which registered bot.

-- People the organiser let in. Only a hash of the token is kept (SHA-256, hex): the
-- token itself is shown once, when it is made. A revoked entrant keeps its row (its bots
-- keep their owner) and has no working token until one is reissued.
CREATE TABLE arena_entrants (
    name        TEXT   PRIMARY KEY,
    token_hash  TEXT   NOT NULL UNIQUE,
    created_ms  BIGINT NOT NULL,
    revoked_ms  BIGINT
);

-- The owner of a registered bot (game, name): the entrant whose token uploaded its first
-- version. Bots the organiser uploaded have no row.
CREATE TABLE arena_bots (
    game    TEXT NOT NULL,
    name    TEXT NOT NULL,
    entrant TEXT NOT NULL REFERENCES arena_entrants (name),
    PRIMARY KEY (game, name)
);
