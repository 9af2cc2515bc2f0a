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

/// The view a link asks for: `&lang=en|zh` and `&theme=light|dark` (`None` where it says
/// nothing or something else; the page then keeps the reader's own).
pub fn view_options(fragment: &str) -> (Option<crate::i18n::Lang>, Option<bool>) {
    let (mut lang, mut dark) = (None, None);
    for part in fragment.trim_start_matches('#').split('&').take(64) {
        match part.split_once('=') {
            Some(("lang", code)) => lang = crate::i18n::Lang::from_code(code),
            Some(("theme", "dark")) => dark = Some(true),
            Some(("theme", "light")) => dark = Some(false),
            _ => {}
        }
    }
    (lang, dark)
}

/// `fragment` with the view appended (`view_options` reads it back).
pub fn with_view(fragment: String, lang: crate::i18n::Lang, dark: bool) -> String {
    format!("{fragment}&lang={}&theme={}", lang.code(), if dark { "dark" } else { "light" })
}

/// The fragment of the collectives view as it is: its scenario (both, A first, in an A/B
/// comparison), the time, the language and theme. The address bar and the copied link and
/// embed code are this one fragment, so a shared link shows what the sender sees.
pub fn view_fragment(
    scenario: &Scenario,
    ab: Option<(&Scenario, &Scenario)>,
    t: SimTime,
    lang: crate::i18n::Lang,
    dark: bool,
) -> String {
    let fragment = match ab {
        Some((a, b)) => encode_ab(a, Some(b), Some(t)),
        None => encode(scenario, Some(t)),
    };
    with_view(fragment, lang, dark)
}

/// `#s=A&b=B&t=…`: an A/B comparison (A first, as `decode` reads it).
pub fn encode_ab(a: &Scenario, b: Option<&Scenario>, t: Option<SimTime>) -> String {
    let mut fragment = encode(a, t);
    if let Some(b) = b {
        fragment.push_str(&format!("&b={}", encode_component(&serde_json::to_string(b).unwrap_or_default())));
    }
    fragment
}

/// The B scenario of an A/B link, if it has a valid one (a bad one is ignored: A still shows).
pub fn decode_b(fragment: &str) -> Option<Scenario> {
    let fragment = fragment.trim_start_matches('#');
    if fragment.len() > MAX_FRAGMENT {
        return None;
    }
    let value = fragment.split('&').find_map(|part| part.strip_prefix("b="))?;
    let scenario = Scenario::from_json(&decode_component(value)?).ok()?;
    scenario.validate().ok().map(|_| scenario)
}

/// `#train=…` for a training job.
pub fn encode_train(job: &fabricscope::train::TrainScenario) -> String {
    format!("#train={}", encode_component(&serde_json::to_string(job).unwrap_or_default()))
}

/// Whether a fragment holds a training job (the page then opens the training view).
pub fn is_train(fragment: &str) -> bool {
    fragment.trim_start_matches('#').starts_with("train=")
}

