//! The collectives view's reducer, natively: validation, slices, cancel, A/B, the curve, playback.

use super::*;
use crate::state::page_job::chart_sizes;
use fabricscope::collective::Algorithm;

fn state() -> Rc<AppState> {
    Rc::new(AppState::new(page_demo(), Lang::En, false).unwrap())
}

#[test]
fn compare_keeps_a_and_edits_b_on_one_clock() {
    let s = state();
    let a_time = s.sim.summary.time;
    let s = s.reduce(Action::Compare(true));
    assert!(s.editing_b);
    // 16 MiB: simulated at once (`SYNC_TRANSFERS`) even as a Tree in LL's 32 KiB chunks.
    let b = Scenario { nodes: 2, size_bytes: 16 << 20, ..page_demo() };
    let s = s.reduce(Action::SetScenario(Box::new(b)));
    let ((a, a_sim), (b, b_sim)) = s.ab().unwrap();
    assert_eq!((a.nodes, b.nodes), (1, 2));
    assert_eq!(a_sim.summary.time, a_time);
    assert_eq!(s.end(), a_sim.summary.time.max(b_sim.summary.time));
    // Editing A again swaps which one the controls change; nothing is lost.
    let s = s.reduce(Action::EditB(false));
    assert_eq!(s.scenario.nodes, 1);
    let s = s.reduce(Action::SetScenario(Box::new(Scenario { size_bytes: 1 << 20, ..page_demo() })));
    let ((a, _), (b, _)) = s.ab().unwrap();
    assert_eq!((a.size_bytes, b.nodes), (1 << 20, 2));
    // Stopping keeps A.
    let s = s.reduce(Action::EditB(true)).reduce(Action::Compare(false));
    assert!(s.other.is_none() && s.scenario.size_bytes == 1 << 20 && s.scenario.nodes == 1);
}

#[test]
fn stepping_visits_steps_that_start_together() {
    // One DGX H100 at 256 MiB runs NVLS, which issues a step's reduce and the next one's
    // multicast at one time: stepping by time alone skipped every other step.
    let mut s = Rc::new(AppState::new(Scenario::default_demo(), Lang::En, false).unwrap());
    assert_eq!(s.sim.schedule.algorithm, Algorithm::Nvls);
    let starts = s.sim.step_starts.clone();
    assert!(starts.windows(2).filter(|w| w[0] == w[1]).count() > 10, "{starts:?}");
    // NVLS has no launch latency: the run opens on step 0.
    assert_eq!(s.current_step(), Some(0));
    for want in 1..12 {
        let before = s.clone();
        s = s.reduce(Action::StepForward);
        assert_eq!(s.current_step(), Some(want));
        assert_eq!(s.playhead, starts[want as usize]);
        // The views compare states to know whether to redraw: a step that starts with the one
        // before is a change too.
        assert!(*before != *s, "step {want}");
    }
    for want in (0..11).rev() {
        s = s.reduce(Action::StepBack);
        assert_eq!(s.current_step(), Some(want));
    }
    // Moving the playhead otherwise unpins it: the time names the last step started by then.
    s = s.reduce(Action::StepForward);
    assert_eq!(s.current_step(), Some(1));
    let later = SimTime(starts[1].0 + 1);
    s = s.reduce(Action::Seek(later));
    assert_eq!((s.step_pin, s.current_step()), (None, s.sim.step_at(later)));
    assert_eq!(s.current_step(), Some(2));
}

#[test]
fn stepping_walks_the_steps_in_order() {
    let mut s = state();
    assert_eq!(s.stage(), Stage::Launch, "NCCL's launch latency comes first");
    s = s.reduce(Action::StepForward);
    assert_eq!(s.current_step(), Some(0));
    for want in 1..14 {
        s = s.reduce(Action::StepForward);
        assert_eq!(s.current_step(), Some(want));
    }
    s = s.reduce(Action::StepForward);
    assert_eq!(s.current_step(), None, "past the last step the collective is done");
    s = s.reduce(Action::StepBack);
    assert_eq!(s.current_step(), Some(13));
    s = s.reduce(Action::StepBack);
    assert_eq!(s.current_step(), Some(12));
}

