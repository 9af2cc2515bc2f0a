//! The numbers a lesson's text states, taken from the model at run time: `{key}` in a step's
//! text, try, question or answer is replaced by the figure of that name from the step's own run
//! (the page's run of the step's scenario or job, reported by the view that shows it). A text
//! never types a result by hand; a native test runs every step and fails on a key its run has
//! no figure for, and on a duration or percentage typed outside a key.

use crate::i18n::{vertex_name, Lang};
use fabricscope::train::{StepOp, TrainReport};
use fabricscope::units::format_duration_ns;
use fabricscope::Simulation;
use std::collections::BTreeMap;

/// A step's figures, by key, formatted as the text shows them; a figure that is words (a link's
/// name) has its Chinese form beside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    values: BTreeMap<&'static str, String>,
    zh: BTreeMap<&'static str, String>,
}

/// The keys a collective step's text may use, and what each is (a test holds `of_collective`
/// to this list).
#[cfg(test)]
pub const COLLECTIVE_KEYS: [(&str, &str); 10] = [
    ("time", "the collective's time, as the results panel shows it"),
    ("busbw", "bus bandwidth [GB/s], one decimal"),
    ("algbw", "algorithm bandwidth [GB/s], one decimal"),
    ("steps", "the schedule's steps"),
    ("algorithm", "the algorithm run (NCCL's name)"),
    ("protocol", "the protocol run (NCCL's name)"),
    ("channels", "channels run"),
    ("gpus", "GPUs in the collective"),
    ("bottleneck", "the busiest link, 'from → to'"),
    ("bottleneck_use", "how busy the busiest link was over the run [%]"),
];

/// The keys a training step's text may use (a test holds `of_train` to this list).
#[cfg(test)]
pub const TRAIN_KEYS: [(&str, &str); 16] = [
    ("step_time", "one training step, three significant digits"),
    ("tp_share", "TP communication exposed, share of the step [%]"),
    ("ep_share", "EP AllToAlls exposed, share of the step [%]"),
    ("cp_share", "CP's KV passing exposed, share of the step [%]"),
    ("pp_share", "pipeline sends exposed, share of the step [%]"),
    ("dp_share", "DP gradient sync exposed, share of the step [%]"),
    ("bubble_share", "the pipeline bubble, share of the step [%]"),
    ("exposed_share", "all communication exposed, share of the step [%]"),
    ("mfu", "model FLOPs utilisation [%]"),
    ("memory", "memory per GPU [GB], one decimal"),
    ("activations", "activations per GPU [GB], one decimal"),
    ("tokens_per_s", "tokens per second, whole, with thousands separators"),
    ("allgather_time", "one sequence-parallel AllGather (every TP group at once)"),
    ("dispatch_time", "one MoE dispatch AllToAll (every EP group at once)"),
    ("kv_pass_time", "one ring-attention KV pass (every CP group at once)"),
    ("grad_allreduce_time", "the DP gradient AllReduce (ZeRO 0; all buckets, one call)"),
];

impl Figures {
    /// A collective's figures.
    pub fn of_collective(sim: &Simulation) -> Figures {
        let s = &sim.summary;
        let mut values = BTreeMap::new();
        let mut zh = BTreeMap::new();
        values.insert("time", format_duration_ns(s.time.as_ns() as f64));
        values.insert("busbw", format!("{:.1} GB/s", s.busbw_gbyte_per_s));
        values.insert("algbw", format!("{:.1} GB/s", s.algbw_gbyte_per_s));
        values.insert("steps", sim.n_steps().to_string());
        values.insert("algorithm", sim.schedule.algorithm.nccl_name().to_string());
        values.insert("protocol", sim.schedule.protocol.nccl_name().to_string());
        values.insert("channels", sim.schedule.n_channels.to_string());
        values.insert("gpus", s.n_ranks.to_string());
        if let Some(id) = s.bottleneck {
            let link = sim.topology.link(id);
            for (lang, map) in [(Lang::En, &mut values), (Lang::Zh, &mut zh)] {
                let name = |v| vertex_name(lang, &sim.topology, v);
                map.insert("bottleneck", format!("{} → {}", name(link.src), name(link.dst)));
            }
            values.insert("bottleneck_use", percent(s.bottleneck_utilisation));
        }
        Figures { values, zh }
    }

