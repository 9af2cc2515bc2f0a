// Browser benchmarks of the built page in headless Chromium: prints one JSON object per line
// for `cargo xtask bench`. Figures, not pass/fail.
//
// Usage: node tests/e2e/bench.mjs http://127.0.0.1:PORT/

import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.argv[2];
const profile = mkdtempSync(join(tmpdir(), 'fabricscope-bench-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  viewport: { width: 1400, height: 1000 },
});
const page = ctx.pages()[0] ?? (await ctx.newPage());
const report = (bench, fields) => console.log(JSON.stringify({ bench, ...fields }));
const gpuCount = () => page.locator('#topology').getAttribute('data-gpu-count');
async function until(predicate, timeout = 120000) {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeout) throw new Error('timed out');
    await page.waitForTimeout(10);
  }
}

// First interactive render of the default scenario (navigation to the topology drawn).
for (let i = 0; i < 3; i += 1) {
  await page.goto('about:blank');
  const t0 = Date.now();
  await page.goto(base);
  await page.waitForSelector('#topology[data-gpu-count]');
  report('first-render', { ms: Date.now() - t0 });
}

// Simulate + redraw in WASM: one DGX H100 → 8 nodes (64 GPUs), ring AllReduce of 1 GiB.
await page.goto('about:blank');
await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 30, algorithm: 'Ring', protocol: 'Simple', fabric: { topology: 'leaf_spine' } })));
await page.waitForSelector('#topology[data-gpu-count]');
await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
// The longest gap between animation frames while `action` runs until `done`: how long the
// page froze, at worst.
async function longestFreeze(action, done) {
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    window.__watch = true;
    const tick = (t) => { window.__gaps.push(t - last); last = t; if (window.__watch) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  await action();
  await until(done);
  return page.evaluate(() => { window.__watch = false; return Math.max(...window.__gaps); });
}

{
  const t0 = Date.now();
  const freeze = await longestFreeze(() => page.selectOption('#nodes', '8'), async () => (await gpuCount()) === '64');
  report('freeze-8-nodes', { ms: freeze });
  report('wasm-ring-1GiB-64-gpus', { ms: Date.now() - t0, sim_ms: parseFloat(await page.locator('#time').getAttribute('data-sim-ms')) });
}
// Frame times while playing at 64 GPUs: requestAnimationFrame intervals over ~3 s, once the
// busbw chart is filled (while it fills, its workers take both cores of a 2-core machine and
// the frames measure the machine, not the page's drawing).
await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
await page.click('#play');
const stamps = await page.evaluate(() => new Promise((resolve) => {
  const times = [];
  const tick = (t) => { times.push(t); if (times.length < 180) requestAnimationFrame(tick); else resolve(times); };
  requestAnimationFrame(tick);
}));
await page.click('#play');
const deltas = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
report('frame-64-gpus', { p50_ms: deltas[Math.floor(deltas.length * 0.5)], p95_ms: deltas[Math.floor(deltas.length * 0.95)], frames: deltas.length });

// 1,024 GPUs (128 nodes, 1 channel, so the ring settles into a steady state): simulate and
// draw in WASM, then frame times while playing the compact view.
await page.selectOption('#channels', '1');
await until(async () => (await page.locator('#channels').inputValue()) === '1');
await page.waitForTimeout(500);
{
  const t0 = Date.now();
  const freeze = await longestFreeze(() => page.selectOption('#nodes', '128'), async () => (await gpuCount()) === '1024');
  report('freeze-1024-gpus', { ms: freeze });
  report('wasm-ring-1GiB-1024-gpus-1-channel', { ms: Date.now() - t0, sim_ms: parseFloat(await page.locator('#time').getAttribute('data-sim-ms')) });
}
// Plays the compact view for 240 frames and reports the paint cost (sampling + painting) as
// `paint` and the gaps between frames as `frame`, over the last 180: the first second's, while
// V8 optimises the painting code it has just started calling every frame, are reported apart
// (`first_p95_ms`: 33 ms at 1,024 GPUs where the seconds after it are 16.7).
async function playFrames(paint, frame) {
  await page.click('#play');
  const [stamps, costs] = await page.evaluate(() => new Promise((resolve) => {
    const times = [];
    const costs = [];
    const canvas = document.querySelector('#topology');
    const tick = (t) => {
      times.push(t);
      costs.push(canvas.getAttribute('data-frame-ms'));
      if (times.length < 240) requestAnimationFrame(tick); else resolve([times, costs]);
    };
    requestAnimationFrame(tick);
  }));
  await page.click('#play');
  const p = (sorted, q) => sorted[Math.floor(sorted.length * q)];
  const painted = costs.slice(60).filter(Boolean).map(Number).sort((a, b) => a - b);
  report(paint, { p50_ms: p(painted, 0.5), p95_ms: p(painted, 0.95) });
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
  const first = gaps.slice(0, 60).sort((a, b) => a - b);
  const deltas = gaps.slice(60).sort((a, b) => a - b);
  report(frame, { p50_ms: p(deltas, 0.5), p95_ms: p(deltas, 0.95), first_p95_ms: p(first, 0.95), frames: deltas.length });
}
// While the busbw chart of the new scenario fills (its workers on both cores), then once filled.
await playFrames('paint-1024-gpus-filling', 'frame-1024-gpus-filling');
await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
await playFrames('paint-1024-gpus', 'frame-1024-gpus');

// 1,024 GPUs at NCCL's defaults (8 channels): the ring never repeats and runs as an
// extrapolated steady state; how long until its result shows, and the longest freeze meanwhile.
{
  const t0 = Date.now();
  const freeze = await longestFreeze(() => page.selectOption('#channels', 'auto'), async () => (await page.locator('#method').innerText()).includes('extrapolated'));
  report('freeze-1024-gpus-8-channels', { ms: freeze });
  report('wasm-ring-1GiB-1024-gpus-8-channels', { ms: Date.now() - t0, sim_ms: parseFloat(await page.locator('#time').getAttribute('data-sim-ms')) });
}

// The same at the tuner's choice: NVLSTree, shown from part 0 of channels 0 and 1 (77,760 of
// its 2,488,320 transfers, the rest their images) and fitted to NCCL's chunks by a second run;
// how long until it shows, the longest freeze meanwhile, and frame times while it plays. Once
// the 8-channel chart is drawn: a change while its points run terminates their workers, which
// Chromium lets run on for 0.1-0.5 s, two more threads on two cores (the pick then took
// 0.35-0.53 s rather than 0.29).
await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
await page.waitForTimeout(500);
{
  const t0 = Date.now();
  const freeze = await longestFreeze(() => page.selectOption('#algorithm', 'auto'), async () => (await page.locator('p.algo').innerText()).includes('NVLSTree'));
  report('freeze-1024-gpus-nvlstree', { ms: freeze });
  report('wasm-nvlstree-1GiB-1024-gpus', { ms: Date.now() - t0, sim_ms: parseFloat(await page.locator('#time').getAttribute('data-sim-ms')) });
  await playFrames('paint-1024-gpus-nvlstree', 'frame-1024-gpus-nvlstree');
}

// The training view: GPT-3 175B on 256 GPUs simulated and drawn.
{
  await page.evaluate(() => localStorage.removeItem('fabricscope.train'));
  const t0 = Date.now();
  await page.click('#mode-training');
  await page.waitForSelector('#step-time');
  report('wasm-train-gpt3-256-gpus', { ms: Date.now() - t0 });
  // A change of layout: its step and the comparisons after it run in slices.
  const before = await page.locator('#step-time').innerText();
  const gap = await longestFreeze(() => page.selectOption('#micro-batch', '2'), async () => (await page.locator('#step-time').innerText()) !== before && (await page.locator('#fabrics tbody tr').count()) === 4);
  report('freeze-train-change', { ms: gap });
}

// A new 1400x1000 page that records its main thread's long tasks in `window.__long` ({start, ms}).
async function pageWithLongTasks() {
  const fresh = await ctx.newPage();
  await fresh.setViewportSize({ width: 1400, height: 1000 });
  await fresh.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration });
    }).observe({ entryTypes: ['longtask'] });
  });
  return fresh;
}

