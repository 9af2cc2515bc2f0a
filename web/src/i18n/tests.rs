//! The narration of a step in Chinese: a space between Chinese and Latin text, none between
//! Chinese and Chinese.

use super::*;

fn info(op: ChunkOp) -> StepInfo {
    StepInfo {
        step: 9,
        n_steps: 64,
        phase: Phase::ReduceScatter,
        transfers: 8128,
        src: 1023,
        dst: 1015,
        chunk: 0,
        channel: 0,
        op,
        bytes: 1 << 20,
        via: LinkKind::Network,
        hop: Hop::Peer,
        streamed: None,
    }
}

#[test]
fn a_step_reads_without_a_space_between_chinese_words() {
    let nodes = |rank: u32| gpu_name(Lang::Zh, Some(rank / 8), rank % 8, true);
    let text = step_text(Lang::Zh, &info(ChunkOp::Reduce), &nodes, "InfiniBand");
    assert!(text.contains("发给节点 126 的 GPU 7，后者将其累加到自己的副本上"), "{text}");
    let one_node = |rank: u32| gpu_name(Lang::Zh, Some(0), rank % 8, false);
    let text = step_text(Lang::Zh, &info(ChunkOp::Copy), &one_node, "InfiniBand");
    assert!(text.contains("发给 GPU 7，后者将其保存下来"), "{text}");
    let english = step_text(
        Lang::En,
        &info(ChunkOp::Reduce),
        &|r| gpu_name(Lang::En, Some(r / 8), r % 8, true),
        "InfiniBand",
    );
    assert!(english.contains("to node 126 GPU 7 over"), "{english}");
}

/// A chain under LL128 says why one chunk is on several hops at once, in both languages.
#[test]
fn a_streamed_step_says_its_lines_are_forwarded_as_they_arrive() {
    let gpus = |rank: u32| gpu_name(Lang::En, Some(rank / 8), rank % 8, true);
    let streamed =
        StepInfo { streamed: Some(fabricscope::collective::Protocol::Ll128), ..info(ChunkOp::Copy) };
    let text = step_text(Lang::En, &streamed, &gpus, "InfiniBand");
    assert!(text.ends_with("Under LL128 each GPU forwards a line (its data and its flag) as soon as it arrives, so one chunk is on several hops at once."), "{text}");
    let zh = |rank: u32| gpu_name(Lang::Zh, Some(rank / 8), rank % 8, true);
    let text = step_text(Lang::Zh, &streamed, &zh, "InfiniBand");
    assert!(text.ends_with("个传输同时进行。在 LL128 下，每块 GPU 收到一行（数据连同标志）就立刻转发，所以同一块数据会同时出现在好几跳上。"), "{text}");
    assert!(!step_text(Lang::En, &info(ChunkOp::Copy), &gpus, "InfiniBand").contains("line"));
}