#[test]
fn a_bad_scenario_keeps_the_last_good_one() {
    let s = state();
    let good_time = s.sim.summary.time;
    let bad = Scenario { nodes: 99_999, ..page_demo() };
    let s = s.reduce(Action::SetScenario(Box::new(bad)));
    assert!(s.error.as_deref().unwrap().starts_with("nodes: 99999 is out of range"));
    assert_eq!(s.scenario.nodes, 1);
    assert_eq!(s.sim.summary.time, good_time);
    let s = s.reduce(Action::SetScenario(Box::new(Scenario { size_bytes: 1 << 20, ..page_demo() })));
    assert_eq!(s.error, None);
    assert!(s.sim.summary.time < good_time);
}

#[test]
fn a_long_simulation_runs_in_slices_and_can_be_cancelled() {
    let s = state();
    let shown = s.sim.clone();
    let big = Scenario { nodes: 8, ..page_demo() };
    let s = s.reduce(Action::SetScenario(Box::new(big.clone())));
    // 64,512 transfers: pending, and the last result still shown.
    assert!(s.pending.is_some() && Rc::ptr_eq(&s.sim, &shown));
    let cancelled = s.clone().reduce(Action::Cancel);
    assert!(cancelled.pending.is_none() && Rc::ptr_eq(&cancelled.sim, &shown) && cancelled.scenario != big);
    let mut s = s;
    let mut slices = 0;
    while s.pending.is_some() {
        let report = crate::state::slices::pending_slice(&s, now_ms).expect("a slice while pending");
        s = s.reduce(report);
        slices += 1;
        assert!(slices < 1_000, "a pending simulation ends");
    }
    assert_eq!(s.scenario, big);
    assert_eq!(s.sim.summary.n_ranks, 64);
    assert_eq!(
        s.sim.hash_hex(),
        fabricscope::simulate(&big.validate().unwrap()).unwrap().hash_hex(),
        "sliced as whole"
    );
}

#[test]
fn a_change_made_while_another_simulates_builds_on_it() {
    let s = state();
    let shown = s.scenario.clone();
    let big = Scenario { nodes: 8, ..page_demo() };
    let s = s.reduce(Action::SetScenario(Box::new(big.clone())));
    assert!(s.pending.is_some() && s.scenario == shown);
    // The controls edit the requested scenario: the fabric changes on 8 nodes, not on 1.
    assert_eq!(s.requested(), &big);
    let mut edited = s.requested().clone();
    edited.fabric.topology = fabricscope::scenario::FabricTopology::LeafSpine;
    let mut s = s.reduce(Action::SetScenario(Box::new(edited.clone())));
    assert_eq!(s.requested(), &edited);
    while s.pending.is_some() {
        let report = crate::state::slices::pending_slice(&s, now_ms).expect("a slice while pending");
        s = s.reduce(report);
    }
    assert_eq!((s.scenario.nodes, s.sim.summary.n_ranks), (8, 64));
    assert_eq!(s.requested(), &edited);
    // Cancelled, the controls go back to the scenario shown.
    let s = s.reduce(Action::SetScenario(Box::new(Scenario { nodes: 16, ..edited.clone() })));
    assert_eq!(s.requested().nodes, 16);
    assert_eq!(s.reduce(Action::Cancel).requested(), &edited);
}

#[test]
fn a_slice_of_a_replaced_or_cancelled_run_is_ignored() {
    let s = state();
    let first = s.reduce(Action::SetScenario(Box::new(Scenario { nodes: 8, ..page_demo() })));
    let report = crate::state::slices::pending_slice(&first, now_ms).expect("a slice while pending");
    // A newer change replaces the pending run before the slice's report arrives.
    let second = first.reduce(Action::SetScenario(Box::new(Scenario {
        nodes: 8,
        size_bytes: 64 << 20,
        ..page_demo()
    })));
    let after = second.clone().reduce(report);
    assert!(Rc::ptr_eq(&after, &second), "the report of the replaced run changes nothing");
    let cancelled = second.reduce(Action::Cancel);
    let late = Action::ShowReady { id: 0 };
    assert!(Rc::ptr_eq(&cancelled.clone().reduce(late), &cancelled));
}

