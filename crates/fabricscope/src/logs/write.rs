//! nccl-tests' text, byte for byte (NVIDIA/nccl-tests 2.19, `src/util.cu`): the run header, the
//! device list, the table header, rows with out-of-place and in-place measurements, and the
//! footer. Tools that read nccl-tests logs by column position read ours the same way.

/// nccl-tests' `getFloatStr`: `%*.2f` if it fits `width`, else `%*.1f`, else `%*.0f`, else
/// scientific (`%*.1e` from 7 wide, `%*.0e` below).
pub fn float_str(value: f64, width: usize) -> String {
    for precision in [2usize, 1, 0] {
        let text = format!("{value:>width$.precision$}");
        if text.len() <= width {
            return text;
        }
    }
    let precision = if width >= 7 { 1 } else { 0 };
    format!("{:>width$}", c_exponent(value, precision))
}

/// C's `%.{precision}e`: a mantissa, `e`, a sign and at least two exponent digits (`1.2e+05`).
fn c_exponent(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// C's `%g`: 6 significant digits, trailing zeros dropped, scientific below 1e-4 or from 1e6.
pub fn c_g(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return if value == 0.0 { "0".into() } else { format!("{value}") };
    }
    let exponent = value.abs().log10().floor() as i32;
    if !(-4..6).contains(&exponent) {
        let text = c_exponent(value, 5);
        let (mantissa, rest) = text.split_once('e').unwrap_or((&text, ""));
        let mantissa = trim_zeros(mantissa);
        return format!("{mantissa}e{rest}");
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim_zeros(&format!("{value:.decimals$}")).to_string()
}

fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// The lines that open a run: the binary and its parameters (nccl-tests' version line is left
/// out: no nccl-tests ran).
pub fn run_header(binary: &str, n_gpus: u32, min_bytes: u64, max_bytes: u64, factor: u64) -> String {
    format!(
        "# Collective test starting: {binary}\n# nThread 1 nGpus {n_gpus} minBytes {min_bytes} maxBytes {max_bytes} step: {factor}(factor) warmup iters: 0 iters: 1 agg iters: 1 validation: 1 graph: 0 unalign: 0\n#\n"
    )
}

/// `# Using devices` and one line per rank (`#  Rank  0 Group  0 Pid      0 on     node-0
/// device  0 [0000:00:00] NAME`).
pub fn device_list(ranks_per_node: u32, nodes: u32, device_name: &str) -> String {
    let mut out = String::from("# Using devices\n");
    for node in 0..nodes {
        for local in 0..ranks_per_node {
            let rank = node * ranks_per_node + local;
            out.push_str(&format!(
                "#  Rank {rank:>2} Group {:>2} Pid {:>6} on {:>10} device {local:>2} [{:04x}:{:02x}:{:02x}] {device_name}\n",
                0,
                0,
                format!("node-{node}"),
                0,
                local,
                0
            ));
        }
    }
    out
}

/// The table's three header lines, after a `#` line.
pub fn table_header() -> String {
    let blank = "";
    let mut out = String::from("#\n");
    out.push_str(&format!(
        "# {blank:>10}  {blank:>12}  {blank:>8}  {blank:>6}  {blank:>6}           out-of-place                       in-place          \n"
    ));
    out.push_str(&format!(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time",
        "algbw",
        "busbw",
        "#wrong",
        "time",
        "algbw",
        "busbw",
        "#wrong"
    ));
    out.push_str(&format!(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""
    ));
    out
}

/// A row's leading fields (`%12li  %12li  %8s  %6s  %6i`).
pub fn row_preamble(size_bytes: u64, count: u64, data_type: &str, redop: &str, root: i64) -> String {
    format!("{size_bytes:>12}  {count:>12}  {data_type:>8}  {redop:>6}  {root:>6}")
}

/// One measurement's fields (`  %7s  %6s  %6s  %6g`, or `N/A` when not checked).
pub fn row_body(time_us: f64, algbw: f64, busbw: f64, wrong: Option<u64>) -> String {
    let (time, algbw, busbw) = (float_str(time_us, 7), float_str(algbw, 6), float_str(busbw, 6));
    match wrong {
        Some(wrong) => format!("  {time:>7}  {algbw:>6}  {busbw:>6}  {:>6}", c_g(wrong as f64)),
        None => format!("  {time:>7}  {algbw:>6}  {busbw:>6}    N/A"),
    }
}

/// The footer: out-of-bounds count, average bus bandwidth (`%g`), the binary.
pub fn footer(avg_busbw: f64, binary: &str) -> String {
    format!(
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {} \n#\n# Collective test concluded: {binary}\n",
        c_g(avg_busbw)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_nccl_tests_prints_them() {
        // getFloatStr at width 7 and 6, as in nccl-tests' tables.
        assert_eq!(float_str(43.59, 7), "  43.59");
        assert_eq!(float_str(12345.678, 7), "12345.7");
        assert_eq!(float_str(123456.7, 7), " 123457");
        assert_eq!(float_str(12345678.0, 7), "1.2e+07");
        assert_eq!(float_str(0.0, 6), "  0.00");
        assert_eq!(float_str(1234.5, 6), "1234.5");
        assert_eq!(float_str(123456.0, 6), "123456");
        assert_eq!(float_str(1234567.0, 6), " 1e+06");
        // %g: six significant digits.
        assert_eq!(c_g(0.0), "0");
        assert_eq!(c_g(57.52741), "57.5274");
        assert_eq!(c_g(370.0), "370");
        assert_eq!(c_g(1234567.0), "1.23457e+06");
        assert_eq!(c_g(0.00001234), "1.234e-05");
        assert_eq!(
            row_preamble(8, 2, "float", "sum", -1),
            "           8             2     float     sum      -1"
        );
        assert_eq!(row_body(43.59, 0.0, 0.0, Some(0)), "    43.59    0.00    0.00       0");
        assert_eq!(row_body(43.59, 0.0, 0.0, None), "    43.59    0.00    0.00    N/A");
    }
}
