//! STUB: the arbiter protocol's messages; to be written.