#[test]
fn the_curve_fills_in_point_by_point_and_restarts_on_new_hardware() {
    let mut s = state();
    assert!(s.curve.points.is_empty());
    let total = s.curve.todo.len();
    for _ in 0..total {
        let report = crate::state::slices::curve_slice(&s, now_ms, crate::state::slices::Helping::Alone)
            .expect("a point to work on");
        s = s.reduce(report);
    }
    assert_eq!(s.curve.points.len(), total);
    assert_eq!(total, 2 * chart_sizes().len(), "AllReduce: a Ring and a Tree curve");
    assert!(s.curve.is_complete());
    assert!(s.curve.points.windows(2).all(|w| w[0].size_bytes <= w[1].size_bytes));
    // A new message size keeps the curve; new hardware starts it again.
    let s = s.reduce(Action::SetScenario(Box::new(Scenario { size_bytes: 1 << 20, ..page_demo() })));
    assert_eq!(s.curve.points.len(), total);
    let s = s.reduce(Action::SetScenario(Box::new(Scenario { nodes: 2, ..page_demo() })));
    assert!(s.curve.points.is_empty() && s.curve.todo.len() == total);
}

#[test]
fn the_curve_is_of_the_hardware_asked_for_while_it_simulates() {
    use crate::state::slices::{curve_slice, Helping};
    let s = state();
    let shown_generation = s.curve.generation;
    let big = Scenario { nodes: 8, ..page_demo() };
    let s = s.reduce(Action::SetScenario(Box::new(big.clone())));
    assert!(s.pending.is_some() && s.scenario.nodes == 1);
    // The curve starts again for the 8 nodes asked for, so its points run meanwhile.
    assert_eq!(s.curve.scenario.nodes, 8);
    assert!(s.curve.generation > shown_generation && s.curve.points.is_empty());
    // A size changed meanwhile keeps it; a cancel goes back to the hardware shown.
    let resized =
        s.clone().reduce(Action::SetScenario(Box::new(Scenario { size_bytes: 1 << 20, ..big.clone() })));
    assert!(resized.curve.same(&s.curve));
    let cancelled = s.clone().reduce(Action::Cancel);
    assert_eq!(cancelled.curve.scenario.nodes, 1);
    assert!(cancelled.curve.generation > s.curve.generation);
    // A link to 8 nodes opens on one node and the 8 nodes' curve.
    let opened = AppState::new(big, Lang::En, false).unwrap();
    assert_eq!((opened.scenario.nodes, opened.curve.scenario.nodes), (1, 8));
    // The link's own run lets the chart's workers run beside it; a change the reader made does not.
    assert!(opened.pending.as_ref().is_some_and(|p| p.opening));
    assert!(s.pending.as_ref().is_some_and(|p| !p.opening));
    // The main thread beside a worker takes the last open point the worker does not run; the
    // worker's point and the main thread's end up in chart order whichever lands first.
    let s = cancelled;
    let keys: Vec<PointKey> = s.curve.todo.iter().copied().collect();
    let (front, back) = (keys[0], *keys.last().unwrap());
    let busy = [back];
    let Some(Action::Curve { key, .. }) = curve_slice(&s, now_ms, Helping::Beside(&busy)) else {
        panic!("a point for the main thread")
    };
    assert_eq!(key, keys[keys.len() - 2], "the last open point no worker runs");
    let mut s = s;
    while s.curve.open().any(|k| k == back) {
        let report = curve_slice(&s, now_ms, Helping::Beside(&[front])).expect("a point");
        let Action::Curve { key, .. } = &report else { panic!("a curve report") };
        assert_eq!(*key, back, "the main thread keeps to its point");
        s = s.reduce(report);
    }
    assert!(s.curve.points.is_empty() && s.curve.early.len() == 1, "the back point waits its turn");
    assert!(s.curve.main_point().is_none());
    let mut alone = s;
    while !alone.curve.is_complete() {
        let report = curve_slice(&alone, now_ms, Helping::Alone).expect("a point");
        alone = alone.reduce(report);
    }
    assert_eq!(alone.curve.points.len(), keys.len());
    assert!(alone.curve.points.windows(2).all(|w| w[0].size_bytes <= w[1].size_bytes));
}

#[test]
fn frames_advance_only_while_playing() {
    let s = state();
    let s = s.reduce(Action::Frame { now_ms: 0.0 });
    assert_eq!(s.playhead, SimTime::ZERO);
    let s = s
        .reduce(Action::TogglePlay)
        .reduce(Action::Frame { now_ms: 1000.0 })
        .reduce(Action::Frame { now_ms: 1100.0 });
    // 100 ms of a 12 s run.
    let want = (s.end().as_ns() as f64 * 0.1 / SECONDS_PER_RUN).round() as u64;
    assert_eq!(s.playhead.as_ns(), want);
    let mut s = s;
    for i in 0..200 {
        s = s.reduce(Action::Frame { now_ms: 1100.0 + 100.0 * i as f64 });
    }
    assert!(!s.playing, "playback stops at the end");
    assert_eq!(s.playhead, s.end());
}

