//! The scenario and the time in the URL's fragment: `#s=<scenario JSON, URI-encoded>&t=<ns>`.
//!
//! Pure string work (tested natively) apart from the URI codec, which is the browser's own
//! where there is one. A fragment that does not parse, or a scenario that does not validate,
//! is an error that names what is wrong; the caller falls back to the default scenario.

use fabricscope::units::SimTime;
use fabricscope::Scenario;

/// Longest fragment accepted, so a hostile link cannot make the page parse megabytes.
pub const MAX_FRAGMENT: usize = 16 * 1024;

/// `#s=…&t=…` for a scenario and an optional time.
pub fn encode(scenario: &Scenario, t: Option<SimTime>) -> String {
    let json = serde_json::to_string(scenario).unwrap_or_default();
    let mut fragment = format!("#s={}", encode_component(&json));
    if let Some(t) = t.filter(|t| t.as_ns() > 0) {
        fragment.push_str(&format!("&t={}", t.as_ns()));
    }
    fragment
}

/// The scenario and time a fragment holds: `Ok(None)` for no scenario, `Err` for a bad one.
pub fn decode(fragment: &str) -> Result<Option<(Scenario, Option<SimTime>)>, String> {
    let fragment = fragment.trim_start_matches('#');
    if fragment.is_empty() {
        return Ok(None);
    }
    if fragment.len() > MAX_FRAGMENT {
        return Err(format!("the link is {} characters long, more than {MAX_FRAGMENT}", fragment.len()));
    }
    let (mut scenario, mut t) = (None, None);
    for part in fragment.split('&') {
        match part.split_once('=') {
            Some(("s", value)) => {
                let json = decode_component(value).ok_or("the scenario is not valid URI-encoded text")?;
                let parsed = Scenario::from_json(&json).map_err(|e| e.to_string())?;
                if let Err(errors) = parsed.validate() {
                    return Err(errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "));
                }
                scenario = Some(parsed);
            }
            Some(("t", value)) => {
                t = Some(SimTime(value.parse().map_err(|_| format!("t: '{value}' is not a time in ns"))?));
            }
            _ => {}
        }
    }
    Ok(scenario.map(|s| (s, t)))
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn decode_component(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 3;
        scenario.custom = None;
        let fragment = encode(&scenario, Some(SimTime(1234)));
        assert!(fragment.starts_with("#s=%7B"));
        assert_eq!(decode(&fragment).unwrap(), Some((scenario, Some(SimTime(1234)))));
        assert_eq!(decode("").unwrap(), None);
    }

    #[test]
    fn bad_links_name_the_problem() {
        assert!(decode("#s=%7Bnope").unwrap_err().contains("EOF") || decode("#s=%7Bnope").is_err());
        let bad_nodes = encode(&Scenario { nodes: 0, ..Scenario::default_demo() }, None);
        assert!(decode(&bad_nodes).unwrap_err().starts_with("nodes: 0 is out of range"));
        assert!(decode("#s=%ZZ").unwrap_err().contains("URI-encoded"));
        assert!(decode(&format!("#s={}", "a".repeat(MAX_FRAGMENT + 1))).unwrap_err().contains("characters long"));
        let fragment = encode(&Scenario::default_demo(), None) + "&t=soon";
        assert!(decode(&fragment).unwrap_err().starts_with("t: 'soon'"));
    }
}
