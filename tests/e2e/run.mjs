// End-to-end tests of the built page in headless Chromium (Debian's, driven by playwright-core).
//
// Usage: node tests/e2e/run.mjs http://127.0.0.1:PORT/ [screenshot-dir]
// Prints one line per test and a closing "N passed, M failed" line; exits non-zero on failure.

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessTests, checkTests } from './access.mjs';
import { phoneTests } from './phone.mjs';

const base = process.argv[2];
const shots = process.argv[3] ?? 'tests/e2e/out';
if (!base) {
  console.error('usage: node tests/e2e/run.mjs URL [screenshot-dir]');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const origin = new URL(base).origin;
const profile = mkdtempSync(join(tmpdir(), 'fabricscope-chromium-'));
const executablePath = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  viewport: { width: 1400, height: 1000 },
  acceptDownloads: true,
  args,
});

const consoleErrors = [];
const offOrigin = [];
const page = ctx.pages()[0] ?? (await ctx.newPage());
page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
page.on('pageerror', (err) => consoleErrors.push(String(err)));
page.on('request', (req) => {
  const url = req.url();
  if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) offOrigin.push(url);
});

let passed = 0;
let failed = 0;
async function test(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${name}\n     ${String(error?.message ?? error).split('\n').join('\n     ')}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}
const text = (selector) => page.locator(selector).innerText();
const gpuCount = () => page.locator('#topology').getAttribute('data-gpu-count');
// Opens `url` afresh (a fragment change alone would not reload) and waits for `ready`.
async function reopen(url, ready) {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: 60000 });
}

// `body` with the page's worker script unavailable: the page runs everything on its main thread.
async function withoutWorkers(body) {
  await page.route('**/fabricscope-worker.js', (route) => route.abort());
  try {
    return await body();
  } finally {
    await page.unroute('**/fabricscope-worker.js');
  }
}

// Opens `scenario` by link and waits until its `gpus` GPUs are drawn and its run is done; logs
// how long that took (`what`) and checks that no error shows.
async function openAtScale(scenario, gpus, what) {
  const link = base.replace(/#.*$/, '') + '#s=' + encodeURIComponent(JSON.stringify(scenario));
  const t0 = Date.now();
  await reopen(link, '#topology[data-gpu-count]');
  await waitFor(`${gpus} GPUs drawn, the run done`, async () => (await gpuCount()) === String(gpus) && (await page.locator('#progress').count()) === 0, 60000);
  console.log(`     ${what} after ${Date.now() - t0} ms`);
  expect((await page.locator('.error').count()) === 0, await page.locator('.error').allInnerTexts());
}

async function waitFor(description, predicate, timeout = 20000) {
  const start = Date.now();
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() - start > timeout) throw new Error(`timed out waiting for ${description}`);
    await page.waitForTimeout(50);
  }
}

const started = Date.now();
await page.goto(base);
await page.evaluate(() => localStorage.clear());
await page.goto(base);

await test('the page opens on one DGX H100 with 8 GPUs drawn', async () => {
  await page.waitForSelector('#topology[data-gpu-count]', { timeout: 15000 });
  console.log(`     first render after ${Date.now() - started} ms`);
  expect((await gpuCount()) === '8', `drew ${await gpuCount()} GPUs`);
  expect((await text('#step-text')).startsWith('Launch — NCCL starts the kernels'), await text('#step-text'));
  expect((await text('#time')).includes('ms'), `time is ${await text('#time')}`);
});

await test('the topology canvas has something drawn on it', async () => {
  const coloured = await page.evaluate(() => {
    const c = document.querySelector('#topology');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] !== data[i + 1] || data[i + 1] !== data[i + 2]) n += 1;
    return n;
  });
  expect(coloured > 5000, `only ${coloured} coloured pixels`);
});

await test('stepping three times reads step 3 with a named transfer', async () => {
  for (let i = 0; i < 3; i += 1) await page.click('#step-forward');
  const third = await text('#step-text');
  expect(third.startsWith('Step 3 / 14 — reduce-scatter: GPU 0 sends chunk'), third);
  await page.click('#step-forward');
  const step = await text('#step-text');
  expect(step.startsWith('Step 4 / 14 — reduce-scatter: GPU 0 sends chunk'), step);
  expect(step.includes('over NVLink'), step);
  await page.click('#step-back');
  expect((await text('#step-text')).startsWith('Step 3 / 14'), await text('#step-text'));
});

await test('keyboard: space plays, the clock moves, space pauses', async () => {
  await page.click('#to-start');
  // As a user who clicked on the page background: no control has the focus.
  await page.evaluate(() => document.activeElement?.blur());
  const before = await text('#clock');
  await page.keyboard.press('Space');
  await waitFor('the play button to say Pause', async () => (await text('#play')).includes('Pause'));
  await page.waitForTimeout(500);
  await page.keyboard.press('Space');
  await waitFor('the play button to say Play', async () => (await text('#play')).includes('Play'));
  const after = await text('#clock');
  expect(after !== before, `clock stayed at ${before}`);
  const step = await text('#step-text');
  await page.keyboard.press('ArrowRight');
  await waitFor('the next step', async () => (await text('#step-text')) !== step);
  await page.keyboard.press('Home');
  await waitFor('the clock back at 0', async () => (await text('#clock')).startsWith('t = 0 ns'));
});

await test('changing the message size changes the time and busbw', async () => {
  const time = await text('#time');
  const busbw = await text('#busbw');
  await page.locator('#size').fill('20');
  await waitFor('the size label', async () => (await text('#size-label')) === '1 MiB');
  expect((await text('#time')) !== time, `time stayed ${time}`);
  expect((await text('#busbw')) !== busbw, `busbw stayed ${busbw}`);
  await page.locator('#size').fill('28');
  await waitFor('256 MiB again', async () => (await text('#size-label')) === '256 MiB');
});

await test("two nodes draw 16 GPUs and the ring's bottleneck moves to InfiniBand", async () => {
  await page.selectOption('#nodes', '2');
  await waitFor('16 GPUs', async () => (await gpuCount()) === '16');
  // NVLS is off as the page opened; across nodes the results say NCCL has it on, and offer it.
  const off = await text('#nvls-off');
  expect(off.includes('NCCL_NVLS_ENABLE=0') && off.includes('NVLSTree'), off);
  await page.click('#nvls-turn-on');
  await waitFor('NVLS on', async () => (await page.locator('#nvls').isChecked()) && (await page.locator('#nvls-off').count()) === 0);
  await waitFor('the tuner\'s NVLSTree', async () => (await text('p.algo')).includes('NVLSTree'), 60000);
  await page.locator('#nvls').uncheck();
  await waitFor('NVLS off again', async () => !(await text('p.algo')).includes('NVLSTree') && (await page.locator('#nvls-off').count()) === 1, 60000);
  await page.selectOption('#algorithm', 'Ring');
  await waitFor('Ring forced', async () => (await text('.algo')).includes('NCCL_ALGO=Ring'));
  const bottleneck = await text('#bottleneck');
  expect(bottleneck.includes('InfiniBand'), bottleneck);
  expect((await text('#step-text')).startsWith('Launch'), await text('#step-text'));
  for (let i = 0; i < 4; i += 1) await page.click('#step-forward');
  const step = await text('#step-text');
  expect(step.includes('over InfiniBand'), `the followed GPU leaves the node through its NIC: ${step}`);
  await page.screenshot({ path: join(shots, 'two-nodes.png') });
});

await test('a bad value shows a named error and keeps the last good scenario', async () => {
  const time = await text('#time');
  await page.locator('#nic-bw').fill('0');
  await page.locator('#nic-bw').press('Enter');
  await page.locator('#nic-bw').blur();
  await page.waitForSelector('#error');
  const error = await text('#error');
  expect(error.includes('links.nic.bandwidth_gbyte_per_s'), error);
  expect((await text('#time')) === time, 'the result did not change');
  expect((await gpuCount()) === '16', 'the topology is still drawn');
  await page.locator('#error button').click();
  await page.locator('#nic-bw').fill('200');
  await page.locator('#nic-bw').blur();
  await waitFor('a slower time at 200 Gb/s', async () => (await text('#time')) !== time);
  await page.selectOption('#algorithm', 'auto');
});

await test('the busbw chart is drawn', async () => {
  await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 30000 });
  const points = await page.locator('#busbw-chart').getAttribute('data-points');
  expect(points === '46', `${points} points: 23 sizes × Ring and Tree`);
  const coloured = await page.evaluate(() => {
    const c = document.querySelector('#busbw-chart');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 200) n += 1;
    return n;
  });
  expect(coloured > 2000, `only ${coloured} dark pixels`);
});

await test('the busbw chart\'s points run in the page\'s workers, which stop when it is complete; without workers the main thread draws the same curve', async () => {
  const link = base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 2, collective: 'all_reduce', size_bytes: 64 << 20 }));
  const back = page.url();
  let started = 0;
  const onWorker = () => { started += 1; };
  page.on('worker', onWorker);
  await reopen(link, '#busbw-chart[data-complete="true"]');
  page.off('worker', onWorker);
  const chart = page.locator('#busbw-chart');
  const hash = await chart.getAttribute('data-curve-hash');
  expect((await chart.getAttribute('data-workers')) === 'true', 'the workers ran');
  expect(started >= 1, `${started} workers started`);
  expect((await chart.getAttribute('data-points')) === '69', 'every point: Ring, Tree and NVLSTree, 23 sizes');
  await waitFor('the workers stopped', async () => page.workers().length === 0);
  // No worker script: the page says so in the console and fills the curve itself.
  await withoutWorkers(() => reopen(link, '#busbw-chart[data-complete="true"]'));
  expect((await chart.getAttribute('data-workers')) === 'false', 'the main thread ran it');
  const again = await chart.getAttribute('data-curve-hash');
  expect(again === hash, `the same curve: ${again} vs ${hash}`);
  await reopen(back, '#topology[data-gpu-count]');
});

await test('Chinese: the page and the step text switch language', async () => {
  await page.click('#lang-zh');
  await waitFor('Chinese step text', async () => /^(第 |启动)/.test(await text('#step-text')));
  expect((await page.locator('html').getAttribute('lang')) === 'zh-CN', 'html lang');
  await page.reload();
  await page.waitForSelector('#topology[data-gpu-count]');
  expect(/^(第 |启动)/.test(await text('#step-text')), 'the choice is remembered');
  await page.click('#lang-en');
});

