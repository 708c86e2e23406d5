-- A tournament file that workers play through `arbiter serve` (HTTP workers): the same
-- tables of shared work as a PostgreSQL database's (postgres/0001_initial.sql and
-- postgres/0002_files.sql), in SQLite's types. A lease's expiry is the server's clock in
-- Unix milliseconds (one server process holds the file, so one clock). Empty in a file
-- that one `arbiter tournament` plays.

CREATE TABLE workers (
    id         TEXT    PRIMARY KEY,
    host       TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    version    TEXT    NOT NULL,
    sandbox    TEXT    NOT NULL,
    started_ms INTEGER NOT NULL
);

CREATE TABLE queue (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    key         TEXT    NOT NULL UNIQUE,
    stage       INTEGER NOT NULL,
    spec        TEXT    NOT NULL,
    attempt     INTEGER NOT NULL DEFAULT 0,
    worker      TEXT    REFERENCES workers (id),
    lease_until INTEGER,
    done        BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX queue_open ON queue (seq) WHERE NOT done;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE blobs (
    sha256  TEXT PRIMARY KEY,
    content BLOB NOT NULL
);

CREATE TABLE bundles (
    owner  TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    files  TEXT NOT NULL
);
