//! STUB: standings; to be written.
