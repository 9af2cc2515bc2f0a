//! The browser's I/O: the URL.

pub mod url;