await test('screenshots: default scenario mid-step, light and dark', async () => {
  // A fresh load without a scenario in the URL or in this browser: the default scenario.
  await page.evaluate(() => localStorage.removeItem('fabricscope.scenario'));
  await page.goto('about:blank');
  await page.goto(base);
  await page.waitForSelector('#topology[data-gpu-count]');
  await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 30000 });
  expect((await gpuCount()) === '8', 'the default scenario');
  for (let i = 0; i < 2; i += 1) await page.click('#step-forward');
  // Halfway into step 3, so chunks are moving along their links.
  const end = Number(await page.locator('#scrub').getAttribute('max'));
  await page.locator('#scrub').fill(String(Math.round(end * 2.5 / 14)));
  await page.screenshot({ path: join(shots, 'screenshot.png') });
  await page.screenshot({ path: join(shots, 'screenshot-full.png'), fullPage: true });
  await page.click('#theme');
  await page.screenshot({ path: join(shots, 'dark.png') });
  await page.click('#lang-zh');
  await page.screenshot({ path: join(shots, 'dark-zh.png'), fullPage: true });
  await page.click('#lang-en');
  await page.click('#theme');
});

await test('a leaf-spine fabric: picking it redraws the cluster and reports its switches', async () => {
  await page.reload();
  await page.waitForSelector('#topology[data-gpu-count]');
  await page.selectOption('#nodes', '4');
  await page.selectOption('#fabric-topology', 'leaf_spine');
  await waitFor('the fabric summary', async () => (await text('#fabric-summary')).startsWith('8 leaves, 32 spines'));
  // The canvas is painted by an effect after the render that shows the summary.
  await waitFor('32 GPUs drawn', async () => (await gpuCount()) === '32', 30000);
  await page.selectOption('#wiring', 'node');
  await waitFor('node wiring', async () => (await text('#fabric-summary')).startsWith('1 leaves, 32 spines'));
  await page.selectOption('#radix', '16');
  await waitFor('radix 16', async () => (await text('#fabric-summary')).startsWith('4 leaves, 8 spines'));
  await page.selectOption('#routing', 'ecmp');
  const end = Number(await page.locator('#scrub').getAttribute('max'));
  await page.locator('#scrub').fill(String(Math.round(end * 0.4)));
  await page.screenshot({ path: join(shots, 'leaf-spine.png') });
  await page.selectOption('#technology', 'tcp');
  await waitFor('TCP in the summary', async () => (await text('#fabric-summary')).includes('TCP congestion control'));
  // Back to the default fabric, so the tests after this one see NCCL's usual cluster.
  await page.selectOption('#technology', 'infiniband');
  await page.selectOption('#routing', 'default');
  await page.selectOption('#radix', 'default');
  await page.selectOption('#wiring', 'rail');
  await waitFor('the default fabric', async () => (await text('#fabric-summary')).startsWith('8 leaves, 32 spines'));
});

await test('every preset draws its node: DGX-1 mesh and the PCIe server', async () => {
  await page.selectOption('#nodes', '1');
  await page.selectOption('#fabric-topology', 'auto');
  await page.selectOption('#preset', 'dgx-1');
  await waitFor('DGX-1 drawn', async () => (await text('#fabric-summary')).includes('1 leaves'));
  await page.click('#step-forward');
  await waitFor('the DGX-1 text', async () => (await text('#step-text')).includes('over NVLink'));
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 50 && busbw < 80, `DGX-1 busbw ${busbw}`);
  for (let i = 0; i < 3; i += 1) await page.click('#step-forward');
  await page.screenshot({ path: join(shots, 'dgx1.png') });
  await page.selectOption('#preset', 'pcie-h100');
  await waitFor('the PCIe server', async () => (await text('#bottleneck')).includes('UPI') || (await text('#bottleneck')).includes('PCIe'));
  for (let i = 0; i < 3; i += 1) await page.click('#step-forward');
  await page.screenshot({ path: join(shots, 'pcie-server.png') });
  await page.selectOption('#preset', 'custom');
  await page.waitForSelector('#custom-shape');
  await page.selectOption('#custom-shape', 'full_mesh');
  await page.locator('#custom-gpus').fill('6');
  await page.locator('#custom-gpus').blur();
  await waitFor('6 GPUs', async () => (await gpuCount()) === '6');
  await page.screenshot({ path: join(shots, 'custom-mesh.png') });
  await page.selectOption('#preset', 'dgx-h100');
  await page.selectOption('#nodes', '2');
  await waitFor('16 GPUs', async () => (await gpuCount()) === '16');
  const aligned = await text('#time');
  await page.selectOption('#pinning', 'misaligned');
  await waitFor('a slower misaligned run', async () => (await text('#time')) !== aligned);
  await page.screenshot({ path: join(shots, 'misaligned.png') });
  await page.selectOption('#pinning', 'aligned');
});

await test('every collective animates: AllGather, Broadcast, AllToAll', async () => {
  await page.selectOption('#collective', 'all_gather');
  await page.click('#step-forward');
  await waitFor('all-gather steps', async () => (await text('#step-text')).startsWith('Step 1 / 15 — all-gather'));
  await page.selectOption('#collective', 'broadcast');
  await page.click('#step-forward');
  await waitFor('broadcast steps', async () => (await text('#step-text')).includes('— broadcast'));
  await page.selectOption('#collective', 'all_to_all');
  await page.click('#step-forward');
  await waitFor('all-to-all steps', async () => (await text('#step-text')).includes('— all-to-all'));
  const end = Number(await page.locator('#scrub').getAttribute('max'));
  await page.locator('#scrub').fill(String(Math.round(end * 0.5)));
  await page.screenshot({ path: join(shots, 'alltoall.png') });
  await page.selectOption('#collective', 'all_reduce');
});

await test('the tuner picks LL for small messages and Simple for large ones; NCCL_PROTO forces one', async () => {
  await page.locator('#size').fill('10');
  await waitFor('1 KiB', async () => (await text('#size-label')) === '1 KiB');
  await waitFor('LL chosen', async () => (await text('.algo')).includes('NCCL_PROTO=LL'));
  expect(/^(Ring|Tree) \/ LL\s/.test(await page.locator('#tuner tr.chosen').innerText()), await page.locator('#tuner tr.chosen').innerText());
  await page.locator('#size').fill('30');
  await waitFor('Simple chosen', async () => (await text('.algo')).includes('NCCL_PROTO=Simple'));
  await page.selectOption('#protocol', 'LL');
  await waitFor('LL forced', async () => (await text('.algo')).includes('NCCL_PROTO=LL'));
  const forced = parseFloat(await text('#busbw'));
  await page.selectOption('#protocol', 'auto');
  await waitFor('auto again', async () => (await text('.algo')).includes('NCCL_PROTO=Simple'));
  expect(parseFloat(await text('#busbw')) > 1.5 * forced, 'LL halves the bandwidth at 1 GiB');
  await page.locator('#size').fill('28');
});

await test('ring vs tree: the tuner picks Tree for small messages on 4 nodes; NCCL_ALGO forces Ring', async () => {
  await page.selectOption('#nodes', '4');
  await page.locator('#size').fill('10');
  await waitFor('Tree chosen', async () => (await text('.algo')).includes('NCCL_ALGO=Tree'));
  const tree = await text('#time');
  await page.click('#step-forward');
  await waitFor('a tree step', async () => /— reduce|— broadcast/.test(await text('#step-text')));
  const heat = await page.locator('#heatmap tbody').innerText();
  expect((heat.match(/✓/g) || []).length === 6, `one pick per size column: ${heat}`);
  await page.selectOption('#algorithm', 'Ring');
  await waitFor('Ring forced', async () => (await text('.algo')).includes('NCCL_ALGO=Ring'));
  const ring = await text('#time');
  expect(parseFloat(ring) > parseFloat(tree), `ring ${ring} should be slower than tree ${tree} at 1 KiB`);
  await page.selectOption('#algorithm', 'Hierarchical');
  await waitFor('Hierarchical forced', async () => (await text('.algo')).includes('NCCL_ALGO=Hierarchical'));
  await page.click('#step-forward');
  expect((await text('#step-text')).startsWith('Step 1 /'), await text('#step-text'));
  await page.selectOption('#algorithm', 'auto');
  await page.locator('#size').fill('28');
});

