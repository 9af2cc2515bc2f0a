//! The browser's I/O, each kind in its own module: the URL (`url` encodes and decodes it,
//! `location` reads and replaces it), localStorage (`storage`), downloads and the clipboard.

pub mod clipboard;
pub mod download;
pub mod location;
pub mod storage;
pub mod url;
