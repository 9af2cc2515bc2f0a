//! The moving flows a batch's changes reach: max-min shares decompose over the components of
//! flows that share a link, directly or through each other, so only those are solved again.

use crate::topology::LinkId;
use crate::trace::FlowRecord;

/// Finds the moving flows connected to a set of links through shared links.
pub(super) struct Component {
    flow_mark: Vec<u32>,
    link_mark: Vec<u32>,
    generation: u32,
    flows: Vec<u32>,
    queue: Vec<LinkId>,
}

impl Component {
    pub(super) fn new(n_flows: usize, n_links: usize) -> Component {
        Component {
            flow_mark: vec![0; n_flows],
            link_mark: vec![0; n_links],
            generation: 0,
            flows: Vec::new(),
            queue: Vec::new(),
        }
    }

    /// The moving flows reachable from `links`, in flow order.
    pub(super) fn collect(&mut self, links: &[LinkId], on_link: &[Vec<u32>], flows: &[FlowRecord]) -> &[u32] {
        self.generation += 1;
        let g = self.generation;
        self.flows.clear();
        self.queue.clear();
        for &link in links {
            if self.link_mark[link.index()] != g {
                self.link_mark[link.index()] = g;
                self.queue.push(link);
            }
        }
        while let Some(link) = self.queue.pop() {
            for &f in &on_link[link.index()] {
                if self.flow_mark[f as usize] == g {
                    continue;
                }
                self.flow_mark[f as usize] = g;
                self.flows.push(f);
                for &next in &flows[f as usize].path {
                    if self.link_mark[next.index()] != g {
                        self.link_mark[next.index()] = g;
                        self.queue.push(next);
                    }
                }
            }
        }
        self.flows.sort_unstable();
        &self.flows
    }
}