await test('a long simulation runs in slices with a progress bar; cancel keeps the last result', async () => {
  await page.selectOption('#technology', 'infiniband');
  // The result to keep is the one shown once nothing is pending (the technology may have
  // started a run of its own).
  await waitFor('no run pending', async () => (await page.locator('#progress').count()) === 0, 20000);
  await page.waitForTimeout(200);
  await waitFor('the result shown', async () => (await page.locator('#trace-hash').count()) === 1);
  const before = await gpuCount();
  const nodesBefore = await page.locator('#nodes').inputValue();
  const hash = await text('#trace-hash');
  // 16 nodes over 8 channels: some 260,000 transfers, a few seconds in slices. The page itself
  // clicks Cancel the moment the progress bar is added (a MutationObserver's callback runs
  // before the next slice's timeout can), so how fast this machine is does not decide the race.
  await page.evaluate(() => {
    const observer = new MutationObserver(() => {
      const cancel = document.querySelector('#cancel');
      if (cancel) {
        window.cancelSaw = document.querySelector('#progress')?.innerText ?? '';
        window.chartGpusWhile = document.querySelector('#busbw-chart')?.getAttribute('data-gpus');
        observer.disconnect();
        cancel.click();
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
  await page.selectOption('#nodes', '16');
  await waitFor('the cancel clicked', async () => (await page.evaluate(() => window.cancelSaw)) !== undefined, 5000);
  const said = await page.evaluate(() => window.cancelSaw);
  expect(said.includes('Simulating 16 nodes'), said);
  // The busbw chart is already the 16 nodes' while they simulate (its points may run meanwhile).
  const chartWhile = await page.evaluate(() => window.chartGpusWhile);
  expect(chartWhile === '128', `the chart is of ${chartWhile} GPUs while 16 nodes simulate`);
  // The progress bar goes with the pending job; the kept result is the one shown before.
  await waitFor('the progress bar gone', async () => (await page.locator('#progress').count()) === 0, 20000);
  await page.waitForTimeout(500);
  const kept = (await text('#trace-hash')) === hash;
  expect(kept, `the kept result ${hash} is shown after cancelling`);
  expect((await gpuCount()) === before, `still ${before} GPUs after cancelling`);
  const chartAfter = await page.locator('#busbw-chart').getAttribute('data-gpus');
  expect(chartAfter === before, `the chart is of ${chartAfter} GPUs after cancelling, the topology of ${before}`);
  // The control shows the run kept, not the 16 nodes cancelled.
  const nodesAfter = await page.locator('#nodes').inputValue();
  expect(nodesAfter === nodesBefore, `the nodes control says ${nodesAfter} after cancelling, ${nodesBefore} before`);
  // Playing on moves the clock of the kept run: the page is live, not still working on 16 nodes.
  const clock = await text('#clock');
  await page.click('#step-forward');
  await waitFor('the kept run to step on', async () => (await text('#clock')) !== clock);
  expect((await gpuCount()) === before && (await text('#trace-hash')) === hash, 'the cancelled run never lands');
});

await test('a change made while another simulates builds on it: 16 nodes, then AllGather, runs AllGather on 16 nodes', async () => {
  // The collective is changed the moment the progress bar for 16 nodes is added, so the
  // 16-node run is still pending whatever this machine's speed (the CI once picked leaf-spine
  // while 4 nodes simulated, and the page ran leaf-spine on the 1 node shown).
  await page.evaluate(() => {
    const observer = new MutationObserver(() => {
      if (!document.querySelector('#progress')) return;
      observer.disconnect();
      window.changedWhile = document.querySelector('#progress').innerText;
      const collective = document.querySelector('#collective');
      collective.value = 'all_gather';
      collective.dispatchEvent(new Event('change', { bubbles: true }));
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
  await page.selectOption('#nodes', '16');
  await waitFor('the change made while pending', async () => (await page.evaluate(() => window.changedWhile)) !== undefined, 5000);
  expect((await page.evaluate(() => window.changedWhile)).includes('Simulating 16 nodes'), 'changed while 16 nodes simulated');
  await waitFor('128 GPUs drawn', async () => (await gpuCount()) === '128', 60000);
  await page.click('#step-forward');
  await waitFor('all-gather steps on 128 GPUs', async () => (await text('#step-text')).includes('— all-gather'));
  expect((await page.locator('#nodes').inputValue()) === '16', 'the nodes control says 16');
  await page.selectOption('#collective', 'all_reduce');
  await page.selectOption('#nodes', '1');
  await waitFor('8 GPUs drawn', async () => (await gpuCount()) === '8', 30000);
});

await test('eight nodes: 64 GPUs drawn, the chart completes (figures printed, not asserted)', async () => {
  await page.selectOption('#technology', 'infiniband');
  const t0 = Date.now();
  await page.selectOption('#nodes', '8');
  await waitFor('64 GPUs', async () => (await gpuCount()) === '64', 20000);
  const drawn = Date.now() - t0;
  await waitFor('the method', async () => (await text('#method')).startsWith('Obtained by exact simulation'));
  await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 60000 });
  console.log(`     8 nodes: topology redrawn after ${drawn} ms, 69-point chart (Ring, Tree, NVLSTree) complete after ${Date.now() - t0} ms`);
  await page.screenshot({ path: join(shots, 'eight-nodes.png'), fullPage: true });
});

await test("a link to 8 nodes: the busbw chart's worker starts beside the link's own run, and the chart is the 8 nodes'", async () => {
  // A page of its own, whose Worker constructor notes whether the link's run was still pending.
  const linked = await ctx.newPage();
  await linked.addInitScript(() => {
    const Native = window.Worker;
    window.__workerWhilePending = [];
    window.Worker = function (...args) {
      window.__workerWhilePending.push(document.querySelector('#progress') !== null);
      return new Native(...args);
    };
  });
  const scenario = { preset: 'dgx-h100', nodes: 8, collective: 'all_reduce', size_bytes: 1 << 30 };
  await linked.goto(base + '#s=' + encodeURIComponent(JSON.stringify(scenario)));
  await linked.waitForSelector('#topology[data-gpu-count="64"]', { timeout: 60000 });
  await linked.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 60000 });
  const born = await linked.evaluate(() => window.__workerWhilePending);
  expect(born.length >= 1 && born[0] === true, `workers started while the link's run was pending: ${JSON.stringify(born)}`);
  expect((await linked.locator('#busbw-chart').getAttribute('data-gpus')) === '64', 'the chart of 64 GPUs');
  const label = await linked.locator('#busbw-chart').getAttribute('aria-label');
  expect(label === 'AllReduce busbw vs message size on 64 GPUs', label);
  expect((await linked.locator('#busbw-chart').getAttribute('data-points')) === '69', 'every point: Ring, Tree and NVLSTree, 23 sizes');
  // NCCL picks NVLSTree at 1 GiB across H100 nodes: the results' figure is a point of its curve.
  const here = await linked.locator('#busbw-chart').getAttribute('data-here');
  const busbw = (await linked.locator('#busbw').innerText()).replace(/[^0-9.]/g, '');
  const chosen = await linked.locator('#tuner tr.chosen').innerText();
  expect(/^NVLSTree \//.test(chosen), `the tuner picks NVLSTree: ${chosen}`);
  expect(here.split(' ').includes(`NVLSTree:${busbw}`), `the results' ${busbw} GB/s on the NVLSTree curve: ${here}`);
  await linked.close();
});

await test('1,024 GPUs: a ring that settles runs as a steady state, drawn as tiles; a tile opens; 8 channels run extrapolated, and say so; the tuner\'s NVLSTree is shown from its first channels', async () => {
  // From a known start (the earlier tests leave their fabric choices): 8 nodes, rail-optimised.
  const start = { preset: 'dgx-h100', nodes: 8, collective: 'all_reduce', size_bytes: 1 << 30, channels: 1, algorithm: 'Ring', protocol: 'Simple' };
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify(start)));
  await page.reload();
  await waitFor('64 GPUs', async () => (await gpuCount()) === '64', 20000);
  const t0 = Date.now();
  await page.selectOption('#nodes', '128');
  await waitFor('1,024 GPUs', async () => (await gpuCount()) === '1024', 30000);
  console.log(`     128 nodes, 1 channel, 1 GiB: simulated and drawn after ${Date.now() - t0} ms`);
  const steady = await text('#steady');
  expect(steady.includes('of 2046 steps') && steady.includes('bit for bit'), steady);
  const method = await text('#method');
  expect(method.startsWith('Obtained as a steady state') && method.includes('of the 2095104 transfers'), method);
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 40 && busbw < 50, `busbw ${busbw} GB/s: one 400 Gb/s NIC per node boundary`);
  // Mid-run the step text counts the whole collective's steps.
  await page.locator('#scrub').fill(String(Math.round(parseFloat(await page.locator('#scrub').getAttribute('max')) / 2)));
  await waitFor('a late step', async () => /^Step (\d+) \/ 2046/.test(await text('#step-text')) && parseInt((await text('#step-text')).slice(5)) > 900);
  // The first tile: hover names it, a click opens it in full, a second click closes it.
  await page.locator('#topology').scrollIntoViewIfNeeded();
  const box = await page.locator('#topology').boundingBox();
  await page.mouse.move(box.x + 30, box.y + 40);
  await waitFor('the tile named', async () => (await text('#link-info')).startsWith('Node 0 (ranks 0–7)'));
  await page.mouse.click(box.x + 30, box.y + 40);
  await waitFor('node 0 open', async () => (await page.locator('#topology').getAttribute('data-expanded')) === '0');
  await page.screenshot({ path: join(shots, 'cluster-1024-gpus.png'), fullPage: true });
  await page.mouse.click(box.x + 30, box.y + 40);
  await waitFor('node 0 closed', async () => (await page.locator('#topology').getAttribute('data-expanded')) === '');
  // NCCL's eight channels drift against each other through NVLink: no period, so the ring
  // runs as an extrapolated steady state, and the page says how, with its bound.
  await page.selectOption('#channels', 'auto');
  await waitFor('the extrapolated run', async () => (await text('#method')).includes('extrapolated steady state'), 30000);
  const extrapolated = await text('#method');
  expect(extrapolated.includes('of the 16760832 transfers') && extrapolated.includes('Within 3%'), extrapolated);
  expect((await text('#steady')).startsWith('Extrapolated steady state') && (await text('#steady')).includes('of 2046 steps'), await text('#steady'));
  const busbw8 = parseFloat(await text('#busbw'));
  // Eight channels cross each node boundary on eight 400 Gb/s NICs: more than the one
  // channel's busbw above, less than eight NICs' 400 GB/s (Simple's per-step latency, paid
  // 2,046 times, keeps it well below that).
  expect(busbw8 > busbw && busbw8 < 400, `busbw ${busbw8} GB/s at 8 channels, ${busbw} GB/s at one`);
  await page.screenshot({ path: join(shots, 'cluster-1024-gpus-8-channels.png'), fullPage: true });
  // Unforced, the tuner picks NVLSTree at 1 GiB: 2,488,320 transfers, beyond the page whole,
  // shown from part 0 of channels 0 and 1 (77,760), whose proved images are the rest, its time
  // fitted to NCCL's chunks by a second run; the page says how, and names no other pick.
  const t1 = Date.now();
  await page.selectOption('#algorithm', 'auto');
  await waitFor('the tuner\'s pick shown', async () => (await text('p.algo')).includes('NVLSTree'), 60000);
  console.log(`     128 nodes, 8 channels, the tuner's NVLSTree: simulated and drawn after ${Date.now() - t1} ms`);
  const picked = await text('#method');
  expect(picked.includes('part 0 of channels 0 and 1, 77760 transfers') && picked.includes('(all 2488320 transfers'), picked);
  expect(picked.includes('256 chunks of 64 KiB') && picked.includes('fitted to NCCL\'s 256'), picked);
  expect((await page.locator('#tuner-pick').count()) === 0 && !picked.includes('The tuner picks NVLSTree here'), picked);
  const pickBusbw = await text('#busbw');
  expect(parseFloat(pickBusbw) > busbw8, `NVLSTree ${pickBusbw} against the ring's ${busbw8} GB/s`);
  // Its animation is the whole's: mid-run, the lanes that ran spread over their images keep
  // links of every rail busy, and a step counts every lane's transfers.
  await page.locator('#scrub').fill(String(Math.round(parseFloat(await page.locator('#scrub').getAttribute('max')) * 0.4)));
  await waitFor('a step mid-run', async () => /transfers run in this step/.test(await text('#step-text')));
  const inStep = parseInt((await text('#step-text')).match(/(\d+) transfers run in this step/)[1]);
  expect(inStep % 32 === 0, `${inStep} transfers in the step: 32 lanes for each that ran`);
  await page.locator('#link-table summary').click();
  await waitFor('the busy links counted', async () => (await page.locator('#link-table-count').count()) === 1);
  const carrying = parseInt(await page.locator('#link-table-count').getAttribute('data-links'));
  expect(carrying >= 2048, `${carrying} links carry data mid-run: every GPU's NIC, not only part 0's`);
  await page.locator('#link-table summary').click();
  // The busbw chart draws NVLSTree at every size (beyond the page whole from 32 MiB, from part 0
  // of channels 0 and 1, which stand for all); its point at this size is the run shown.
  await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 120000 });
  const chartHere = await page.locator('#busbw-chart').getAttribute('data-here');
  const nvlsTreeBusbw = chartHere.split(' ').find((c) => c.startsWith('NVLSTree:')).slice('NVLSTree:'.length);
  expect(pickBusbw.startsWith(nvlsTreeBusbw), `the results' ${pickBusbw} on the NVLSTree curve: ${chartHere}`);
  await page.screenshot({ path: join(shots, 'cluster-1024-gpus-tuner-pick.png'), fullPage: true });
  const leftOff = await text('#chart-left-off');
  expect(!leftOff.includes('NVLSTree') && /(^|[^S])Tree from \d+ MiB/.test(leftOff), leftOff);
  // And says how its NVLSTree point at the size shown was fitted to NCCL's chunks.
  const chunks = await text('#chart-nvlstree-chunks');
  expect(chunks.includes('256 chunks of 64 KiB') && chunks.includes('runs 16 of 1 MiB and 32 per part'), chunks);
  // The chart complete, a smaller message runs NVLSTree again, its finer run in a worker of its
  // own; cancelled, the page stops that worker at once rather than let it run on to an end
  // nobody reads (and an idle one goes too: none is left once the chart is complete).
  expect(page.workers().length === 0, `${page.workers().length} workers once the chart is complete`);
  await page.evaluate(() => {
    window.stopped = [];
    const terminate = Worker.prototype.terminate;
    Worker.prototype.terminate = function () {
      window.stopped.push(performance.now());
      return terminate.call(this);
    };
  });
  const finerWorker = page.waitForEvent('worker', { timeout: 20000 });
  await page.locator('#size').fill('29');
  const worker = await finerWorker;
  const closed = new Promise((resolve) => worker.once('close', resolve));
  await page.evaluate(() => {
    const cancel = document.querySelector('#cancel');
    window.cancelledAt = performance.now();
    cancel.click();
  });
  await Promise.race([closed, page.waitForTimeout(5000).then(() => { throw new Error('the finer worker still runs 5 s after the cancel'); })]);
  const [cancelledAt, stopped] = await page.evaluate(() => [window.cancelledAt, window.stopped]);
  expect(stopped.length === 1 && stopped[0] - cancelledAt < 100, `the worker stopped ${stopped.map((t) => t - cancelledAt)} ms after the cancel`);
  console.log(`     the cancelled run's finer worker was stopped ${Math.round(stopped[0] - cancelledAt)} ms after the cancel`);
  expect((await text('#busbw')) === pickBusbw, 'the cancel keeps the 1 GiB result');
  await page.selectOption('#nodes', '1');
  await page.selectOption('#algorithm', 'auto');
  await page.selectOption('#protocol', 'auto');
  await page.locator('#size').fill('28');
  await waitFor('8 GPUs', async () => (await gpuCount()) === '8');
});

await test('the URL carries the scenario: reload restores it, a bad link is reported', async () => {
  await page.selectOption('#nodes', '2');
  await page.selectOption('#collective', 'all_to_all');
  await waitFor('16 GPUs', async () => (await gpuCount()) === '16');
  const url = page.url();
  expect(url.includes('#s=') && url.includes('all_to_all'), url);
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('#topology[data-gpu-count]');
  expect((await gpuCount()) === '16', 'two nodes again');
  expect((await page.locator('#collective').inputValue()) === 'all_to_all', 'AllToAll again');
  // Pasted into this tab: only the fragment changes; the last good scenario stays.
  await page.goto(base + '#s=%7B%22preset%22%3A%22dgx-h100%22%2C%22nodes%22%3A0%7D');
  await page.waitForSelector('#error');
  let error = await text('#error');
  expect(error.includes("The link's scenario could not be used") && error.includes('missing field'), error);
  expect((await gpuCount()) === '16', 'the last good scenario stays');
  // Opened fresh: the last scenario run in this browser instead, so nothing is lost...
  await page.reload();
  await page.waitForSelector('#link-error');
  error = await text('#link-error');
  expect((await page.locator('#error').count()) === 0, 'one banner, which says what is shown');
  expect(error.includes('showing the last scenario you ran in this browser'), error);
  expect((await gpuCount()) === '16', 'the stored scenario');
  // ... or, with nothing stored, the default scenario.
  const bad = base + '#s=%7B%22preset%22%3A%22dgx-h100%22%2C%22nodes%22%3A0%7D';
  await page.evaluate(() => localStorage.removeItem('fabricscope.scenario'));
  await page.goto('about:blank');
  await page.goto(bad);
  await page.waitForSelector('#link-error');
  error = await text('#link-error');
  expect(error.includes('showing the default scenario'), error);
  expect((await gpuCount()) === '8', 'the default scenario');
  // The banner reads in the language chosen after the page opened, the problem inside too.
  await page.click('#lang-zh');
  await waitFor('the banner in Chinese', async () => (await text('#link-error')).includes('已显示默认场景'));
  error = await text('#link-error');
  expect(error.includes('链接中的场景无法使用') && error.includes('缺少字段'), error);
  await page.click('#lang-en');
  await waitFor('the banner in English', async () => (await text('#link-error')).includes('showing the default scenario'));
  await page.goto(base + '#');
});

await test('a bare link restores the last scenario from this browser, with a way back to the default', async () => {
  await page.selectOption('#nodes', '2');
  await waitFor('16 GPUs', async () => (await gpuCount()) === '16');
  // The browser keeps a scenario once it has run: 2 nodes may run off the main thread (a Tree
  // in LL's chunks counts beyond what the page runs at once).
  await waitFor('the 2 nodes run', async () => (await page.locator('#progress').count()) === 0, 60000);
  await page.goto('about:blank');
  await page.goto(base);
  await page.waitForSelector('#notice');
  expect((await text('#notice')).includes('Restored the last scenario'), await text('#notice'));
  expect((await gpuCount()) === '16', 'restored');
  // In the language chosen after the page opened.
  await page.click('#lang-zh');
  await waitFor('the notice in Chinese', async () => (await text('#notice')).includes('已恢复你在此浏览器中最近运行的场景'));
  await page.click('#lang-en');
  await waitFor('the notice in English', async () => (await text('#notice')).includes('Restored the last scenario'));
  await page.click('#use-default');
  await waitFor('8 GPUs', async () => (await gpuCount()) === '8');
  expect((await page.locator('#notice').count()) === 0, 'the notice goes');
});

await test('the page computes the same trace, bit for bit, as the native core (trace hash)', async () => {
  const file = process.env.FABRICSCOPE_NATIVE_HASHES;
  expect(file, 'xtask passes the native hashes');
  const cases = JSON.parse(readFileSync(file, 'utf8'));
  expect(cases.length >= 5, `${cases.length} fixtures`);
  for (const { name, scenario, hash } of cases) {
    await page.goto('about:blank');
    await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify(scenario)));
    await page.waitForSelector('#trace-hash');
    // A link's run too long for one frame is pending at first, one node of its hardware shown
    // meanwhile: the hash to compare is the link's, once nothing is pending.
    await waitFor(`${name}: the link's run`, async () => (await page.locator('#progress').count()) === 0, 60000);
    const got = await text('#trace-hash');
    expect(got === hash, `${name}: page ${got}, native ${hash}`);
  }
  console.log(`     ${cases.length} scenarios: page hashes equal native ones`);
  await page.goto(base + '#');
});

