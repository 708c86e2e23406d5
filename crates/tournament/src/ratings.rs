//! STUB: ratings; to be written.
