//! STUB: the connect4_tcp protocol's messages; to be written.
