//! The strings of the phone layout, of touch and of keyboard and screen-reader access, in
//! English and Simplified Chinese (the rest of the page's fixed strings are in `text`).

use super::Lang;

/// A fixed string of the phone layout or of access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ux {
    /// The drawer's button and title.
    ChangeTheSetup,
    /// The drawer's close button.
    ShowTheFigure,
    HoverALink,
    TapALink,
    KeysHint,
    TouchHint,
    /// The topology canvas's accessible name.
    TopologyLabel,
    /// The time slider's accessible name.
    TimeSlider,
    /// A lesson step's folded extras.
    TryAndQuestion,
    /// The busiest links, a table mirror of the figure.
    BusiestLinks,
    BusiestLinksCaption,
    Link,
    Load,
}

pub fn ux(lang: Lang, key: Ux) -> &'static str {
    use Ux::*;
    match (lang, key) {
        (Lang::En, ChangeTheSetup) => "Change the setup",
        (Lang::Zh, ChangeTheSetup) => "修改设置",
        (Lang::En, ShowTheFigure) => "Show the figure",
        (Lang::Zh, ShowTheFigure) => "返回图示",
        (Lang::En, HoverALink) => "Hover a link to see its bandwidth, latency and load.",
        (Lang::Zh, HoverALink) => "将鼠标悬停在链路上，查看其带宽、时延与负载。",
        (Lang::En, TapALink) => "Tap a link to see its bandwidth, latency and load.",
        (Lang::Zh, TapALink) => "轻触链路，查看其带宽、时延与负载。",
        (Lang::En, KeysHint) => "Keys: space play/pause · ← → step (also on the time slider) · Home/End",
        (Lang::Zh, KeysHint) => "快捷键：空格 播放/暂停 · ← → 单步（时间滑块上同样适用）· Home/End",
        (Lang::En, TouchHint) => "Tap ▶ to play, the arrows to step; drag the time bar to scrub.",
        (Lang::Zh, TouchHint) => "轻触 ▶ 播放，轻触箭头单步；拖动时间条可快进或回退。",
        (Lang::En, TopologyLabel) => "The cluster's topology, each link coloured by its load at the playhead",
        (Lang::Zh, TopologyLabel) => "集群拓扑图，每条链路按播放头时刻的负载着色",
        (Lang::En, TimeSlider) => "Time",
        (Lang::Zh, TimeSlider) => "时间",
        (Lang::En, TryAndQuestion) => "Try this, and a question",
        (Lang::Zh, TryAndQuestion) => "动手试试，以及一个问题",
        (Lang::En, BusiestLinks) => "Busiest links now",
        (Lang::Zh, BusiestLinks) => "此刻最繁忙的链路",
        (Lang::En, BusiestLinksCaption) => "The figure as a table: the links carrying the most at the playhead. Pick one to describe it under the figure.",
        (Lang::Zh, BusiestLinksCaption) => "以表格呈现的图示：播放头时刻负载最高的链路。选择一条，图下会给出它的说明。",
        (Lang::En, Link) => "link",
        (Lang::Zh, Link) => "链路",
        (Lang::En, Load) => "load",
        (Lang::Zh, Load) => "负载",
    }
}