await test('embed mode (?embed) shows the live figure and its numbers without controls', async () => {
  await page.goto(base + '?embed#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-a100', nodes: 2, collective: 'all_reduce', size_bytes: 1 << 26 })));
  await page.waitForSelector('#topology[data-gpu-count]');
  await waitFor('the linked scenario', async () => (await gpuCount()) === '16');
  expect((await page.locator('#preset').count()) === 0, 'no controls');
  expect((await page.locator('#busbw').innerText()).includes('GB/s'), 'the numbers');
  await page.setViewportSize({ width: 700, height: 700 });
  await page.screenshot({ path: join(shots, 'embed.png'), fullPage: true });
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(base + '#');
});

// Whether the training view shows the step its controls show (none pending).
const trainSettled = async () => (await page.locator('#train-pending').count()) === 0;

const stepSeconds = async () => {
  const t = await text('#step-time');
  const value = parseFloat(t);
  return t.includes(' ms') ? value / 1000 : value;
};

await test('training view: GPT-3 on 32 DGX H100, TP inside the node, the step broken down', async () => {
  await page.evaluate(() => localStorage.removeItem('fabricscope.train'));
  await page.goto('about:blank');
  await page.goto(base + '#');
  await page.waitForSelector('#topology[data-gpu-count]');
  const t0 = Date.now();
  await page.click('#mode-training');
  await page.waitForSelector('#step-time');
  console.log(`     training view drawn ${Date.now() - t0} ms after the click`);
  expect(page.url().includes('#train='), page.url());
  expect((await text('#model-shape')).includes('174.6 B parameters'), await text('#model-shape'));
  expect((await text('#dp')).includes('= 2'), await text('#dp'));
  const note = await text('#tp-note');
  expect(note.includes('inside each node, over NVLink'), note);
  expect((await page.locator('#breakdown .part').count()) >= 4, 'the breakdown bar has its parts');
  expect((await page.locator('#gantt').getAttribute('data-stages')) === '16', 'sixteen stages');
  expect((await page.locator('#placement').getAttribute('data-gpus')) === '256', '256 GPUs placed');
  const rows = await page.locator('#ops tbody tr').count();
  expect(rows === 5, `${rows} collectives: TP AG + RS, PP, DP RS + AG`);
  await waitFor('the fabric comparison', async () => (await page.locator('#fabrics tbody tr').count()) === 4, 30000);
  expect((await text('#fabric-verdict')).includes('InfiniBand against TCP Ethernet'), await text('#fabric-verdict'));
  await waitFor('the scaling points', async () => (await page.locator('#scaling tbody tr').count()) >= 2, 30000);
});

await test('training view: its comparisons run in a worker; without workers the main thread fills the same tables', async () => {
  const back = page.url();
  const tables = async () => `${await text('#fabrics tbody')} | ${await text('#scaling tbody')}`;
  let started = 0;
  const onWorker = () => { started += 1; };
  page.on('worker', onWorker);
  await reopen(back, '#scaling[data-complete="true"]');
  page.off('worker', onWorker);
  expect(started >= 1, `${started} workers started`);
  expect((await page.locator('#fabrics tbody tr').count()) === 4, 'four fabrics');
  const inWorkers = await tables();
  await waitFor('the worker stopped', async () => page.workers().length === 0);
  await withoutWorkers(() => reopen(back, '#scaling[data-complete="true"]'));
  const onMain = await tables();
  expect(onMain === inWorkers, `the same tables:\n${onMain}\n${inWorkers}`);
  await reopen(back, '#step-time');
});

