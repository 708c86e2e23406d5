-- Files that travel through the database, so that a worker needs nothing but the URL:
-- each content stored once by its SHA-256, and the bundles that name them (a bot's
-- folder, the files the config reads) as lists of (relative path, SHA-256, mode).

CREATE TABLE blobs (
    sha256  TEXT  PRIMARY KEY,
    content BYTEA NOT NULL
);

-- `owner` is `entrant:ID` for an entrant's bot, `config` for the config's files; `files`
-- is the bundle's list as JSON, `sha256` the hash that identifies the bundle.
CREATE TABLE bundles (
    owner  TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    files  TEXT NOT NULL
);