#[test]
fn a_looping_figure_holds_its_end_then_plays_again() {
    let mut s = Rc::new(AppState { looping: true, ..(*state()).clone() }).reduce(Action::TogglePlay);
    // 12 s of frames reach the end; it is held, still playing.
    let mut now = 0.0;
    while s.playhead < s.end() {
        s = s.reduce(Action::Frame { now_ms: now });
        now += 100.0;
    }
    assert!(s.playing && s.end_reached_ms.is_some());
    s = s.reduce(Action::Frame { now_ms: now + LOOP_HOLD_MS / 2.0 });
    assert_eq!(s.playhead, s.end(), "held at the end");
    s = s.reduce(Action::Frame { now_ms: now + LOOP_HOLD_MS + 1.0 });
    assert_eq!(s.playhead, SimTime::ZERO, "and back to the start");
    assert!(s.playing);
}

/// A curve's points left off (beyond the page, or a forced tree that ran the best ring row
/// instead) are said as runs of consecutive sizes, per curve, and never drawn on another's.
#[test]
fn a_curve_says_which_of_its_sizes_it_left_off() {
    let scenario = Scenario { nodes: 2, nvls: true, ..page_demo() };
    let curve = Curve::of(&scenario, 0);
    let keys: Vec<PointKey> = curve.todo.to_vec();
    assert!(keys.contains(&(1 << 30, Some(Algorithm::NvlsTree))), "NVLSTree is drawn across H100 nodes");
    let valid = scenario.validate().unwrap();
    let template = fabricscope::sweep_size(&valid, 1 << 20, false).unwrap();
    let mut curve = curve;
    for &(size, algorithm) in &keys {
        let point = |ran: Algorithm| {
            PointOutcome::Point(Box::new(fabricscope::SweepPoint {
                size_bytes: size,
                algorithm: ran,
                ..template.clone()
            }))
        };
        let outcome = match (size, algorithm) {
            (s, Some(Algorithm::NvlsTree)) if s >= 32 << 20 => PointOutcome::Skipped,
            (1024, Some(Algorithm::Tree)) => PointOutcome::Skipped,
            (4096, Some(Algorithm::Tree)) => point(Algorithm::Ring),
            (_, ran) => point(ran.unwrap_or(Algorithm::Ring)),
        };
        curve = curve.with(0, (size, algorithm), outcome).expect("a point still to show").0;
    }
    assert!(curve.is_complete());
    let ring_points = curve.points.iter().filter(|p| p.algorithm == Algorithm::Ring).count();
    assert_eq!(ring_points, chart_sizes().len(), "the ring row a forced tree ran is not drawn");
    let gaps: Vec<(String, u64, u64, bool)> =
        curve.left_off().into_iter().map(|g| (g.curve, g.first, g.last, g.open)).collect();
    assert_eq!(
        gaps,
        vec![
            ("Tree".to_string(), 1024, 1024, false),
            ("Tree".to_string(), 4096, 4096, false),
            ("NVLSTree".to_string(), 32 << 20, 4 << 30, true),
        ]
    );
    assert_eq!(
        crate::i18n::chart_left_off(Lang::En, gaps.iter().map(|g| (g.0.as_str(), g.1, g.2, g.3))),
        "Left off the chart, beyond what the page simulates at this scale: Tree 1 KiB; Tree 4 KiB; NVLSTree from 32 MiB."
    );
}

/// The chart at 1,024 H100 GPUs draws NVLSTree where NCCL picks it: a forced NVLSTree beyond the
/// page's budget runs from part 0 of channels 0 and 1 (`Admission::Channels`), and gives the
/// command line's own row, to the bit.
#[test]
fn the_chart_runs_a_forced_nvlstree_at_1024_gpus_from_the_channels_that_stand_for_all() {
    use crate::state::slices::{point_job, point_of};
    let scenario = Scenario { nodes: 128, nvls: true, algorithm: Some(Algorithm::NvlsTree), ..page_demo() };
    for size in [32u64 << 20, 1 << 30] {
        let point = Scenario { size_bytes: size, ..scenario.clone() };
        let valid = point.validate().unwrap();
        assert!(
            matches!(
                valid.admit(crate::state::page_job::PAGE_BUDGET),
                fabricscope::plan::Admission::Channels { .. }
            ),
            "{size} B is beyond the page whole"
        );
        let job = point_job(&point).unwrap_or_else(|_| panic!("{size} B: a point job"));
        let PointOutcome::Point(got) = point_of(job.run()) else { panic!("{size} B: a point") };
        let row = fabricscope::sweep_size(&valid, size, false).unwrap();
        assert_eq!(got.algorithm, Algorithm::NvlsTree);
        // 32 MiB: NCCL's 8 chunks per part; 1 GiB: its 256, fitted from 16 and 32.
        let method =
            if size < 1 << 30 { fabricscope::Method::Symmetric } else { fabricscope::Method::ChunkFit };
        assert_eq!(got.method, method);
        assert_eq!(got.chunk_fit, row.chunk_fit);
        assert_eq!(got.time_us.to_bits(), row.time_us.to_bits(), "{size} B");
        assert_eq!(got.busbw_gbyte_per_s.to_bits(), row.busbw_gbyte_per_s.to_bits(), "{size} B");
    }
}

