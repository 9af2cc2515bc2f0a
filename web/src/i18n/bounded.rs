//! The words for an AllToAll bounded by max-min sharing rather than simulated
//! (`fabricscope::Method::Bounded`): how its time was obtained, what the figure then draws (no
//! timeline: every link's mean load), and the chart's bounded points.

use super::Lang;
use fabricscope::plan::PAGE_MAX_TRANSFERS;
use fabricscope::units::{format_bytes, format_duration_ns};
use fabricscope::Bounds;

/// How far above the lower bound the upper lies, in percent.
fn gap_percent(lower: f64, upper: f64) -> f64 {
    100.0 * (upper - lower) / lower.max(1e-9)
}

/// The results' "obtained by" sentence for a bounded run on `n` GPUs over `channels` channels
/// (`transfers` of them in the whole).
pub fn method_sentence(lang: Lang, bounds: &Bounds, (n, channels, transfers): (u32, u32, u64)) -> String {
    let (lower, upper) =
        (format_duration_ns(bounds.lower_ns as f64), format_duration_ns(bounds.upper_ns as f64));
    let gap = gap_percent(bounds.lower_ns as f64, bounds.upper_ns as f64);
    let pairs = n as u64 * (n as u64).saturating_sub(1);
    match lang {
        Lang::En => format!(
            "Obtained as a max-min bound, not a simulation: all {transfers} transfers of this AllToAll start at once, and its {channels} channels route alike, so channel 0's {pairs} pairs, counted on every link they cross, bound when max-min sharing ends it. The run ends between {lower} (the busiest link's bytes at its capacity after its first flow starts: the time shown) and {upper} (every flow at least its links' capacity over their flow counts): at most {gap:.3}% later. Link bytes are exact; bus bandwidth is at most that much lower. The page runs an AllToAll transfer by transfer up to {PAGE_MAX_TRANSFERS} transfers; wherever both run, the run ends within these bounds (tests/bounded.rs)."
        ),
        Lang::Zh => format!(
            "获得方式：最大最小公平共享的界，而非模拟——此 AllToAll 的全部 {transfers} 个传输同时开始，其 {channels} 个通道路由相同，因此按通道 0 的 {pairs} 对在其经过的每条链路上计数，即可界定最大最小公平共享下的结束时间。运行结束于 {lower}（最繁忙链路在其首个流开始后以满带宽传完其字节：即所示时间）与 {upper}（每条流至少得到其链路带宽除以流数）之间：至多晚 {gap:.3}%。链路字节数精确；总线带宽至多低同样比例。页面可逐个模拟至多 {PAGE_MAX_TRANSFERS} 个传输的 AllToAll；凡两者都能运行之处，运行都在此界内结束（tests/bounded.rs）。"
        ),
    }
}

/// What the timeline says in place of a step's text: there are no steps to follow.
pub fn timeline_text(lang: Lang, bounds: &Bounds) -> String {
    let lower = format_duration_ns(bounds.lower_ns as f64);
    match lang {
        Lang::En => format!(
            "No timeline: this AllToAll was bounded, not simulated, so no chunk is drawn moving. Every link is coloured by its mean load over the {lower} (its exact bytes over that time), the whole way through: what is hot, not when."
        ),
        Lang::Zh => format!(
            "没有时间线：此 AllToAll 是求界而非模拟，因此不画移动的数据块。每条链路全程按其在 {lower} 内的平均负载着色（其精确字节数除以该时间）：显示哪里繁忙，而不是何时繁忙。"
        ),
    }
}

/// The trace hash's place: there is no trace.
pub fn no_trace(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "none (no engine run)",
        Lang::Zh => "无（未经引擎运行）",
    }
}

/// The chart's note where some of its points are bounded (`points`: each one's size, time and
/// upper bound [us]): from which size, and how far their bus bandwidth may lie above the run's.
pub fn chart_note(lang: Lang, points: &[(u64, f64, f64)]) -> Option<String> {
    let first = points.iter().map(|&(size, ..)| size).min()?;
    let gap = points.iter().map(|&(_, lower, upper)| gap_percent(lower, upper)).fold(0.0, f64::max);
    let all = points.len();
    let from = format_bytes(first);
    Some(match lang {
        Lang::En => format!(
            "{all} points from {from} are bounded by max-min sharing, not simulated (beyond what the page runs transfer by transfer at this scale): each is drawn at its upper bound on the bus bandwidth, at most {gap:.3}% above the run's."
        ),
        Lang::Zh => format!(
            "从 {from} 起的 {all} 个点按最大最小公平共享求界而非模拟（超出页面在此规模下逐个传输模拟的范围）：每点按总线带宽的上界绘制，至多比实际运行高 {gap:.3}%。"
        ),
    })
}

/// A faulted link in a bounded run: no step to say waits on it, what it carried instead
/// (`bytes` both ways' busier direction's, `mean` its mean load in [0, 1]).
pub fn fault_text(lang: Lang, bytes: f64, mean: f64) -> String {
    if bytes == 0.0 {
        return match lang {
            Lang::En => "bounded, not simulated: no route crosses it".into(),
            Lang::Zh => "求界而非模拟：没有路由经过它".into(),
        };
    }
    let bytes = format_bytes(bytes as u64);
    match lang {
        Lang::En => format!("bounded, not simulated, so no step is followed: it carries {bytes}, a mean of {:.0}% of what is left of it over the run", 100.0 * mean),
        Lang::Zh => format!("求界而非模拟，因此不跟踪步骤：它承载 {bytes}，全程平均占其剩余带宽的 {:.0}%", 100.0 * mean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart's note names how many points are bounded, from which size, and the widest gap
    /// among them; with none, there is no note.
    #[test]
    fn the_chart_note_gives_the_widest_gap() {
        let points = [(1 << 30, 22_219.0, 22_220.0), (1 << 10, 10.0, 10.45)];
        let en = chart_note(Lang::En, &points).unwrap();
        assert!(en.starts_with("2 points from 1 KiB") && en.contains("at most 4.500% above"), "{en}");
        let zh = chart_note(Lang::Zh, &points).unwrap();
        assert!(zh.contains("从 1 KiB 起的 2 个点") && zh.contains("4.500%"), "{zh}");
        assert_eq!(chart_note(Lang::En, &[]), None);
    }

    /// A faulted link no route crosses says so, rather than a mean of nothing.
    #[test]
    fn a_fault_no_route_crosses_says_so() {
        assert!(fault_text(Lang::En, 0.0, 0.0).ends_with("no route crosses it"));
        let zh = fault_text(Lang::Zh, 1_065_353_216.0, 1.0);
        assert!(zh.contains("1016 MiB") && zh.contains("100%"), "{zh}");
    }
}