await test('training view: TP across two nodes is slower and says so; a bad batch is refused', async () => {
  // The same job (DP 2, 128 sequences) with TP 16 × PP 8 instead of TP 8 × PP 16, against A.
  const inside = await stepSeconds();
  await page.click('#pin-a');
  await page.selectOption('#tp', '16');
  await waitFor('TP 16', async () => (await text('#tp-note')).includes('16 GPUs per group'));
  await page.selectOption('#pp', '8');
  await waitFor('DP 2 again', async () => (await text('#dp')).endsWith('= 2') && (await trainSettled()));
  const across = await stepSeconds();
  expect((await text('#tp-note')).includes('across nodes, through the NICs'), await text('#tp-note'));
  expect(across > inside, `TP 16 across nodes ${across} s vs TP 8 inside ${inside} s`);
  const ab = await text('#ab-train');
  expect(ab.includes('longer per step than A') && ab.includes('the TP collectives') && ab.includes('cross the NICs'), ab);
  await page.click('#pin-a');
  console.log(`     GPT-3 175B, 256 H100: TP 8 step ${inside} s, TP 16 step ${across} s`);
  await page.locator('#global-batch').fill('7');
  await page.locator('#global-batch').press('Enter');
  await page.waitForSelector('#error');
  expect((await text('#error')).includes('global_batch'), await text('#error'));
  expect((await stepSeconds()) === across, 'the last good job stays');
  await page.click('#error button');
  await page.selectOption('#tp', '8');
  await page.selectOption('#pp', '16');
  await waitFor('TP 8 again', async () => (await text('#tp-note')).includes('8 GPUs per group') && (await text('#dp')).endsWith('= 2') && (await trainSettled()));
});

await test('training view: a mixture of experts shows its AllToAlls; interleaved 1F1B shrinks the bubble', async () => {
  const width = async (part) => parseFloat((await page.locator(`#breakdown .part[data-part="${part}"]`).getAttribute('style') || 'width: 0%').replace(/[^0-9.]/g, '')) || 0;
  await page.selectOption('#model', 'deepseek-v3');
  await waitFor('DeepSeek-V3', async () => (await text('#model-shape')).includes('256 experts') && (await trainSettled()));
  expect((await text('#model-shape')).includes('671.0 B parameters, 37.6 B active'), await text('#model-shape'));
  expect((await page.locator('#ops tbody tr[data-kind="Ep"]').count()) === 0, 'EP 1: no AllToAll');
  await page.selectOption('#ep', '2');
  await waitFor('EP 2', async () => (await page.locator('#ops tbody tr[data-kind="Ep"]').count()) === 2);
  const ops = await text('#ops');
  expect(ops.includes('AllToAll dispatch tokens to experts') && ops.includes('AllReduce expert gradients') === false, ops);
  expect((await width('ep')) > 0, 'the breakdown has an EP AllToAll part');
  await page.click('#lang-zh');
  expect((await text('#ops')).includes('AllToAll 把 token 分发给专家'), await text('#ops'));
  await page.click('#lang-en');
  // Back to GPT-3: EP falls back to 1 by itself (a dense model has no experts).
  await page.selectOption('#model', 'gpt3-175b');
  await waitFor('GPT-3', async () => (await text('#model-shape')).includes('174.6 B parameters') && (await trainSettled()));
  expect((await page.locator('#ep').count()) === 0 && !(await page.locator('#error').count()), 'no EP control, no error');
  const plain = await width('bubble');
  await page.selectOption('#virtual-stages', '2');
  await waitFor('interleaved', async () => (await width('bubble')) < plain);
  const interleaved = await width('bubble');
  console.log(`     GPT-3 175B, PP 16: bubble ${plain.toFixed(1)}% of the step with 1F1B, ${interleaved.toFixed(1)}% interleaved (2 chunks)`);
  await page.selectOption('#virtual-stages', '1');
  await waitFor('plain 1F1B again', async () => (await width('bubble')) === plain);
});

await test('training view: pure DP over 512 GPUs, its rings beyond the engine extrapolated and labelled; at TP 2, beyond it together, every fabric compared', async () => {
  // Llama 2 7B at DP 512 on 64 DGX H100: each DP ring is 4.2 million transfers (refused before).
  const back = page.url();
  const job = JSON.parse(decodeURIComponent(back.split('#train=')[1]));
  Object.assign(job, { model: 'llama2-7b', tp: 1, pp: 1, dp: 512, global_batch: 512 });
  job.cluster.nodes = 64;
  const t0 = Date.now();
  await reopen(back.replace(/#.*$/, '') + '#train=' + encodeURIComponent(JSON.stringify(job)), '#ops td.extrapolated');
  console.log(`     Llama 2 7B, DP 512 on 64 nodes: shown ${Date.now() - t0} ms after the link opened`);
  expect(!(await page.locator('#error').count()), 'no error');
  expect((await page.locator('#ops td.extrapolated').count()) === 2, 'the DP ReduceScatter and AllGather are marked');
  const note = await text('.op-method');
  expect(note.includes('extrapolated steady state (±3%)') && note.includes('the first 128 of its 511 steps'), note);
  expect(note.includes('DP ReduceScatter gradients (ZeRO), DP AllGather updated parameters (ZeRO)'), note);
  await page.screenshot({ path: join(shots, 'training-dp-512-extrapolated.png'), fullPage: true });
  await page.click('#lang-zh');
  expect((await text('.op-method')).includes('外推稳态（±3%）'), await text('.op-method'));
  await page.click('#lang-en');
  // TP 2: two DP rings of 256 GPUs, beyond the engine together; over RoCE neither stands for
  // the other (ECMP), and they run from their first steps: every fabric's row fills in.
  await page.selectOption('#tp', '2');
  await waitFor('DP 256', async () => (await text('#dp')).endsWith('= 256') && (await trainSettled()));
  await waitFor('every fabric', async () => (await page.locator('#fabrics tbody tr').count()) === 4, 60000);
  expect((await text('#fabrics')).includes('RoCE'), await text('#fabrics'));
  await reopen(back, '#step-time');
});

await test('training view: GPT-3 175B on 2,048 GPUs, its step in a worker, the placement compact', async () => {
  // 256 DGX H100 at TP 8 × PP 16 × DP 16: the page took 64 nodes at most before.
  const back = page.url();
  const job = JSON.parse(decodeURIComponent(back.split('#train=')[1]));
  Object.assign(job, { model: 'gpt3-175b', tp: 8, pp: 16, dp: 16, global_batch: 1024, micro_batch: 1 });
  job.cluster.nodes = 256;
  const t0 = Date.now();
  await reopen(back.replace(/#.*$/, '') + '#train=' + encodeURIComponent(JSON.stringify(job)), '#step-time');
  await waitFor('the step', () => trainSettled(), 60000);
  console.log(`     GPT-3 175B on 256 nodes: shown ${Date.now() - t0} ms after the link opened`);
  expect(!(await page.locator('#error').count()), 'no error');
  expect((await text('#train-nodes')).includes('256') && !(await text('#train-nodes')).includes('512'), await text('#train-nodes'));
  // Every node a tile, every GPU a stripe, in about a screen's height.
  const box = await page.evaluate(() => document.querySelector('#placement').getBoundingClientRect().height);
  expect(box > 100 && box <= 800, `placement ${box} px tall`);
  expect((await text('#placement-hint')).includes('small tile'), await text('#placement-hint'));
  // The TP/PP/DP buttons recolour the GPUs' underlines, as they do up to 64 nodes.
  const shot = () => page.locator('#placement').screenshot();
  await page.click('#groups-tp');
  const byTp = await shot();
  await page.click('#groups-dp');
  expect(!byTp.equals(await shot()), 'DP groups underlined otherwise than TP groups');
  await page.click('#groups-tp');
  await page.click('#train-play');
  await waitFor('the clock to move', async () => !(await text('#train-clock')).startsWith('0 ns'), 5000);
  await page.click('#train-play');
  await page.screenshot({ path: join(shots, 'training-2048-gpus.png'), fullPage: true });
  // Every fabric compared: over RoCE, EFA and TCP (hashed routes) its 128 DP rings of 16 GPUs
  // are beyond the engine together, and too short to extrapolate from: rows that say so.
  await waitFor('every fabric', async () => (await page.locator('#fabrics tbody tr').count()) === 4, 60000);
  const refused = await text('#fabrics tr.refused >> nth=0');
  expect(refused.includes('RoCE') && refused.includes('beyond the engine here'), refused);
  expect((await page.locator('.fabrics-refused').count()) === 1, 'the reason once');
  expect((await text('.fabrics-refused')).includes('have only 30 steps'), await text('.fabrics-refused'));
  expect((await page.locator('#fabrics tr.refused').count()) === 3, 'RoCE, EFA and TCP refused');
  await page.click('#lang-zh');
  expect((await text('#placement-hint')).includes('小方块'), await text('#placement-hint'));
  expect((await text('.fabrics-refused')).includes('只有 30 步'), await text('.fabrics-refused'));
  await page.click('#lang-en');
  await reopen(back, '#step-time');
});

await test('training view: the step animates, the URL keeps the job, Chinese, back to collectives', async () => {
  await page.click('#train-play');
  await waitFor('the clock to move', async () => !(await text('#train-clock')).startsWith('0 ns'), 5000);
  await page.click('#train-play');
  await page.click('#groups-dp');
  await page.screenshot({ path: join(shots, 'training.png'), fullPage: true });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-train')]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  expect(exported.job.tp === 8 && exported.report.step_ns > 0 && exported.report.blocks.length > 0, JSON.stringify(exported).slice(0, 200));
  // Each training chart as PNG and SVG.
  for (const [id, name] of [['#export-gantt', 'fabricscope-1f1b.png'], ['#export-placement', 'fabricscope-placement.png'], ['#export-gantt-svg', 'fabricscope-1f1b.svg'], ['#export-placement-svg', 'fabricscope-placement.svg']]) {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    const body = readFileSync(await file.path(), 'utf8');
    expect(file.suggestedFilename() === name && body.length > 1000 && (!name.endsWith('.svg') || (body.startsWith('<svg') && body.includes('</text>'))), `${name}: ${body.slice(0, 80)}`);
  }
  await page.selectOption('#pp', '8');
  await waitFor('PP 8', async () => (await page.locator('#gantt').getAttribute('data-stages')) === '8');
  const url = page.url();
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('#gantt');
  expect((await page.locator('#gantt').getAttribute('data-stages')) === '8', 'the link restores PP 8');
  await page.click('#lang-zh');
  expect((await text('#tp-note')).includes('TP 集合通信占单步'), await text('#tp-note'));
  await page.click('#lang-en');
  await page.click('#mode-collectives');
  await page.waitForSelector('#topology[data-gpu-count]');
  expect(page.url().includes('#s='), page.url());
  await page.evaluate(() => localStorage.removeItem('fabricscope.train'));
  await page.goto(base + '#');
});

await test('NVLS: on by default as in NCCL, the tuner picks it at 1 GiB, the page says why busbw beats the line rate, and NCCL_NVLS_ENABLE=0 gives Ring', async () => {
  await page.goto('about:blank');
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 30, nvls: false })));
  await page.waitForSelector('#nvls');
  expect((await text('p.algo')).includes('Ring'), await text('p.algo'));
  expect(!(await page.isChecked('#nvls')), 'nvls: false leaves the box unchecked');
  await page.check('#nvls');
  await page.waitForSelector('#nvls-note');
  expect((await text('p.algo')).includes('NVLS'), await text('p.algo'));
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 450, `NVLS busbw ${busbw} GB/s above the 450 GB/s NVLink line rate`);
  expect((await text('#nvls-note')).includes('nccl-tests#312'), await text('#nvls-note'));
  await page.click('#step-forward');
  await page.click('#step-forward');
  expect((await text('#step-text')).includes('NVSwitch'), await text('#step-text'));
  console.log(`     NVLS on one DGX H100 at 1 GiB: busbw ${busbw} GB/s`);
  await page.goto(base + '#');
});