/// Under a chart with NVLSTree, its point's chunks against NCCL's: at 1 GiB on 128 H100 nodes
/// 16 chunks of 1 MiB and 32 of 512 KiB per part, fitted to NCCL's 256 of 64 KiB; where the
/// finer run was beyond the page, that the curve understates NCCL's.
#[test]
fn the_chart_says_how_nvlstree_chunks_were_fitted_to_nccls() {
    let s = Scenario {
        nodes: 128,
        size_bytes: 1 << 30,
        algorithm: Some(Algorithm::NvlsTree),
        ..Scenario::default_demo()
    };
    let row = fabricscope::sweep_size(&s.validate().unwrap(), 1 << 30, false).unwrap();
    let fit = row.chunk_fit.expect("fitted at 1 GiB");
    let en = crate::i18n::nvls_tree_chunking(Lang::En, 1 << 30, 8, &fit);
    assert!(en.contains("256 chunks of 64 KiB") && en.contains("runs 16 of 1 MiB and 32 per part"), "{en}");
    let zh = crate::i18n::nvls_tree_chunking(Lang::Zh, 1 << 30, 8, &fit);
    assert!(zh.contains("256 个 64 KiB") && zh.contains("每分片 16 块"), "{zh}");
    let unfitted = fabricscope::ChunkFit { fine_ns: None, ..fit };
    let en = crate::i18n::nvls_tree_chunking(Lang::En, 1 << 30, 8, &unfitted);
    assert!(en.contains("understates NCCL's"), "{en}");
}

/// The workers take the size shown first, and its points are found as soon as they arrive,
/// ahead of their turn to be drawn: the results' figures of the tuner's pick need not wait for
/// the chart to fill up to that size.
#[test]
fn the_size_shown_goes_first_and_its_points_are_found_before_their_turn() {
    let scenario = Scenario { nodes: 2, nvls: true, ..page_demo() };
    let curve = Curve::of(&scenario, 0);
    let first: Vec<PointKey> = curve.open_from(1 << 30).take(3).collect();
    assert_eq!(
        first,
        vec![
            (1 << 30, Some(Algorithm::Ring)),
            (1 << 30, Some(Algorithm::Tree)),
            (1 << 30, Some(Algorithm::NvlsTree))
        ]
    );
    assert_eq!(curve.open_from(1 << 30).count(), curve.open().count(), "every point still goes");
    // Threads take the size shown first whichever end they work from, then one from the front
    // and one from the back of the chart, until every point is taken once.
    let mut taken: Vec<PointKey> = Vec::new();
    for from_back in [false, true, false] {
        taken.push(curve.next_open(1 << 30, &taken, from_back).unwrap());
    }
    assert_eq!(taken, first, "the size shown first, from either end");
    let sizes = fabricscope::sweep_sizes(1 << 10, 4 << 30, 2);
    let front = curve.next_open(1 << 30, &taken, false).unwrap();
    let back = curve.next_open(1 << 30, &taken, true).unwrap();
    assert_eq!((front.0, back.0), (sizes[0], *sizes.last().unwrap()), "{front:?} {back:?}");
    let mut ends = taken.clone();
    while let Some(key) = curve.next_open(1 << 30, &ends, ends.len() % 2 == 0) {
        assert!(!ends.contains(&key), "{key:?} taken twice");
        ends.push(key);
    }
    assert_eq!(ends.len(), curve.open().count(), "every point taken once");
    let valid = scenario.validate().unwrap();
    let template = fabricscope::sweep_size(&valid, 1 << 20, false).unwrap();
    let tree = PointOutcome::Point(Box::new(fabricscope::SweepPoint {
        size_bytes: 1 << 30,
        algorithm: Algorithm::NvlsTree,
        busbw_gbyte_per_s: 123.0,
        ..template
    }));
    let (curve, _) = curve.with(0, (1 << 30, Some(Algorithm::NvlsTree)), tree).unwrap();
    assert!(curve.points.is_empty(), "not drawn before the sizes ahead of it");
    assert_eq!(curve.point_at(1 << 30, Algorithm::NvlsTree).map(|p| p.busbw_gbyte_per_s), Some(123.0));
    assert!(curve.point_at(1 << 30, Algorithm::Ring).is_none());
    assert!(!curve.open().any(|key| key == (1 << 30, Some(Algorithm::NvlsTree))), "not taken again");
}

