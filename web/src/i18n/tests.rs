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
