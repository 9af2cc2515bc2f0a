//! The names a fabric switch's box can hold: its full name ("叶交换机 12", "leaf 12"), else a
//! short one ("叶12", "L12"), else none, decided for its whole row alike (measured with the
//! row's highest number), so that a row is never half named.

use super::layout::Rect;
use super::surface::Surface;
use crate::i18n::Lang;
use fabricscope::topology::{Topology, VertexId, VertexKind};

/// Each fabric switch row's highest number: leaves, spines, cores.
pub struct SwitchRows {
    highest: [u32; 3],
}

impl SwitchRows {
    pub fn of(topology: &Topology) -> SwitchRows {
        let mut highest = [0; 3];
        for (_, vertex) in topology.vertices() {
            if let Some(row) = row(vertex.kind) {
                highest[row] = highest[row].max(vertex.local);
            }
        }
        SwitchRows { highest }
    }

    /// The name switch `id`'s box `rect` shows, given its full name `full`, in the 11 px font
    /// this sets; `None` for a vertex that is no fabric switch, or a box too narrow for either.
    pub fn label<S: Surface>(
        &self,
        ctx: &S,
        (lang, topology): (Lang, &Topology),
        id: VertexId,
        rect: &Rect,
        full: &str,
    ) -> Option<String> {
        let vertex = topology.vertex(id);
        let row = row(vertex.kind).filter(|_| rect.w >= 16.0)?;
        ctx.set_font("11px system-ui, sans-serif");
        let (own, widest) = (vertex.local.to_string(), self.highest[row].to_string());
        let fits = |name: &str| ctx.text_width(&name.replace(&own, &widest)) <= rect.w - 4.0;
        if fits(full) {
            return Some(full.to_string());
        }
        let short = crate::i18n::switch_short_name(lang, topology, id);
        fits(&short).then_some(short)
    }
}

fn row(kind: VertexKind) -> Option<usize> {
    match kind {
        VertexKind::Leaf => Some(0),
        VertexKind::Spine => Some(1),
        VertexKind::Core => Some(2),
        _ => None,
    }
}