// The training view opened by link on Llama 2 7B at DP 512 on 64 DGX H100 (its DP rings
// extrapolated): how long until its step shows, and the longest main-thread task after the page
// started (the first view, the step pending, shown) until then; then TP 1 -> 2, the same.
{
  const train = await pageWithLongTasks();
  const job = JSON.parse(decodeURIComponent(page.url().split('#train=')[1]));
  Object.assign(job, { model: 'llama2-7b', tp: 1, pp: 1, dp: 512, micro_batch: 1, global_batch: 512 });
  job.cluster.nodes = 64;
  const t0 = Date.now();
  await train.goto(base + '#train=' + encodeURIComponent(JSON.stringify(job)));
  await train.waitForSelector('#train-pending', { timeout: 120000 });
  const started = await train.evaluate(() => performance.now());
  await train.waitForSelector('#ops td.extrapolated', { timeout: 120000 });
  const shown = Date.now() - t0;
  const longest = () => train.evaluate((from) => Math.max(0, ...window.__long.filter((t) => t.start + t.ms >= from).map((t) => t.ms)), started);
  const opened = await longest();
  const changed = await train.evaluate(() => performance.now());
  const t1 = Date.now();
  await train.selectOption('#tp', '2');
  await train.waitForFunction(() => !document.querySelector('#train-pending') && document.querySelector('#dp').innerText.endsWith('= 256'), null, { timeout: 120000 });
  const changeShown = Date.now() - t1;
  const change = await train.evaluate((from) => Math.max(0, ...window.__long.filter((t) => t.start >= from).map((t) => t.ms)), changed);
  report('train-link-dp-512', { ms: shown, longest_task_ms: opened, change_ms: changeShown, change_task_ms: change });
  await train.close();
}