await test('SHARP: across 2 nodes on InfiniBand, CollNet reduces in the rail switches and the page says so', async () => {
  await page.goto('about:blank');
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 2, collective: 'all_reduce', size_bytes: 1 << 28, in_network: true })));
  await page.waitForSelector('#in-network');
  expect((await text('label.check:has(#in-network)')).includes('SHARP'), await text('label.check:has(#in-network)'));
  await page.selectOption('#algorithm', 'CollNet');
  await page.waitForSelector('#sharp-note');
  expect((await text('p.algo')).includes('CollNet'), await text('p.algo'));
  expect((await text('#sharp-note')).includes('once each way'), await text('#sharp-note'));
  // Into the SHARP phase: NVLink reduce-scatter first, then the rail switch.
  let found = false;
  for (let i = 0; i < 12 && !found; i += 1) {
    await page.click('#step-forward');
    found = (await text('#step-text')).includes('SHARP');
  }
  expect(found, await text('#step-text'));
  await page.goto(base + '#');
});

await test("NVLSTree: NCCL's default across 2 H100 nodes at 1 GiB; NVLS off falls back; the textbook algorithms are offered and run", async () => {
  await page.goto('about:blank');
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 2, collective: 'all_reduce', size_bytes: 1 << 30 })));
  await page.waitForSelector('#nvls');
  // Two nodes at 8 channels run in slices: the page shows its default until the link's run is done.
  await waitFor("the link's run: NVLSTree", async () => (await text('p.algo')).includes('NVLSTree'));
  expect(await page.isChecked('#nvls'), 'NVLS is on by default');
  const nvlsTree = parseFloat(await text('#busbw'));
  await page.uncheck('#nvls');
  await waitFor('the tuner leaves NVLSTree', async () => !(await text('p.algo')).includes('NVLSTree'));
  const options = await page.locator('#algorithm option').allInnerTexts();
  expect(options.includes('HalvingDoubling') && options.includes('AllPairs'), options.join(', '));
  expect(!options.includes('NVLSTree'), 'no NVLSTree with NVLS off');
  await page.selectOption('#algorithm', 'HalvingDoubling');
  await waitFor('halving-doubling runs', async () => (await text('p.algo')).includes('HalvingDoubling'));
  const halving = parseFloat(await text('#busbw'));
  expect(halving < nvlsTree / 2, `halving-doubling ${halving} GB/s against NVLSTree ${nvlsTree} GB/s`);
  console.log(`     2 × DGX H100, 1 GiB: NVLSTree ${nvlsTree} GB/s, halving-doubling ${halving} GB/s`);
  await page.goto(base + '#');
});

await test('a faulted link: the slow-link lesson names it under the results, and busbw halves against the healthy step', async () => {
  await page.goto('about:blank');
  await page.goto(base.replace(/#.*$/, '') + '?lesson=slow-link&step=0');
  await page.waitForSelector('#busbw');
  expect((await page.locator('#faults').count()) === 0, 'no faults in the healthy step');
  const healthy = parseFloat(await text('#busbw'));
  await page.goto('about:blank');
  await page.goto(base.replace(/#.*$/, '') + '?lesson=slow-link&step=1');
  await page.waitForSelector('#faults');
  const faults = await text('#faults');
  expect(faults.includes('NIC 3') && faults.includes('50%'), faults);
  const slow = parseFloat(await text('#busbw'));
  expect(Math.abs(slow / healthy - 0.5) < 0.03, `busbw ${slow} against ${healthy} GB/s healthy`);
  console.log(`     node 0's NIC 3 at half rate: busbw ${healthy} -> ${slow} GB/s`);
  await page.goto(base + '#');
});

const fixture = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
// One DGX H100, whatever earlier tests left in this browser: a link carries its scenario.
const oneDgx = encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 268435456 }));
async function fresh() {
  await page.goto('about:blank');
  await page.goto(base.replace(/#.*$/, '') + `#s=${oneDgx}`);
}
// Leaves no scenario stored for later tests: cleared once the page is idle (its effects have
// stored what they store), then a fresh load.
async function forget() {
  await page.waitForTimeout(300);
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.goto(base + '#');
}

await test('faults: add one, make it a slow GPU, the results name the steps that wait on it; a bad index is named', async () => {
  await fresh();
  await page.waitForSelector('#add-fault');
  const healthy = parseFloat(await text('#busbw'));
  await page.click('#add-fault');
  await waitFor('the fault under the results', async () => (await page.locator('#faults').count()) > 0);
  await page.selectOption('#fault-0 .fault-kind', 'gpu');
  await page.fill('#fault-0 .fault-index', '5');
  await page.locator('#fault-0 .fault-index').dispatchEvent('change');
  await waitFor('GPU 5 marked', async () => (await text('#faults')).includes('GPU 5'));
  const faults = await text('#faults');
  expect(/\d+ of \d+ steps wait on it/.test(faults), faults);
  const slow = parseFloat(await text('#busbw'));
  expect(slow < healthy * 0.6, `a GPU at half pace: busbw ${healthy} -> ${slow} GB/s`);
  console.log(`     GPU 5 at half pace: busbw ${healthy} -> ${slow} GB/s`);
  await page.fill('#fault-0 .fault-index', '99');
  await page.locator('#fault-0 .fault-index').dispatchEvent('change');
  await page.waitForSelector('#error');
  expect((await text('#error')).includes('faults[0].index'), await text('#error'));
  expect(parseFloat(await text('#busbw')) === slow, 'the last good run stays');
  await page.locator('#error button').click();
  await page.click('#fault-0 .fault-remove');
  await waitFor('no fault left', async () => (await page.locator('#faults').count()) === 0);
  await forget();
});

await test('your cluster: a pasted nvidia-smi topo -m becomes the node; what it lacks is asked for, by line when wrong', async () => {
  await fresh();
  await page.waitForSelector('#your-file');
  const matrix = fixture('crates/fabricscope/tests/fixtures/topology/dgx-1-topo-m.txt');
  await page.fill('#your-file', matrix);
  await page.click('#your-read');
  await page.waitForSelector('#your-problems');
  expect((await text('#your-problems')).includes('does not name the GPU model'), await text('#your-problems'));
  await page.selectOption('#your-gpu', 'v100');
  await page.fill('#your-nic', '100');
  await page.click('#your-read');
  await page.waitForSelector('#your-imported');
  await waitFor('the imported node', async () => (await page.locator('#preset').inputValue()) === 'imported');
  expect((await gpuCount()) === '8', `drew ${await gpuCount()} GPUs`);
  expect((await text('#your-imported')).includes('PCIe generation'), await text('#your-imported'));
  expect(page.url().includes('imported'), 'the node is in the link');
  // A cell the legend does not know: named with its line, and the node stays.
  await page.fill('#your-file', matrix.replace('NV2\tSYS\tSYS\tSYS', 'NV2\tSYS\tQQQ\tSYS'));
  await page.click('#your-read');
  await page.waitForSelector('#your-problems');
  expect((await text('#your-problems')).includes('line 3'), await text('#your-problems'));
  expect((await page.locator('#preset').inputValue()) === 'imported', 'the last good node stays');
  await forget();
});

await test('your cluster: an nccl-tests log is compared with the model and fitted, in slices, and the fit opens', async () => {
  await fresh();
  await page.waitForSelector('#your-file');
  await page.fill('#your-file', fixture('tests/fixtures/logs/all_reduce_2x8_h100_mpirun.log'));
  const started = Date.now();
  await page.click('#your-read');
  await page.waitForSelector('#your-comparing');
  // The page stays live while it fits: the play button answers.
  await page.click('#play');
  await page.waitForSelector('#your-comparison', { timeout: 120000 });
  console.log(`     fitted in ${Date.now() - started} ms`);
  const rows = await page.locator('#your-comparison tbody tr').count();
  expect(rows === 14, `${rows} sizes`);
  // The three curves are drawn: the chart's canvas has more than its background on it.
  const colours = await page.evaluate(() => {
    const canvas = document.querySelector('#your-chart');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return seen.size;
  });
  expect(colours > 3, `the comparison chart shows ${colours} colours`);
  const fit = await text('#your-fit');
  // The CLI's figures for the same log (fabricscope compare): NIC latency fitted to 5042 ns.
  expect(fit.includes('links.nic.latency_ns 300 → 5042 ns') && fit.includes('0.459 → 0.108'), fit);
  await page.click('#your-open-fitted');
  await waitFor('two nodes with the fitted NIC', async () => (await page.locator('#nic-latency').inputValue()) === '5042');
  expect((await gpuCount()) === '16', `drew ${await gpuCount()} GPUs`);
  await forget();
});

await test('lessons: pick one, walk its steps, reveal an answer, in both languages; a lesson link opens the training view', async () => {
  await page.goto('about:blank');
  await page.goto(base);
  await page.waitForSelector('#lesson-select');
  await page.selectOption('#lesson-select', 'ring-step-by-step');
  await page.waitForSelector('#lesson');
  expect(page.url().includes('?lesson=ring-step-by-step&step=0'), page.url());
  await waitFor('step 1 of the ring', async () => (await text('#step-text')).startsWith('Step 1 / 14'));
  expect((await text('#lesson-text')).includes('reduce-scatter'), await text('#lesson-text'));
  await page.click('#lesson-next');
  await waitFor('the second lesson step', async () => /\b2 \/ \d/.test(await text('#lesson-progress')));
  await waitFor('step 8 of the ring', async () => (await text('#step-text')).startsWith('Step 8 / 14'));
  expect((await page.locator('#lesson-answer').count()) === 0, 'the answer waits to be asked for');
  await page.click('#lesson-reveal');
  expect((await text('#lesson-answer')).includes('2(n-1)/n'), await text('#lesson-answer'));
  await page.click('#lang-zh');
  await waitFor('Chinese lesson text', async () => (await text('#lesson-text')).includes('all-gather') && (await text('#lesson-text')).includes('第 8 到 14 步'));
  // A lesson in both languages and both themes (looked at, not compared).
  await page.screenshot({ path: join(shots, 'lesson-zh-light.png') });
  await page.click('#theme');
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(shots, 'lesson-zh-dark.png') });
  await page.click('#lang-en');
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(shots, 'lesson-en-dark.png') });
  await page.click('#theme');
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(shots, 'lesson.png') });
  await page.goto('about:blank');
  await page.goto(base + '?lesson=tp-inside-node&step=1');
  await page.waitForSelector('#tp-note');
  expect((await text('#tp-note')).includes('across nodes'), await text('#tp-note'));
  expect(/\b2 \/ \d/.test(await text('#lesson-progress')), await text('#lesson-progress'));
  await page.click('#lesson-close');
  await page.waitForSelector('#lesson-select');
  expect(!page.url().includes('lesson='), page.url());
  await page.click('#mode-collectives');
  await page.waitForSelector('#topology[data-gpu-count]');
  await page.goto(base + '#');
});

