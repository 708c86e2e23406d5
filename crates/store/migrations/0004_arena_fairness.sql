-- A ladder's fairness: a player's faults in a row, and when it was paused for them (a
-- paused player is not paired; a new version of the bot is a new player, not paused).

ALTER TABLE ladder_players ADD COLUMN fault_streak INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ladder_players ADD COLUMN paused_ms BIGINT;
-- The fault that paused it, for people ("crash: exited with status 1").
ALTER TABLE ladder_players ADD COLUMN paused_fault TEXT;