// The busbw chart at NCCL's defaults, opened from a link: how long from navigation until every
// point is drawn, with the page's workers, and the longest main-thread task after the first
// result showed (the page's own start-up, the WebAssembly compile and first simulation, before).
// Three runs each (one run moved by 30% from one minute to the next): the median, and the range.
for (const nodes of [8, 128]) {
  const runs = [];
  for (let run = 0; run < 3; run += 1) {
    const chart = await pageWithLongTasks();
    let workers = 0;
    chart.on('worker', () => { workers = Math.max(workers, chart.workers().length); });
    const t0 = Date.now();
    await chart.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes, collective: 'all_reduce', size_bytes: 1 << 30 })));
    // At 128 nodes the page shows the tuner's NVLSTree from part 0 of channels 0 and 1: when
    // the results show it, fitted to NCCL's chunks, while the workers fill the chart.
    const pickSeen = nodes === 128
      ? chart.waitForFunction(() => document.querySelector('p.algo')?.innerText.includes('NVLSTree'), null, { timeout: 300000 })
        .then(() => Date.now() - t0, () => NaN)
      : Promise.resolve(NaN);
    await chart.waitForSelector(`#topology[data-gpu-count="${nodes * 8}"]`, { timeout: 120000 });
    const shown = await chart.evaluate(() => performance.now());
    await chart.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 300000 });
    const filled = Date.now() - t0;
    const longest = await chart.evaluate((after) => Math.max(0, ...window.__long.filter((t) => t.start >= after).map((t) => t.ms)), shown);
    const points = await chart.locator('#busbw-chart').getAttribute('data-points');
    runs.push({ filled, longest, workers, points: Number(points), pick: await pickSeen });
    await chart.close();
  }
  const filled = runs.map((r) => r.filled).sort((a, b) => a - b);
  report(`chart-${nodes}-nodes`, {
    ms: filled[1],
    min_ms: filled[0],
    max_ms: filled[2],
    longest_task_ms: Math.max(...runs.map((r) => r.longest)),
    workers: Math.max(...runs.map((r) => r.workers)),
    points: runs[0].points,
    pick_ms: runs.map((r) => r.pick).sort((a, b) => a - b)[1],
  });
}

// AllToAll on 1,024 GPUs at 1 GiB, opened from a link: beyond what the page runs transfer by
// transfer, bounded by max-min sharing. When its result shows (navigation included), and when
// the chart's bounded points are all drawn; three runs, the median.
{
  const runs = [];
  for (let run = 0; run < 3; run += 1) {
    const a2a = await ctx.newPage();
    await a2a.setViewportSize({ width: 1400, height: 1000 });
    const t0 = Date.now();
    await a2a.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 128, collective: 'all_to_all', size_bytes: 1 << 30 })));
    await a2a.waitForFunction(() => document.querySelector('#topology')?.getAttribute('data-gpu-count') === '1024' && !document.querySelector('#progress'), null, { timeout: 120000 });
    const shown = Date.now() - t0;
    await a2a.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 300000 });
    runs.push({ shown, filled: Date.now() - t0, method: await a2a.locator('#method').innerText() });
    await a2a.close();
  }
  const mid = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[1];
  report('alltoall-bounded-1024-gpus', { shown_ms: mid('shown'), filled_ms: mid('filled'), bounded: runs.every((r) => r.method.includes('max-min bound')) });
}

