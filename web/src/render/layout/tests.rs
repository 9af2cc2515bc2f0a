//! Layout tests: nodes side by side, every preset inside its frame, 128 nodes on a phone, links
//! as polylines.

use super::*;
use fabricscope::Scenario;

#[test]
fn two_nodes_sit_side_by_side_and_links_pair_up() {
    let scenario = Scenario { nodes: 2, ..Scenario::default_demo() }.validate().unwrap();
    let topology = scenario.topology();
    let layout = Layout::new(&topology, 1200.0);
    assert_eq!(layout.nodes.len(), 2);
    assert!(layout.nodes[0].x + layout.nodes[0].w < layout.nodes[1].x);
    for (id, _) in topology.links() {
        let forward = &layout.links[id.index()];
        let back = &layout.links[id.reverse().index()];
        assert_eq!(forward.len(), back.len());
        let gap = distance(forward[0], *back.last().unwrap());
        assert!(gap > 5.0 && gap < 7.0, "the two directions sit in separate lanes: {gap}");
    }
    let first = &layout.links[0];
    let middle = ((first[0].0 + first[1].0) / 2.0, (first[0].1 + first[1].1) / 2.0);
    assert_eq!(layout.link_at(middle.0, middle.1), Some(LinkId(0)));
    assert!(layout.labels);
}

#[test]
fn a_phone_keeps_128_nodes_and_their_fabric_in_one_screen() {
    let scenario = Scenario { nodes: 128, ..Scenario::default_demo() }.validate().unwrap();
    let topology = scenario.topology();
    let phone = Layout::new(&topology, 358.0);
    assert!(phone.height < 1.65 * 358.0, "{} px tall on a 358 px figure", phone.height);
    assert!(phone.tiles.iter().all(|t| t.h < TILE_H && t.x + t.w <= 358.0 - MARGIN));
    let nic = topology.vertices().find(|(_, v)| v.kind == VertexKind::Nic).unwrap().0;
    let (tile, mark) = (phone.tiles[0], phone.vertices[nic.0 as usize]);
    assert!(mark.y > tile.y && mark.y + mark.h < tile.y + tile.h);
    let laptop = Layout::new(&topology, 1248.0);
    assert!(laptop.tiles.iter().all(|t| t.h == TILE_H));
}

#[test]
fn every_preset_fits_inside_its_node_frame() {
    for preset in fabricscope::catalog::NODE_PRESETS {
        let scenario = Scenario { preset: preset.id.into(), ..Scenario::default_demo() }.validate().unwrap();
        let topology = scenario.topology();
        let layout = Layout::new(&topology, 1100.0);
        let frame = layout.nodes[0];
        for (id, vertex) in topology.vertices() {
            if vertex.node.is_some() {
                let r = layout.vertex(id);
                assert!(
                    r.x >= frame.x && r.x + r.w <= frame.x + frame.w + 0.01,
                    "{}: {:?} {r:?}",
                    preset.id,
                    vertex.kind
                );
                assert!(r.y >= frame.y && r.y + r.h <= frame.y + frame.h, "{}: {:?}", preset.id, vertex.kind);
            }
        }
    }
}

#[test]
fn points_along_a_polyline() {
    let points = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0)];
    assert_eq!(Layout::point_along(&points, 0.0), (0.0, 0.0));
    assert_eq!(Layout::point_along(&points, 0.5), (0.0, 10.0));
    assert_eq!(Layout::point_along(&points, 1.0), (10.0, 10.0));
}

#[test]
fn a_point_on_a_path_is_the_point_along_its_polyline() {
    let sim = fabricscope::simulate(
        &fabricscope::Scenario { nodes: 2, ..fabricscope::Scenario::default_demo() }.validate().unwrap(),
    )
    .unwrap();
    let layout = Layout::new(&sim.topology, 1100.0);
    for flow in sim.trace.flows.iter().step_by(37) {
        for f in [0.0, 0.13, 0.5, 0.77, 1.0] {
            let (a, b) =
                (layout.point_on_path(&flow.path, f), Layout::point_along(&layout.polyline(&flow.path), f));
            assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }
}
