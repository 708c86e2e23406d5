//! STUB: the gomoku_console protocol's messages; to be written.
