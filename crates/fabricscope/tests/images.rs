//! A tree too big to build whole shown from the channels that stand for all
//! (`Job::showing_images`, the page's): its lanes' trace on their own links, the rest σ's images
//! (`Simulation::images`), against the same tree run whole and expanded: the same figures, link
//! bytes and hash, bit for bit, and at every time every link's rate.

use fabricscope::collective::Algorithm;
use fabricscope::plan::{Budget, ENGINE_BUDGET, PAGE_BUDGET};
use fabricscope::units::SimTime;
use fabricscope::{Job, Mode, Scenario, Simulation};

fn shown(s: &Scenario, budget: Budget) -> Simulation {
    let valid = s.validate().unwrap();
    Job::within(&valid, Mode::Auto, budget).showing_images().hashed().run().unwrap()
}

#[test]
fn a_tree_shown_from_its_first_channels_is_the_whole_run_expanded() {
    // 16 DGX H100 at 8 channels, 128 MiB: the big plan (a ring of 260,096 transfers) picks
    // NVLSTree, 311,040 transfers whole (it fits the engine: built, run folded and expanded);
    // within 100,000, part 0 of channels 0 and 1 (9,720) are shown for all.
    let s = Scenario { nodes: 16, size_bytes: 128 << 20, ..Scenario::default_demo() };
    let valid = s.validate().unwrap();
    let whole = Job::new(&valid, Mode::Auto).hashed().run().unwrap();
    let lean = shown(&s, Budget { transfers: 100_000, ..ENGINE_BUDGET });
    assert_eq!(whole.schedule.algorithm, Algorithm::NvlsTree);
    assert!(whole.images.is_none());
    let images = lean.images.as_ref().expect("shown from its first channels");
    assert_eq!(lean.schedule.algorithm, Algorithm::NvlsTree);
    assert_eq!(lean.n_transfers(), whole.n_transfers());
    assert_eq!(lean.schedule.transfers.len() as u64 * images.share(), whole.n_transfers());
    assert_eq!(lean.tuner_pick_not_run(), None);
    assert_eq!(lean.summary, whole.summary);
    assert_eq!(lean.chunk_fit, whole.chunk_fit);
    assert_eq!(lean.link_bytes, whole.link_bytes);
    assert_eq!(lean.trace.link_peak, whole.trace.link_peak);
    assert_eq!(lean.hash_hex(), whole.hash_hex());
    assert_eq!(lean.step_starts, whole.step_starts);
    // Every link's rate at 97 times through the run: the lanes that ran spread over their
    // images, the whole's up to the order the sums are taken in. The chunks in flight are the
    // lanes that ran, each as the whole has it.
    let end = whole.end().0;
    let mut busy = 0;
    for k in 0..97 {
        let t = SimTime(end * k / 97);
        let (a, b) = (whole.sample(t), lean.sample(t));
        for (l, (&x, &y)) in a.link_rate.iter().zip(&b.link_rate).enumerate() {
            assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "link {l} at {t:?}: {x} against {y}");
            busy += usize::from(x > 0.0);
            // The flows moving over it, its images' included (the link's hover text).
            let link = fabricscope::topology::LinkId(l as u32);
            if l % 7 == 0 || x > 0.0 && l % 3 == 0 {
                assert_eq!(lean.moving_on(&b, link), whole.moving_on(&a, link), "link {l} at {t:?}");
            }
        }
        assert_eq!(b.in_flight.len() as u64 * images.share(), a.in_flight.len() as u64, "at {t:?}");
    }
    assert!(busy > 10_000, "{busy}");
    // Each step's transfers, as the step text counts them: the whole's.
    for step in 0..whole.n_steps() {
        let (a, b) = (whole.step_info(step, whole.focus_rank), lean.step_info(step, lean.focus_rank));
        assert_eq!(a.map(|a| a.transfers), b.map(|b| b.transfers), "step {step}");
    }
}

#[test]
fn the_page_shows_nvlstree_on_1024_gpus_as_the_command_lines_row_runs_it() {
    // 128 DGX H100 at 1 GiB: NVLSTree's 2,488,320 transfers, shown from part 0 of channels 0 and
    // 1 (77,760) within the page's budget, its time fitted to NCCL's chunks by a run at 32 per
    // part (155,520): the command line's row, hash and figures included.
    let s = Scenario { nodes: 128, size_bytes: 1 << 30, ..Scenario::default_demo() };
    let valid = s.validate().unwrap();
    let page = shown(&s, PAGE_BUDGET);
    let row = Job::new(&valid, Mode::Auto).point_hashed().run().unwrap();
    assert_eq!(page.schedule.algorithm, Algorithm::NvlsTree);
    assert_eq!((page.schedule.transfers.len(), page.n_transfers()), (77_760, 2_488_320));
    assert_eq!(page.hash_hex(), row.trace_hash);
    assert_eq!(page.summary.time.0 as f64 / 1e3, row.time_us);
    assert_eq!(page.summary.busbw_gbyte_per_s, row.busbw_gbyte_per_s);
    assert_eq!(page.summary.method, row.method);
    assert_eq!(page.chunk_fit, row.chunk_fit);
    // Without `showing_images` the page's job runs the best ring row, which says what the tuner
    // picked (`tuner_pick_not_run`).
    let ring = Job::within(&valid, Mode::Auto, PAGE_BUDGET).run().unwrap();
    assert_eq!(ring.tuner_pick_not_run(), Some(Algorithm::NvlsTree));
}

#[test]
fn the_finer_run_given_out_as_a_task_gives_the_same_fit() {
    // The page gives NVLSTree's finer run to a Web Worker (`Job::finer_task`) and hands its end
    // back (`Job::finer_done`): before the job reaches its fit, or once it has begun the run
    // itself. Either way the result is the job's alone, to the bit.
    let s = Scenario { nodes: 128, size_bytes: 1 << 30, ..Scenario::default_demo() };
    let valid = s.validate().unwrap();
    let job = || Job::admitted(&valid, PAGE_BUDGET).unwrap().showing_images().hashed();
    let alone = job().run().unwrap();
    for late in [false, true] {
        let mut polled = job();
        let (mut task, mut given) = (None, false);
        let sim = loop {
            if let Some(result) = polled.poll(64) {
                break result.unwrap();
            }
            if let Some(t) = polled.finer_task() {
                assert!(task.is_none(), "given out once");
                task = Some(t);
            }
            let fitting = format!("{polled:?}").contains("fitting");
            if let (Some(t), false) = (&task, given) {
                if !late || fitting {
                    polled.finer_done(t, t.run().unwrap());
                    given = true;
                }
            }
        };
        assert!(given, "late: {late}");
        assert_eq!(task.as_ref().map(|t| (t.channels, t.limit)), Some((8, PAGE_BUDGET.transfers)));
        assert_eq!(
            (sim.summary.clone(), sim.chunk_fit),
            (alone.summary.clone(), alone.chunk_fit),
            "late: {late}"
        );
        assert_eq!(sim.hash_hex(), alone.hash_hex());
    }
}