#[test]
fn a_run_fitted_to_nccls_chunks_is_done_when_its_animation_ends() {
    // 2 DGX H100 at 1 GiB: NVLSTree, whose run shown (16 chunks per part) ends after the time
    // fitted to NCCL's 128: the step text follows the run to its end, not "done" before it.
    let scenario = Scenario {
        nodes: 2,
        size_bytes: 1 << 30,
        nvls: true,
        algorithm: Some(Algorithm::NvlsTree),
        ..page_demo()
    };
    let sim = simulate_in_page(&scenario.validate().unwrap()).unwrap();
    assert!(sim.chunk_fit.is_some() && sim.shown_end() > sim.summary.time);
    let mut s = (*state()).clone();
    s.sim = Rc::new(sim);
    s.playhead = SimTime(s.sim.summary.time.0 + 1);
    assert!(matches!(s.stage(), Stage::Step(_)), "{:?}", s.stage());
    s.playhead = s.sim.shown_end();
    assert_eq!(s.stage(), Stage::Done);
}

#[test]
fn the_shown_tree_is_the_curves_point_the_workers_left_to_it() {
    // The link's own run, NVLSTree at 1 GiB (whole on 8 DGX H100, from its first channels on
    // 128), is the chart's point of NVLSTree forced at that size, to the bit: shown, it fills
    // that point (`AppState::share_point`), which the workers left (`feed_curve`).
    for nodes in [8, 128] {
        let scenario = Scenario { nodes, size_bytes: 1 << 30, ..Scenario::default_demo() };
        let sim = simulate_in_page(&scenario.validate().unwrap()).unwrap();
        assert_eq!(sim.schedule.algorithm, Algorithm::NvlsTree);
        let key = (1 << 30, Some(Algorithm::NvlsTree));
        let job =
            crate::state::slices::point_job(&crate::state::slices::point_scenario(&scenario, key)).unwrap();
        let worker = crate::state::slices::point_of(job.run());
        assert_eq!(
            PointOutcome::Point(Box::new(fabricscope::sweep_point(&sim, false))),
            worker,
            "{nodes} nodes"
        );
        let mut s = (*state()).clone();
        s.curve = Curve::of(&scenario, 7);
        s.show(scenario.clone(), Rc::new(sim), 0.0);
        assert!(s.curve.point_at(1 << 30, Algorithm::NvlsTree).is_some(), "{nodes} nodes");
        // The tuner's NVLSTree cut into fewer chunks per part than the model's 16, as beyond the
        // page at those (1,024 nodes: 8), is not the forced point: it gives the curve nothing.
        let mut capped = (*s.sim).clone();
        let fit = capped.chunk_fit.expect("NVLSTree at 1 GiB is fitted to NCCL's chunks");
        capped.chunk_fit = Some(fabricscope::ChunkFit { chunks: 8, fine_ns: None, ..fit });
        let mut s = (*state()).clone();
        s.curve = Curve::of(&scenario, 7);
        s.show(scenario.clone(), Rc::new(capped), 0.0);
        assert!(s.curve.point_at(1 << 30, Algorithm::NvlsTree).is_none(), "{nodes} nodes");
        // A forced run is not the tuner's pick: it gives the curve nothing.
        let forced = Scenario { algorithm: Some(Algorithm::NvlsTree), ..scenario.clone() };
        let mut s = (*state()).clone();
        s.curve = Curve::of(&scenario, 7);
        s.show(forced, s.sim.clone(), 0.0);
        assert!(s.curve.point_at(1 << 30, Algorithm::NvlsTree).is_none());
    }
}
