//! STUB: scoring; to be written.