// Broadcast on 4,096 GPUs (512 DGX H100) at 4 MiB, beyond what the page runs transfer by
// transfer: its chain run on fewer nodes on the main thread, a slice at a time, the rest
// extrapolated. The page opens first; then the link: when its result shows, and the longest
// main-thread task from the link until the chart is filled; three runs, the median and the
// longest task of all.
{
  const runs = [];
  for (let run = 0; run < 3; run += 1) {
    const chain = await pageWithLongTasks();
    await chain.goto(base);
    await chain.waitForSelector('#topology[data-gpu-count]', { timeout: 120000 });
    await chain.waitForTimeout(1500);
    const from = await chain.evaluate(() => performance.now());
    const t0 = Date.now();
    const link = '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 512, collective: 'broadcast', size_bytes: 4 << 20 }));
    await chain.evaluate((hash) => { location.hash = hash; }, link);
    await chain.waitForFunction(() => document.querySelector('#topology')?.getAttribute('data-gpu-count') === '4096' && !document.querySelector('#progress'), null, { timeout: 120000 });
    const shown = Date.now() - t0;
    await chain.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 300000 });
    const longest = await chain.evaluate((after) => Math.max(0, ...window.__long.filter((t) => t.start + t.ms >= after).map((t) => t.ms)), from);
    runs.push({ shown, longest, method: await chain.locator('#method').innerText() });
    await chain.close();
  }
  report('chain-4096-gpus', {
    shown_ms: runs.map((r) => r.shown).sort((a, b) => a - b)[1],
    longest_task_ms: Math.max(...runs.map((r) => r.longest)),
    extrapolated: runs.every((r) => r.method.includes('extrapolated chain')),
  });
}

// A phone on a slow network (1.6 Mbit/s down, 150 ms round trip, the CPU 4× slower), nothing
// cached: when the first paint shows (index.html's static page: title, lessons, sketch), and
// when the app has drawn its figure.
{
  const phone = await ctx.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  const cdp = await ctx.newCDPSession(phone);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const t0 = Date.now();
  await phone.goto(base, { waitUntil: 'commit' });
  await phone.waitForSelector('#topology[data-gpu-count]', { timeout: 120000 });
  const interactive = Date.now() - t0;
  const paint = await phone.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
  report('first-paint-throttled', { fcp_ms: paint, interactive_ms: interactive });
  await phone.close();
}

// The same run warm, on a page of its own after everything else (so that no figure above runs
// warmer than it used to): V8 compiles WebAssembly with its baseline compiler first and
// optimises the functions that turn out hot as they run (and the first run grows the memory),
// so the first run after a page loads is slower than the engine is. One node, then 8 nodes
// four times (back to one between them, each chart filled first); the median of the last three.
{
  const warmPage = await ctx.newPage();
  await warmPage.setViewportSize({ width: 1400, height: 1000 });
  const gpus = () => warmPage.locator('#topology').getAttribute('data-gpu-count');
  const settle = () => warmPage.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
  await warmPage.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 30, algorithm: 'Ring', protocol: 'Simple', fabric: { topology: 'leaf_spine' } })));
  await warmPage.waitForSelector('#topology[data-gpu-count]');
  const runs = [];
  for (let i = 0; i < 4; i += 1) {
    await settle();
    await warmPage.selectOption('#nodes', '8');
    await until(async () => (await gpus()) === '64');
    runs.push(parseFloat(await warmPage.locator('#time').getAttribute('data-sim-ms')));
    await settle();
    await warmPage.selectOption('#nodes', '1');
    await until(async () => (await gpus()) === '8');
  }
  const warm = runs.slice(1).sort((a, b) => a - b);
  report('wasm-ring-1GiB-64-gpus-warm', { sim_ms: warm[1], low_ms: warm[0], high_ms: warm[2], first_ms: runs[0] });
  await warmPage.close();
}

await ctx.close();
rmSync(profile, { recursive: true, force: true });
