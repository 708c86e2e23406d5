//! STUB: schedule; to be written.
