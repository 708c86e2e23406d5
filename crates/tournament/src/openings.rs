//! STUB: openings; to be written.