    /// A training step's figures: every share (0.0% for a part the job has not), and an
    /// operation's time only where the job runs that operation.
    pub fn of_train(r: &TrainReport) -> Figures {
        let b = &r.breakdown;
        let share = |ns: f64| percent(ns / r.step_ns);
        let mut values = BTreeMap::new();
        values.insert("step_time", short_duration(r.step_ns));
        for (key, ns) in [
            ("tp_share", b.tp_ns),
            ("ep_share", b.ep_ns),
            ("cp_share", b.cp_ns),
            ("pp_share", b.pp_ns),
            ("dp_share", b.dp_ns),
            ("bubble_share", b.bubble_ns),
        ] {
            values.insert(key, share(ns));
        }
        values.insert("exposed_share", percent(r.comm_exposed_share));
        values.insert("mfu", percent(r.mfu));
        values.insert("memory", format!("{:.1} GB", r.memory.total / 1e9));
        values.insert("activations", format!("{:.1} GB", r.memory.activations / 1e9));
        values.insert("tokens_per_s", thousands(r.tokens_per_s));
        for (key, op) in [
            ("allgather_time", StepOp::SequenceAllGather),
            ("dispatch_time", StepOp::ExpertDispatch),
            ("kv_pass_time", StepOp::ContextKvPass),
            ("grad_allreduce_time", StepOp::GradAllReduce),
        ] {
            if let Some(found) = r.ops.iter().find(|o| o.op == op) {
                values.insert(key, short_duration(found.time_ns as f64));
            }
        }
        Figures { values, zh: BTreeMap::new() }
    }

    /// A figure as the English text states it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// A figure as a text in `lang` states it.
    pub fn get_in(&self, key: &str, lang: Lang) -> Option<&str> {
        match lang {
            Lang::Zh => self.zh.get(key).map(String::as_str).or_else(|| self.get(key)),
            Lang::En => self.get(key),
        }
    }

    #[cfg(test)]
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.values.keys().copied()
    }
}

/// `text` with each `{key}` replaced by its figure; a key with no figure yet (the step's run
/// not shown yet, or the reader changed the scenario first) reads "…".
pub fn fill(text: &str, figures: Option<&Figures>, lang: Lang) -> String {
    let mut out = String::with_capacity(text.len());
    walk(text, |piece| match piece {
        Piece::Text(text) => out.push_str(text),
        Piece::Key(key) => out.push_str(figures.and_then(|f| f.get_in(key, lang)).unwrap_or("…")),
    });
    out
}

/// The keys a text uses, in order.
#[cfg(test)]
pub fn keys(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    walk(text, |piece| {
        if let Piece::Key(key) = piece {
            found.push(key);
        }
    });
    found
}

/// A run of a text, or one of its `{key}`s.
enum Piece<'t> {
    Text(&'t str),
    Key(&'t str),
}

/// Hands `each` the pieces of `text` in order; a brace that opens no key stays text.
fn walk<'t>(text: &'t str, mut each: impl FnMut(Piece<'t>)) {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}').filter(|&close| is_key(&after[..close])) {
            Some(close) => {
                each(Piece::Text(&rest[..open]));
                each(Piece::Key(&after[..close]));
                rest = &after[close + 1..];
            }
            None => {
                each(Piece::Text(&rest[..=open]));
                rest = after;
            }
        }
    }
    each(Piece::Text(rest));
}

fn is_key(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Three significant digits for prose: "3.28 s", "14.5 µs", "472 µs".
pub fn short_duration(ns: f64) -> String {
    let (value, unit) = match ns {
        ns if ns < 1e3 => (ns, "ns"),
        ns if ns < 1e6 => (ns / 1e3, "µs"),
        ns if ns < 1e9 => (ns / 1e6, "ms"),
        ns => (ns / 1e9, "s"),
    };
    let decimals = match value {
        v if v < 9.995 => 2,
        v if v < 99.95 => 1,
        _ => 0,
    };
    format!("{value:.decimals$} {unit}")
}

/// A whole number with thousands separators: "12,345".
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && c != '-' && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_filled_and_other_braces_left_alone() {
        let mut figures = Figures::default();
        figures.values.insert("busbw", "361.2 GB/s".into());
        let text = "busbw {busbw}, {time} later; a set {1, 2} and {Not a key}";
        assert_eq!(keys(text), ["busbw", "time"]);
        assert_eq!(
            fill(text, Some(&figures), Lang::En),
            "busbw 361.2 GB/s, … later; a set {1, 2} and {Not a key}"
        );
        assert_eq!(fill("{busbw}", None, Lang::En), "…");
        assert_eq!(fill("unclosed {busbw", Some(&figures), Lang::Zh), "unclosed {busbw");
        figures.zh.insert("bottleneck", "节点 0 的网卡 3 → 叶交换机 3".into());
        figures.values.insert("bottleneck", "node 0 NIC 3 → leaf 3".into());
        assert_eq!(fill("{bottleneck}", Some(&figures), Lang::Zh), "节点 0 的网卡 3 → 叶交换机 3");
        assert_eq!(fill("{bottleneck}", Some(&figures), Lang::En), "node 0 NIC 3 → leaf 3");
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(short_duration(3_280_000_000.0), "3.28 s");
        assert_eq!(short_duration(14_480.0), "14.5 µs");
        assert_eq!(short_duration(472_300.0), "472 µs");
        assert_eq!(short_duration(999.0), "999 ns");
        assert_eq!(short_duration(9_996.0), "10.0 µs");
        assert_eq!(thousands(1_234_567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
    }
}
