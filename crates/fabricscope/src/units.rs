//! Units: simulated time in integer nanoseconds, sizes in bytes, bandwidth in bytes per nanosecond.
//!
//! Every unit conversion in the core lives here. 1 GB/s = 1e9 B/s = 1 B/ns, so a bandwidth
//! in GB/s (the unit nccl-tests and NVIDIA datasheets use) is numerically a rate in bytes per
//! nanosecond, and Gb/s (the unit NICs are sold in) divides by 8.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Bytes per element: collectives move 4-byte floats, as nccl-tests does by default.
pub const ELEM_BYTES: u64 = 4;

/// `bytes` rounded down to whole elements, and at least one.
pub fn round_to_elements(bytes: u64) -> u64 {
    (bytes / ELEM_BYTES * ELEM_BYTES).max(ELEM_BYTES)
}

/// Simulated time [ns]. Integer so that ordering is total and identical on every target.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);

    pub fn as_ns(self) -> u64 {
        self.0
    }

    pub fn as_us(self) -> f64 {
        self.0 as f64 / 1e3
    }

    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration_ns(self.0 as f64))
    }
}

/// Formats a duration in ns with a unit a person reads at a glance: "850 ns", "12.4 µs", "1.27 ms".
pub fn format_duration_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.3} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// A bandwidth, stored as bytes per nanosecond (numerically equal to GB/s with 1 GB = 1e9 B).
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bandwidth(f64);

impl Bandwidth {
    /// From gigabytes per second (1 GB = 1e9 B), as GPU datasheets and nccl-tests state it.
    pub fn from_gbyte_per_s(gbyte_per_s: f64) -> Bandwidth {
        Bandwidth(gbyte_per_s)
    }

    /// From gigabits per second, as NICs and switch ports are sold: 400 Gb/s = 50 GB/s.
    pub fn from_gbit_per_s(gbit_per_s: f64) -> Bandwidth {
        Bandwidth(gbit_per_s / 8.0)
    }

    pub fn bytes_per_ns(self) -> f64 {
        self.0
    }

    pub fn gbyte_per_s(self) -> f64 {
        self.0
    }

    pub fn gbit_per_s(self) -> f64 {
        self.0 * 8.0
    }

    pub fn scale(self, factor: f64) -> Bandwidth {
        Bandwidth(self.0 * factor)
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1} GB/s", self.0)
    }
}

/// Time to move `bytes` at `bandwidth`, rounded up to a whole nanosecond.
///
/// This is the one rounding rule of the engine: a transfer that runs alone at a constant rate
/// finishes `ceil(bytes / rate)` ns after its data starts to move.
pub fn transfer_ns(bytes: u64, bandwidth: Bandwidth) -> u64 {
    ceil_ns(bytes as f64 / bandwidth.bytes_per_ns())
}

/// Rounds a non-negative duration in ns up to the next whole ns; exact integers stay as they are.
pub fn ceil_ns(ns: f64) -> u64 {
    debug_assert!(ns >= 0.0 && ns.is_finite(), "duration must be finite and non-negative: {ns}");
    ns.ceil() as u64
}

/// Formats a byte count the way nccl-tests users read sizes: "256 MiB", "1 KiB", "24 B".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Formats a byte count in the largest binary unit that holds it whole: "3840 KiB", "488 MiB",
/// "12 B": for a limit, which `format_bytes`' rounding could overstate.
pub fn format_bytes_whole(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let unit = (1..UNITS.len()).rev().find(|&u| bytes > 0 && bytes % (1u64 << (10 * u)) == 0).unwrap_or(0);
    format!("{} {}", bytes >> (10 * unit), UNITS[unit])
}

/// Parses a size as nccl-tests' `-b`/`-e` flags take it: a number with an optional binary
/// suffix K, M, G or T (powers of 1024), e.g. "8", "64K", "1G". Returns a message on error.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, multiplier) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let multiplier: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'B' => 1,
                _ => return Err(format!("'{text}': unknown size suffix '{c}' (use K, M, G or T)")),
            };
            (&text[..i], multiplier)
        }
        _ => (text, 1),
    };
    let value: u64 =
        digits.trim().parse().map_err(|_| format!("'{text}' is not a size (examples: 8, 64K, 256M, 1G)"))?;
    value.checked_mul(multiplier).ok_or_else(|| format!("'{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_conversions() {
        assert_eq!(Bandwidth::from_gbit_per_s(400.0).gbyte_per_s(), 50.0);
        assert_eq!(Bandwidth::from_gbyte_per_s(450.0).bytes_per_ns(), 450.0);
        assert_eq!(transfer_ns(1000, Bandwidth::from_gbyte_per_s(50.0)), 20);
        assert_eq!(transfer_ns(1001, Bandwidth::from_gbyte_per_s(50.0)), 21);
    }

    #[test]
    fn sizes_parse_like_nccl_tests() {
        assert_eq!(parse_size("8"), Ok(8));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("256m"), Ok(256 << 20));
        assert!(parse_size("12Q").unwrap_err().contains("unknown size suffix"));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").unwrap_err().contains("too large"));
        assert_eq!(format_bytes(256 << 20), "256 MiB");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes_whole(3_932_160), "3840 KiB");
        assert_eq!(format_bytes_whole(488 << 20), "488 MiB");
        assert_eq!(format_bytes_whole(1 << 30), "1 GiB");
        assert_eq!(format_bytes_whole(1028), "1028 B");
        assert_eq!(format_bytes_whole(0), "0 B");
    }
}
