//! Which field a JSON error is in, from where serde_json stopped: the dotted path `parse_json`
//! names ("links.nic.speed", "faults[0].kind", "" for the whole document).
//!
//! serde_json says where it stopped (line and byte column); the path is the members open at
//! that point, read off the text before it by a scanner that knows only JSON's brackets, keys
//! and strings. This is what `serde_path_to_error` gave, without its tracking deserializer,
//! which the page's WebAssembly carried as a second copy of every scenario type's parser
//! (28 KB gzipped). `tests/json_paths.rs` holds the two to the same path on generated and
//! damaged documents.

/// One open container: an object (its member's key) or an array (its element's index).
struct Open {
    key: Option<String>,
    index: Option<usize>,
    /// A member or element is open: its key read or its value begun, and no comma since.
    member: bool,
    /// Its value is whole (a string closed, a container closed, a number or literal followed
    /// by a space): an error here is still the value's, but a token after it ends the member.
    ended: bool,
    /// The open member's value has begun (else only its key is read).
    valued: bool,
}

/// The path of the field serde_json stopped in: `line` and `column` are its error's (1-based
/// line, bytes into it), `problem` its message, and `syntax` whether it stopped on the text
/// itself (not on a value of the wrong type or a field).
pub(super) fn at(text: &str, (line, column): (usize, usize), problem: &str, syntax: bool) -> String {
    let start = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum::<usize>();
    let mut end = (start + column).min(text.len());
    // A bracket, comma or colon serde_json peeked at (and stopped on) is not yet read: the
    // error is that of the member before it. At the end of the text, all of it was read.
    // An opening bracket or a comma is peeked at only by a syntax error; a value of the wrong
    // type stops serde_json at its own start, after the comma before it.
    let eof = problem.starts_with("EOF while parsing");
    let peeked =
        |byte: u8| matches!(byte, b'}' | b']' | b':') || syntax && matches!(byte, b'{' | b'[' | b',');
    if !eof && end > 0 && peeked(text.as_bytes()[end - 1]) {
        end -= 1;
    }
    let mut stack: Vec<Open> = Vec::new();
    // The string being read (and whether it is a key), and a backslash before this byte.
    let mut string: Option<(Vec<u8>, bool)> = None;
    let mut escaped = false;
    // A `\\u` escape's hex digits so far.
    let mut unicode: Option<String> = None;
    // A number or literal is being read.
    let mut literal = false;
    for &byte in &text.as_bytes()[..end] {
        if let Some((bytes, is_key)) = string.as_mut() {
            if let Some(hex) = unicode.as_mut() {
                hex.push(byte as char);
                if hex.len() == 4 {
                    let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                    let mut utf8 = [0; 4];
                    bytes.extend_from_slice(code.unwrap_or('\u{fffd}').encode_utf8(&mut utf8).as_bytes());
                    unicode = None;
                }
                continue;
            }
            match (escaped, byte) {
                (true, b'u') => {
                    escaped = false;
                    unicode = Some(String::new());
                    continue;
                }
                (true, _) => {
                    escaped = false;
                    bytes.push(match byte {
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        other => other,
                    });
                    continue;
                }
                (false, b'\\') => {
                    escaped = true;
                    continue;
                }
                (false, b'"') => {
                    let key = is_key.then(|| String::from_utf8_lossy(bytes).into_owned());
                    string = None;
                    if let Some(open) = stack.last_mut() {
                        match key {
                            Some(key) => open.key = Some(key),
                            None => open.ended = true,
                        }
                    }
                    continue;
                }
                _ => {}
            }
            bytes.push(byte);
            continue;
        }
        if literal
            && !matches!(byte, b'"' | b'{' | b'[' | b'}' | b']' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r')
        {
            continue;
        }
        if literal {
            literal = false;
            if let Some(open) = stack.last_mut() {
                open.ended = true;
            }
        }
        // A token right after a whole value, with no comma: serde_json stops on it.
        let token = matches!(byte, b'"' | b'{' | b'[')
            || !matches!(byte, b'}' | b']' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r');
        if token {
            if let Some(open) = stack.last_mut().filter(|open| open.ended) {
                open.member = false;
                open.ended = false;
                open.valued = false;
                open.key = None;
                break;
            }
        }
        match byte {
            b'"' => {
                let is_key = matches!(stack.last(), Some(open) if open.index.is_none() && !open.member);
                if let Some(open) = stack.last_mut() {
                    open.member = true;
                    open.valued |= !is_key;
                }
                string = Some((Vec::new(), is_key));
            }
            b'{' | b'[' => {
                if let Some(open) = stack.last_mut() {
                    open.member = true;
                    open.valued = true;
                }
                let array = byte == b'[';
                stack.push(Open {
                    key: None,
                    index: array.then_some(0),
                    member: false,
                    ended: false,
                    valued: false,
                });
            }
            b'}' | b']' => {
                stack.pop();
                if let Some(open) = stack.last_mut() {
                    open.ended = true;
                }
            }
            b',' => {
                if let Some(open) = stack.last_mut() {
                    open.member = false;
                    open.ended = false;
                    open.valued = false;
                    open.key = None;
                    if let Some(index) = open.index.as_mut() {
                        *index += 1;
                    }
                }
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                literal = true;
                if let Some(open) = stack.last_mut() {
                    open.member = true;
                    open.valued = true;
                }
            }
        }
    }
    // Every container but the last has a member open (the one the last is in).
    let Some((last, outer)) = stack.split_last() else {
        return String::new();
    };
    let mut path = String::new();
    let mut push = |open: &Open, key: Option<&str>| match open.index {
        Some(index) => path.push_str(&format!("[{index}]")),
        None => {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key.unwrap_or("?"));
        }
    };
    for open in outer {
        push(open, open.key.as_deref());
    }
    // The last container's own part: a missing or repeated field, or a key without its colon,
    // is the object's; an error between members (no key read whole, or no comma after a
    // value) is in a member not known, "?"; else the member's key or the element's index.
    let whole = problem.starts_with("missing field")
        || problem.starts_with("duplicate field")
        || problem.starts_with("expected `:`")
        || problem.starts_with("invalid length")
        // An object with no member begun where a value was expected (an enum given `{}`);
        // in an array the element is begun.
        || (problem.starts_with("expected value") && !last.member && last.index.is_none())
        // A variant named by a key (`{"variant": …}`) is the enum's, not a member of it.
        || (problem.starts_with("unknown variant") && last.index.is_none() && !last.valued);
    let between =
        problem.starts_with("expected `,` or `}`") || string.as_ref().is_some_and(|s| s.1) || !last.member;
    match (last.index, whole, between) {
        (_, true, _) => {}
        (Some(_), false, _) => push(last, None),
        (None, false, true) => push(last, None),
        (None, false, false) => push(last, last.key.as_deref()),
    }
    path
}
