//! The browser's I/O, each kind in its own module: the URL (`url` encodes and decodes it,
//! `location` reads and replaces it), localStorage (`storage`), downloads, the clipboard and
//! the reader's device (`device`: touch, a narrow screen), and the page's Web Workers (`workers`).

pub mod clipboard;
pub mod device;
pub mod download;
pub mod location;
pub mod storage;
pub mod url;
pub mod workers;