await test('share and export: copy link and embed code, download JSON, CSV, PNG and SVG of the run', async () => {
  await page.goto('about:blank');
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 2, collective: 'all_reduce', size_bytes: 1 << 24 })));
  await page.waitForSelector('#topology[data-gpu-count]');
  await page.click('#copy-link');
  const link = await page.locator('#share-text').inputValue();
  expect(link.startsWith(base) && link.includes('#s=') && link.includes('nodes%22%3A2'), link);
  await page.click('#copy-embed');
  const embed = await page.locator('#share-text').inputValue();
  expect(embed.startsWith('<iframe src=') && embed.includes('?embed&autoplay#s=') && embed.includes('height="1100"'), embed);
  const downloadOf = async (selector) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    const path = await download.path();
    return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
  };
  const json = await downloadOf('#export-json');
  const run = JSON.parse(json.text);
  expect(json.name === 'fabricscope-run.json' && run.scenario.nodes === 2 && run.summary.n_ranks === 16, json.text.slice(0, 200));
  expect(run.trace_hash === (await text('#trace-hash')), 'the JSON carries the trace hash the page shows');
  const links = await downloadOf('#export-links');
  expect(links.text.startsWith('link,from,to,kind') && links.text.trim().split('\n').length > 50, links.text.slice(0, 120));
  const transfers = await downloadOf('#export-transfers');
  expect(transfers.text.startsWith('rank,peer,step'), transfers.text.slice(0, 80));
  const png = await downloadOf('#export-png');
  expect(png.name === 'fabricscope-topology.png' && png.text.length > 1000, png.name);
  const topology = await downloadOf('#export-topology-svg');
  expect(topology.name === 'fabricscope-topology.svg' && topology.text.startsWith('<svg') && (topology.text.match(/>GPU 7<\/text>/g) || []).length === 2,
    topology.text.slice(0, 200));
  await page.waitForSelector('#busbw-chart[data-complete="true"]', { timeout: 60000 });
  const svg = await downloadOf('#export-svg');
  expect(svg.name === 'fabricscope-busbw.svg' && svg.text.includes('<svg') && svg.text.includes('Ring'), svg.text.slice(0, 120));
  const chartPng = await downloadOf('#export-chart-png');
  expect(chartPng.name === 'fabricscope-busbw.png' && chartPng.text.length > 1000, chartPng.name);
  // The link carries the view (language and theme) too.
  expect(page.url().includes('&lang=en&theme='), page.url());
});

await test('the sample wiki page embeds two live figures in iframes, one as a custom element, and calls the JS API', async () => {
  await page.goto('about:blank');
  await page.goto(base + 'embed-example.html');
  for (const [id, gpus] of [['#figure-ring', '8'], ['#figure-tree', '32']]) {
    const frame = page.frameLocator(id);
    await frame.locator('#topology[data-gpu-count]').waitFor({ timeout: 30000 });
    const count = await frame.locator('#topology').getAttribute('data-gpu-count');
    expect(count === gpus, `${id}: ${count} GPUs`);
    // Its figure and results fit the frame's height: no scrolling inside it.
    const height = await frame.locator('html').evaluate((html) => [html.scrollHeight, html.clientHeight]);
    expect(height[0] <= height[1], `${id}: ${height[0]} px of content in a ${height[1]} px frame`);
  }
  // The looping figure plays by itself, and starts again after its end.
  const ring = page.frameLocator('#figure-ring');
  await waitFor('the looping figure playing', async () => (await ring.locator('#play').innerText()).includes('Pause'), 10000);
  const clock = async () => Number(await ring.locator('#scrub').inputValue());
  // A run plays in 12 s; from near its end the restart comes after the 1.5 s hold.
  const end = Number(await ring.locator('#scrub').getAttribute('max'));
  await ring.locator('#scrub').fill(String(Math.floor(end * 0.97)));
  const seen = [await clock()];
  await waitFor('the loop starting again', async () => { seen.push(await clock()); return seen.some((t, i) => i > 0 && t < seen[i - 1]); }, 30000);
  // Without an iframe: the custom element draws from the wasm-pack package, and the JS API
  // answers (and names a bad scenario's problem).
  const element = page.locator('#element-ring');
  await waitFor('the custom element drawing', async () => Number(await element.getAttribute('data-frames')) > 10, 30000);
  const caption = await element.locator('.fabricscope-caption').innerText();
  expect(caption.startsWith('AllReduce of 256 MiB on 16 GPUs') && caption.includes('busbw'), caption);
  // In a worker, sharp at the screen's ratio, as wide as its container; a missing scenario is
  // one message and no canvas.
  expect((await element.getAttribute('data-mode')) === 'worker', `runs in ${await element.getAttribute('data-mode')}`);
  const sizes = await element.evaluate((e) => [Number(e.dataset.pixels), e.querySelector('canvas').getBoundingClientRect().width, devicePixelRatio]);
  expect(Math.abs(sizes[0] - sizes[1] * sizes[2]) <= 2, `canvas ${sizes[0]} px for ${sizes[1]} CSS px at ratio ${sizes[2]}`);
  // Its container narrows: the worker lays it out again at the new width.
  await element.evaluate((e) => { e.style.width = '500px'; });
  await waitFor('the figure laid out at the new width', async () => Math.abs(Number(await element.getAttribute('data-pixels')) - 500 * sizes[2]) <= 2);
  const missing = page.locator('#element-missing');
  await waitFor('the missing scenario named', async () => (await missing.getAttribute('data-error')) === 'true');
  expect((await missing.innerText()).includes('scenario attribute is missing') && (await missing.locator('canvas').count()) === 0, await missing.innerText());
  const api = page.locator('#api-output');
  await waitFor('the API answer', async () => (await api.innerText()).startsWith('AllGather of 64 MiB on 2 DGX A100'));
  const apiError = await api.getAttribute('data-error');
  expect(apiError && apiError.includes('nodes'), `the bad scenario's error: ${apiError}`);
  await page.screenshot({ path: join(shots, 'embed-example.png'), fullPage: true });
  await page.goto(base + '#');
});

await test('A/B compare: B starts as A, is edited alone, both run on one clock, the difference is said, the link keeps both', async () => {
  await page.goto('about:blank');
  await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 28, algorithm: 'Ring' })));
  await page.waitForSelector('#topology[data-gpu-count]');
  await page.click('#compare');
  await page.waitForSelector('#topology-b[data-gpu-count]');
  expect((await page.locator('#edit-b').getAttribute('aria-pressed')) === 'true', 'B is edited first');
  await page.selectOption('#nodes', '2');
  await waitFor('B on 2 nodes', async () => (await page.locator('#topology-b').getAttribute('data-gpu-count')) === '16');
  expect((await gpuCount()) === '8', 'A stays on one node');
  const diff = await text('#ab-diff');
  expect(/^B takes [\d.]+% (longer than|less time than) A/.test(diff) && diff.includes('InfiniBand'), diff);
  await page.click('#edit-a');
  expect((await page.locator('#nodes').inputValue()) === '1', 'the controls now show A');
  await page.screenshot({ path: join(shots, 'compare.png') });
  const url = page.url();
  expect(url.includes('&b='), url);
  // The copied link is the address bar's: both sides, not only the one being edited.
  await page.click('#copy-link');
  const copied = await page.locator('#share-text').inputValue();
  expect(copied === url, `copied ${copied} vs the address bar ${url}`);
  await page.click('#copy-embed');
  const embed = await page.locator('#share-text').inputValue();
  expect(embed.includes('?embed&autoplay#s=') && embed.includes('&b='), embed);
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('#topology-b[data-gpu-count]');
  expect((await page.locator('#topology-b').getAttribute('data-gpu-count')) === '16', 'the link restores B');
  await page.click('#compare');
  await waitFor('one view again', async () => (await page.locator('#topology-b').count()) === 0);
  await page.goto(base + '#');
});

await test('the α-β lesson: links-only latency equals the formula, NCCL\'s model adds its overheads', async () => {
  await page.goto('about:blank');
  await page.goto(base + '?lesson=alpha-beta&step=0');
  await page.waitForSelector('#latency');
  await waitFor('the links-only model', async () => (await page.locator('#latency').inputValue()) === 'links');
  const micros = (s) => parseFloat(s.replace(/[^0-9.]/g, ''));
  const links = micros(await text('#time'));
  const formula = await text('#alpha-beta');
  const predicted = micros(formula.split('=').pop().split(/µs/)[0]);
  expect(Math.abs(links - predicted) < 0.05, `engine ${links} µs vs α-β ${predicted} µs: ${formula}`);
  await page.click('#lesson-next');
  await waitFor('NCCL\'s model', async () => (await page.locator('#latency').inputValue()) === 'nccl');
  const nccl = micros(await text('#time'));
  expect(Math.abs(nccl - links - 49.0) < 0.05, `NCCL's model adds 8.4 + 14 × (3.4 - 0.5) µs: ${links} -> ${nccl}`);
  await page.goto(base + '#');
});

await test('the topology is redrawn at the new width after every window resize, not only the first', async () => {
  await page.goto(base + '#');
  await page.waitForSelector('#topology[data-gpu-count]');
  const width = () => page.$eval('#topology', (c) => c.width);
  const wide = await width();
  for (const viewport of [1000, 1200, 900]) {
    const before = await width();
    await page.setViewportSize({ width: viewport, height: 1000 });
    await waitFor(`a redraw at ${viewport} px`, async () => (await width()) !== before);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });
  await waitFor('the first width again', async () => (await width()) === wide);
});