/// The training job a fragment holds: `Ok(None)` for none, `Err` naming the problem.
pub fn decode_train(fragment: &str) -> Result<Option<fabricscope::train::TrainScenario>, String> {
    let fragment = fragment.trim_start_matches('#');
    if fragment.len() > MAX_FRAGMENT {
        return Err(format!("the link is {} characters long, more than {MAX_FRAGMENT}", fragment.len()));
    }
    let Some(value) =
        fragment.split('&').find_map(|part| part.strip_prefix("train=")).filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    let json = decode_component(value).ok_or("the training job is not valid URI-encoded text")?;
    let job = fabricscope::train::TrainScenario::from_json(&json).map_err(|e| e.to_string())?;
    job.validate().map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
    Ok(Some(job))
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
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None; // `from_str_radix` alone would take "%+1".
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
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
    fn a_link_carries_the_view() {
        let fragment =
            with_view(encode(&Scenario::default_demo(), Some(SimTime(42))), crate::i18n::Lang::Zh, true);
        assert!(fragment.ends_with("&t=42&lang=zh-CN&theme=dark"), "{fragment}");
        assert_eq!(view_options(&fragment), (Some(crate::i18n::Lang::Zh), Some(true)));
        // The scenario and time still read the same, the view keys aside.
        assert_eq!(decode(&fragment).unwrap(), Some((Scenario::default_demo(), Some(SimTime(42)))));
        assert_eq!(view_options("#s=x&lang=fr&theme=sepia"), (None, None));
    }

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
        assert!(decode(&format!("#s={}", "a".repeat(MAX_FRAGMENT + 1)))
            .unwrap_err()
            .contains("characters long"));
        let fragment = encode(&Scenario::default_demo(), None) + "&t=soon";
        assert!(decode(&fragment).unwrap_err().starts_with("t: 'soon'"));
        assert!(decode("#s=%+1").unwrap_err().contains("URI-encoded"));
    }

    #[test]
    fn ab_links_carry_both_scenarios() {
        let a = Scenario::default_demo();
        let b = Scenario { nodes: 2, ..Scenario::default_demo() };
        let fragment = encode_ab(&a, Some(&b), Some(SimTime(7)));
        assert_eq!(decode(&fragment).unwrap(), Some((a.clone(), Some(SimTime(7)))));
        assert_eq!(decode_b(&fragment), Some(b.clone()));
        assert_eq!(decode_b(&encode(&Scenario::default_demo(), None)), None);
        // The view's fragment (address bar, copied link, embed code) keeps both, the time and
        // the view.
        let shared = view_fragment(&b, Some((&a, &b)), SimTime(9), crate::i18n::Lang::Zh, true);
        assert_eq!(decode(&shared).unwrap(), Some((a.clone(), Some(SimTime(9)))));
        assert_eq!(decode_b(&shared), Some(b.clone()));
        assert_eq!(view_options(&shared), (Some(crate::i18n::Lang::Zh), Some(true)));
        let single = view_fragment(&b, None, SimTime(9), crate::i18n::Lang::En, false);
        assert_eq!((decode(&single).unwrap(), decode_b(&single)), (Some((b, Some(SimTime(9)))), None));
    }

    #[test]
    fn training_jobs_round_trip_and_bad_ones_name_the_field() {
        let job = fabricscope::train::TrainScenario::default_demo();
        let fragment = encode_train(&job);
        assert!(is_train(&fragment));
        assert_eq!(decode_train(&fragment).unwrap(), Some(job.clone()));
        let bad = encode_train(&fabricscope::train::TrainScenario { tp: 3, ..job });
        assert!(decode_train(&bad).unwrap_err().contains("dp: TP × PP × DP"), "{:?}", decode_train(&bad));
        assert_eq!(decode_train("#s=%7B%7D").unwrap(), None);
    }

    /// Fuzzing, bounded: damaged and random fragments never panic; what decodes is a valid
    /// scenario that encodes back to a fragment decoding to the same thing. A fixed-seed
    /// generator; `FABRICSCOPE_FUZZ_CASES` sets the count (default 20,000).
    #[test]
    fn fuzz_fragments() {
        let cases: u64 =
            std::env::var("FABRICSCOPE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        let mut state = 0x5EED_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut seeds = vec![encode(&Scenario::default_demo(), Some(SimTime(5000)))];
        for nodes in [2, 4] {
            seeds.push(encode(&Scenario { nodes, root: 3, seed: 9, ..Scenario::default_demo() }, None));
        }
        let alphabet = b"%#&=st0123456789abcdefABCDEF{}[]\":,.-+ \xc3\xa9";
        let (mut decoded, mut rejected) = (0u64, 0u64);
        for case in 0..cases {
            let mut bytes = seeds[(next() % seeds.len() as u64) as usize].clone().into_bytes();
            if next() % 4 == 0 {
                bytes =
                    (0..next() % 40).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            }
            // Zero to two changes: some fragments arrive intact, or changed only in `t`.
            for _ in 0..next() % 3 {
                if bytes.is_empty() {
                    break;
                }
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 4 {
                    0 => bytes.truncate(at),
                    1 => bytes.insert(at, alphabet[(next() % alphabet.len() as u64) as usize]),
                    2 => {
                        bytes.remove(at);
                    }
                    _ => bytes[at] = next() as u8,
                }
            }
            let fragment = String::from_utf8_lossy(&bytes).into_owned();
            match std::panic::catch_unwind(|| decode(&fragment)) {
                Ok(Ok(Some((scenario, t)))) => {
                    decoded += 1;
                    assert!(scenario.validate().is_ok(), "case {case}: {fragment}");
                    assert_eq!(
                        decode(&encode(&scenario, t)).unwrap(),
                        Some((scenario, t.filter(|t| t.as_ns() > 0))),
                        "case {case}"
                    );
                }
                Ok(Ok(None)) => {}
                Ok(Err(message)) => {
                    rejected += 1;
                    assert!(!message.is_empty(), "case {case}: an error says what is wrong");
                }
                Err(_) => panic!("case {case} panicked: {fragment:?}"),
            }
        }
        println!("url fuzz: {cases} fragments, {decoded} decoded, {rejected} rejected with a message");
        assert!(decoded > cases / 20 && rejected > cases / 3, "the generator reaches both outcomes");
    }
}
