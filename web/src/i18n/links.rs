//! The strings of the training view's shared-links table (`contention` in the core) and of the
//! scaling table's stop, in English and Simplified Chinese.

use super::Lang;

/// A fixed string of the shared-links table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    Heading,
    Caption,
    Traffic,
    With,
    Alone,
    Together,
    Meets,
    Mean,
    /// Before the reason a scaling point is not run.
    ScalingStops,
}

pub fn shared(lang: Lang, key: Shared) -> &'static str {
    use Shared::*;
    match (lang, key) {
        (Lang::En, Heading) => "Where traffic shares links",
        (Lang::Zh, Heading) => "共享链路的流量",
        (Lang::En, Caption) => "Each pair run together through the engine, sharing every link they both use; how often they meet comes from the step's times. The step uses each call's mean.",
        (Lang::Zh, Caption) => "每一对流量在引擎中同时运行，共同分享它们都经过的每条链路；相遇的频率取自本步的时间。本步按每次调用的平均时间计算。",
        (Lang::En, Traffic) => "traffic",
        (Lang::Zh, Traffic) => "流量",
        (Lang::En, With) => "with",
        (Lang::Zh, With) => "同时存在",
        (Lang::En, Alone) => "one call alone",
        (Lang::Zh, Alone) => "单独一次",
        (Lang::En, Together) => "together",
        (Lang::Zh, Together) => "同时运行",
        (Lang::En, Meets) => "share of its time they meet",
        (Lang::Zh, Meets) => "相遇时间占比",
        (Lang::En, Mean) => "mean per call",
        (Lang::Zh, Mean) => "每次平均",
        (Lang::En, ScalingStops) => "Stops here, the next point is beyond the engine: ",
        (Lang::Zh, ScalingStops) => "到此为止，下一个点超出引擎的能力：",
    }
}