await test('the page carries a Content-Security-Policy and runs under it', async () => {
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  const script = (policy || '').split(';').find((d) => d.trim().startsWith('script-src')) || '';
  expect(policy && policy.includes("default-src 'self'") && script.includes('sha256-') && !script.includes('unsafe-inline'), policy);
});

await accessTests({ page, base, test, expect, text, waitFor });
await checkTests({ page, base, test, expect, text, waitFor });
await phoneTests({ chromium, executablePath, args, base, shots, test, expect, consoleErrors, origin, offOrigin });

await test('MoE traffic shares links: the EP lesson across boxes lists the pairs run together; TP 24 in an NVL72 rack shows as 24', async () => {
  await page.goto('about:blank');
  await page.goto(base + '?lesson=ep-wants-nvlink&step=1');
  await page.waitForSelector('#contention tbody tr', { timeout: 60000 });
  const rows = await page.locator('#contention tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    kind: tr.dataset.kind, with: tr.dataset.with, cells: [...tr.querySelectorAll('td')].map((td) => td.innerText),
  })));
  const pairs = rows.map((r) => `${r.kind}/${r.with}`).join(' ');
  expect(pairs === 'Ep/Pp Pp/Ep Ep/Dp Dp/Ep', pairs);
  const ns = (cell) => {
    const [, value, unit] = cell.match(/([0-9.]+) (ns|µs|ms|s)/);
    return parseFloat(value) * { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 }[unit];
  };
  // Across boxes a pipeline send meets AllToAlls on its NIC: slower together than alone, and
  // its mean lies between the two.
  const send = rows.find((r) => r.kind === 'Pp').cells;
  const [alone, together, mean] = [ns(send[2]), ns(send[3]), ns(send[5])];
  expect(together > 2 * alone && mean > alone && mean < together, send.join(' | '));
  await page.click('#lang-zh');
  await waitFor('Chinese heading', async () => (await page.locator('h2', { hasText: '共享链路的流量' }).count()) === 1);
  await page.click('#lang-en');
  // A dense model has no such table; TP 24 in the rack reads 24, not the nearest power of two.
  await page.goto('about:blank');
  await page.goto(base + '?lesson=nvlink-domain&step=1');
  await page.waitForSelector('#ops tbody tr', { timeout: 60000 });
  expect((await page.locator('#contention').count()) === 0, 'no shared-links table without experts');
  expect((await page.locator('#tp').inputValue()) === '24', await page.locator('#tp').inputValue());
});

await test('48 DGX A100 at 1 GiB: a ring whose chunks differ by an element, refused before, runs at the size rounded to steps alike and says so in both languages', async () => {
  const link = base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-a100', nodes: 48, collective: 'all_reduce', size_bytes: 1 << 30 }));
  await reopen(link, '#topology[data-gpu-count="384"]');
  expect((await page.locator('#nodes').inputValue()) === '48', 'the node list shows the link\'s 48');
  await waitFor('the rounded ring shown', async () => (await page.locator('#method').innerText()).includes('268434432 of its 268435456 elements'), 60000);
  const method = await page.locator('#method').innerText();
  expect(method.includes('rounded down to a multiple of ranks × channels (3072)') && method.includes('within 5%'), method);
  expect((await page.locator('p.algo').innerText()).includes('Ring'), 'the tuner\'s ring');
  expect(/ms/.test(await page.locator('#time').innerText()), 'a time shown');
  await page.click('#lang-zh');
  await waitFor('the sentence in Chinese', async () => (await page.locator('#method').innerText()).includes('向下取整到秩数 × 通道数 3072 的倍数'));
  await page.click('#lang-en');
});

await test("any node count: 'Other…' opens a field, 24 typed in runs 192 GPUs, 20,000 is named and 24 stays", async () => {
  // One DGX H100 by link, its run done: the page without a link restores the last scenario
  // run (the test before's 48 DGX A100), simulating it behind a placeholder of 8 GPUs.
  await reopen(base.replace(/#.*$/, '') + `#s=${oneDgx}`, '#topology[data-gpu-count="8"]');
  await waitFor('no run pending', async () => (await page.locator('#progress').count()) === 0, 30000);
  await page.selectOption('#nodes', 'other');
  await page.waitForSelector('#nodes-other');
  await page.fill('#nodes-other', '24');
  await page.press('#nodes-other', 'Enter');
  // What the page shows, should it not get there.
  const state = async () =>
    `${await gpuCount()} GPUs, nodes ${await page.locator('#nodes').inputValue()}, ` +
    `${(await page.locator('#progress, .error, #error').allInnerTexts()).join(' | ')}`;
  await waitFor('192 GPUs drawn', async () => (await gpuCount()) === '192', 60000).catch(async (error) => {
    await page.screenshot({ path: join(shots, 'node-count-timeout.png') });
    throw new Error(`${error.message}: ${await state()}`);
  });
  expect((await page.locator('#nodes').inputValue()) === '24', 'the list shows 24');
  expect((await page.locator('#nodes-other').count()) === 0, 'the field closes');
  await page.selectOption('#nodes', 'other');
  await page.fill('#nodes-other', '20000');
  await page.press('#nodes-other', 'Enter');
  await waitFor('the error naming the nodes', async () => (await page.locator('.error').allInnerTexts()).join(' ').includes('nodes'), 10000);
  expect((await gpuCount()) === '192', 'the last good cluster stays');
  await page.click('#lang-zh');
  await waitFor('the error in Chinese', async () => (await page.locator('#error').innerText()).includes('节点数（nodes）：20000 超出范围：可用 1 到 16384'), 10000);
  await page.selectOption('#nodes', 'other');
  await waitFor('the field in Chinese', async () => (await page.locator('label', { hasText: '输入节点数' }).count()) === 1);
  await page.screenshot({ path: join(shots, 'node-count-zh.png') });
  await page.click('#lang-en');
  await page.selectOption('#nodes', '1');
  await waitFor('8 GPUs drawn', async () => (await gpuCount()) === '8', 30000);
});

await test('SendRecv on 1,024 GPUs at 1 GiB: channel 0 runs for its copies on the other 7 channels, beyond the page whole', async () => {
  // 1,048,576 transfers whole, beyond the page's 400,000; channel 0 (131,072) stands for all.
  await openAtScale({ preset: 'dgx-h100', nodes: 128, collective: 'send_recv', size_bytes: 1 << 30 }, 1024, 'SendRecv on 128 nodes at 1 GiB: simulated and drawn');
  const method = await text('#method');
  expect(method.includes('1048576') && method.includes('exact'), method);
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 40 && busbw < 50, `busbw ${busbw} GB/s: each GPU's 400 Gb/s NIC`);
  await page.screenshot({ path: join(shots, 'sendrecv-1024-gpus.png'), fullPage: true });
});

await test('AllToAll on 1,024 GPUs at 1 GiB: bounded by max-min sharing, labelled, its links at their mean load, the chart filled', async () => {
  // 8,380,416 transfers whole, and channel 0's 1,047,552 pairs beyond the page's runs: bounded.
  await openAtScale({ preset: 'dgx-h100', nodes: 128, collective: 'all_to_all', size_bytes: 1 << 30 }, 1024, 'AllToAll on 128 nodes at 1 GiB: bounded and drawn');
  const method = await text('#method');
  expect(method.includes('max-min bound') && method.includes('8380416') && method.includes('1047552'), method);
  expect((await text('#trace-hash')) === 'none (no engine run)', await text('#trace-hash'));
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 40 && busbw < 50, `busbw ${busbw} GB/s: each GPU's 400 Gb/s NIC`);
  // Mid-run: no step to follow, every link drawn at its mean load, and the table says which.
  const end = Number(await page.locator('#scrub').getAttribute('max'));
  await page.locator('#scrub').fill(String(Math.round(end * 0.5)));
  await waitFor('the bound said in place of a step', async () => (await text('#step-text')).startsWith('No timeline'));
  await waitFor('the chart filled, its bounded points said', async () => (await page.locator('#busbw-chart').getAttribute('data-complete')) === 'true' && (await page.locator('#chart-bounded').count()) === 1, 60000);
  expect((await text('#chart-bounded')).includes('bounded by max-min sharing'), await text('#chart-bounded'));
  await page.screenshot({ path: join(shots, 'alltoall-1024-gpus.png'), fullPage: true });
  await page.click('#lang-zh');
  await waitFor('in Chinese', async () => (await text('#method')).startsWith('获得方式：最大最小公平共享的界') && (await text('#step-text')).startsWith('没有时间线'));
  await page.click('#lang-en');
});

await test('Broadcast on 4,096 GPUs: its chain runs on its first nodes, the rest extrapolated, labelled in both languages', async () => {
  // 524,160 transfers whole at 4 MiB, beyond the page's 400,000: the chain runs on 390 or more
  // of its 512 nodes and is extrapolated (`simulation::chain`).
  await openAtScale({ preset: 'dgx-h100', nodes: 512, collective: 'broadcast', size_bytes: 4 << 20 }, 4096, 'Broadcast on 512 nodes at 4 MiB: run on fewer nodes, extrapolated and drawn');
  const method = await text('#method');
  expect(method.startsWith('Obtained by running the chain on fewer nodes') && method.includes('of 512 nodes') && method.includes('±1%'), method);
  expect((await text('#trace-hash')) === 'none (the whole chain is not run)', await text('#trace-hash'));
  const busbw = parseFloat(await text('#busbw'));
  expect(busbw > 0 && busbw < 50, `busbw ${busbw} GB/s: below each GPU's 400 Gb/s NIC`);
  const end = Number(await page.locator('#scrub').getAttribute('max'));
  await page.locator('#scrub').fill(String(Math.round(end * 0.5)));
  await waitFor('the extrapolation said in place of a step', async () => (await text('#step-text')).startsWith('No timeline: this chain was run on its first'));
  await waitFor('the chart filled, its extrapolated points said', async () => (await page.locator('#busbw-chart').getAttribute('data-complete')) === 'true' && (await page.locator('#chart-chain').count()) === 1, 60000);
  await page.screenshot({ path: join(shots, 'broadcast-4096-gpus.png'), fullPage: true });
  await page.click('#lang-zh');
  await waitFor('in Chinese', async () => (await text('#method')).startsWith('获得方式：在较少节点上运行链') && (await text('#step-text')).startsWith('没有时间线'));
  await page.screenshot({ path: join(shots, 'broadcast-4096-gpus-zh.png'), fullPage: true });
  await page.click('#lang-en');
});

await test('no console errors', async () => {
  expect(consoleErrors.length === 0, consoleErrors.join('\n'));
});

await test('no request leaves the page origin', async () => {
  expect(offOrigin.length === 0, offOrigin.join('\n'));
});

await ctx.close();
rmSync(profile, { recursive: true, force: true });
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
