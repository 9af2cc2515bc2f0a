import { readFileSync } from 'node:fs';

// Browser tests of keyboard and screen-reader access, and of links that ask for what does not
// exist: run by run.mjs on its desktop page.

export async function accessTests({ page, base, test, expect, text, waitFor }) {
  await test('keyboard: the time slider steps a step per arrow and says which; the figure as a table whose links describe themselves', async () => {
    await page.goto('about:blank');
    await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify({ preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 28, nvls: false })));
    await page.waitForSelector('#topology[data-gpu-count]');
    await page.focus('#scrub');
    await page.keyboard.press('ArrowRight');
    await waitFor('step 1', async () => (await text('#step-text')).startsWith('Step 1 /'));
    let said = await page.locator('#scrub').getAttribute('aria-valuetext');
    expect(/step 1 of \d+/.test(said), said);
    await page.keyboard.press('ArrowRight');
    await waitFor('step 2', async () => (await text('#step-text')).startsWith('Step 2 /'));
    said = await page.locator('#scrub').getAttribute('aria-valuetext');
    expect(/step 2 of \d+/.test(said), said);
    expect((await page.locator('#size').getAttribute('aria-valuetext')).includes('B'), 'the size slider says its size');
    // The table mirror: opened from the keyboard at a step's start, where nothing moves yet,
    // it shows the middle of the step and says so.
    await page.focus('#link-table summary');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#link-table button.link-pick');
    expect((await page.locator('#link-table-when').count()) === 1, 'it says which instant it shows');
    // Played into the step and paused: the loads now, and its first link described. A pause
    // that lands where nothing moves (a step's latency, or the end) shows the middle again, so
    // it plays on a little until it pauses while data moves (how far 400 ms gets is the
    // machine's business, not the page's).
    const loadsNow = async () => (await page.locator('#link-table-when').count()) === 0 && (await page.locator('#link-table button.link-pick').count()) > 0;
    for (let tries = 0; tries < 8; tries += 1) {
      if (tries % 4 === 0) await page.keyboard.press('Home');
      await page.click('#play');
      await page.waitForTimeout(tries === 0 ? 400 : 100 + 37 * tries);
      await page.click('#play');
      await page.waitForTimeout(100);
      if (await loadsNow()) break;
    }
    await waitFor('the loads now', loadsNow);
    const rows = await page.locator('#link-table tbody tr').count();
    expect(rows > 0 && rows <= 12, `${rows} busiest links`);
    await page.focus('#link-table button.link-pick >> nth=0');
    await page.keyboard.press('Enter');
    await waitFor('the link described', async () => (await text('#link-info')).includes('line rate'));
    const load = await page.locator('#link-table tbody tr >> nth=0 >> td >> nth=2').innerText();
    expect((await text('#link-info')).includes(`= ${load}`), `${await text('#link-info')} vs ${load}`);
    await page.click('#lang-zh');
    await waitFor('a Chinese label', async () => ((await page.locator('#topology').getAttribute('aria-label')) || '').includes('拓扑'));
    await page.click('#lang-en');
    await page.goto(base + '#');
  });

  await test('links that ask for what does not exist: an unknown lesson is named; a bad embedded figure shows its error, not a default', async () => {
    await page.goto('about:blank');
    await page.goto(base + '?lesson=nope');
    await page.waitForSelector('#lesson-unknown');
    expect((await text('#lesson-unknown')).includes('"nope"'), await text('#lesson-unknown'));
    await page.goto('about:blank');
    await page.goto(base + '?embed#s=%7B%22preset%22%3A%22dgx-h100%22%2C%22nodes%22%3A0%7D');
    await page.waitForSelector('#link-error');
    expect((await text('#link-error')).includes("This figure's scenario could not be used"), await text('#link-error'));
    expect((await page.locator('#topology').count()) === 0, 'no figure in its place');
    await page.goto('about:blank');
    await page.goto(base + '#');
  });

  await test('sharing a lesson: the copied link carries the lesson, the step and the reader\'s own change, and opens on them', async () => {
    await page.goto('about:blank');
    await page.goto(base + '?lesson=ring-step-by-step&step=1');
    await page.waitForSelector('#lesson');
    await page.waitForSelector('#topology[data-gpu-count]');
    // With the lesson's card above the figure, the step buttons and sentence stay in the window.
    for (const selector of ['#step-forward', '#step-text']) {
      const box = await page.locator(selector).boundingBox();
      const height = await page.evaluate(() => innerHeight);
      expect(box && box.y + box.height <= height, `${selector} at ${JSON.stringify(box)} in a ${height} px window`);
    }
    await page.selectOption('#nodes', '2');
    await waitFor('16 GPUs', async () => (await page.locator('#topology').getAttribute('data-gpu-count')) === '16');
    await page.click('#copy-link');
    const link = await page.locator('#share-text').inputValue();
    expect(link.includes('?lesson=ring-step-by-step&step=1#') && (link.includes('%22nodes%22%3A2') || link.includes('"nodes":2')), link);
    await page.goto('about:blank');
    await page.goto(link);
    await page.waitForSelector('#lesson');
    await page.waitForSelector('#topology[data-gpu-count]');
    expect(/\b2 \/ \d/.test(await text('#lesson-progress')), await text('#lesson-progress'));
    expect((await page.locator('#topology').getAttribute('data-gpu-count')) === '16', 'the reader\'s two nodes');
    await page.click('#lesson-close');
    await page.goto(base + '#');
  });
}

export async function checkTests({ page, base, test, expect, text, waitFor }) {
  await test('a lesson states the model\'s numbers: its {keys} are filled from the run the page shows, in both languages', async () => {
    const lessons = JSON.parse(readFileSync(new URL('../../web/lessons.json', import.meta.url), 'utf8'));
    const find = (wanted) => {
      for (const lesson of lessons) for (const [k, step] of lesson.steps.entries()) if (wanted(step)) return `?lesson=${lesson.id}&step=${k}`;
      throw new Error('no lesson step states that figure');
    };
    // A collective step that states its busbw: the text says what the results panel says.
    await page.goto('about:blank');
    await page.goto(base + find((step) => step.scenario && step.text.en.includes('{busbw}')));
    await page.waitForSelector('#busbw');
    const busbw = await text('#busbw');
    await waitFor('the busbw in the text', async () => (await text('#lesson-text')).includes(busbw));
    expect(!(await text('#lesson-text')).includes('…'), await text('#lesson-text'));
    await page.click('#lang-zh');
    await waitFor('the busbw in the Chinese text', async () => /[\u4e00-\u9fff]/.test(await text('#lesson-text')) && (await text('#lesson-text')).includes(busbw));
    await page.click('#lang-en');
    // A training step that states its step time: the same number as the figures panel, read
    // where the template puts it.
    await page.goto('about:blank');
    const at = find((step) => step.train && step.text.en.includes('{step_time}'));
    await page.goto(base + at);
    await page.waitForSelector('#step-time');
    const [id, k] = [at.match(/lesson=([^&]+)/)[1], Number(at.match(/step=(\d+)/)[1])];
    const template = lessons.find((l) => l.id === id).steps[k].text.en;
    const before = template.split('{step_time}')[0];
    const lead = before.slice(before.lastIndexOf('}') + 1).slice(-15);
    const seconds = parseFloat(await text('#step-time'));
    await waitFor('the step time in the text', async () => !(await text('#lesson-text')).includes('…'));
    const shown = await text('#lesson-text');
    const said = parseFloat(shown.slice(shown.indexOf(lead) + lead.length));
    expect(shown.includes(lead) && Math.abs(said - seconds) <= 0.01 * seconds, `the text says ${said} (${shown}), the page ${seconds}`);
    await page.click('#lesson-close');
  });

  await test('the chunk grid: a ring\'s partial sums grow a step at a time to every GPU holding the sum; a tree names its up and down phases', async () => {
    const ring = { preset: 'dgx-h100', nodes: 1, collective: 'all_reduce', size_bytes: 1 << 28, algorithm: 'Ring', channels: 1 };
    await page.goto('about:blank');
    await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify(ring)));
    await page.waitForSelector('#chunk-grid');
    const cells = async () => page.locator('#chunk-grid tbody td').allInnerTexts();
    const start = await cells();
    expect(start.length === 64 && start.every((c) => c === '1/8'), `at launch each GPU holds its own: ${start}`);
    expect((await text('#ring-order')).startsWith('Ring order of channel 0 (ranks): 0 →'), await text('#ring-order'));
    for (let i = 0; i < 3; i += 1) await page.click('#step-forward');
    await waitFor('step 3', async () => (await text('#step-text')).startsWith('Step 3 /'));
    // After two finished steps of the reduce-scatter, 8 chunks (one per GPU) hold 3 of 8 contributions.
    const third = await cells();
    expect(third.filter((c) => c === '3/8').length === 8 && !third.includes('✓'), `after 2 steps: ${third}`);
    expect((await text('#chunk-grid-phase')).startsWith('Step 3: reduce-scatter'), await text('#chunk-grid-phase'));
    await page.click('#to-end');
    await waitFor('the end', async () => (await cells()).every((c) => c === '✓'));
    // A tree on 4 nodes: 32 rows, reducing up the tree, then broadcasting down it.
    const tree = { preset: 'dgx-h100', nodes: 4, collective: 'all_reduce', size_bytes: 65536, algorithm: 'Tree' };
    await page.goto('about:blank');
    await page.goto(base + '#s=' + encodeURIComponent(JSON.stringify(tree)));
    await page.waitForSelector('#chunk-grid');
    expect((await page.locator('#chunk-grid tbody tr').count()) === 32, 'a row per GPU');
    await page.click('#step-forward');
    await waitFor('up the tree', async () => (await text('#chunk-grid-phase')).includes('up the tree'));
    let down = false;
    for (let i = 0; i < 40 && !down; i += 1) {
      await page.click('#step-forward');
      down = (await page.locator('#chunk-grid-phase').count()) === 1 && (await text('#chunk-grid-phase')).includes('down the tree');
    }
    expect(down, 'the broadcast down the tree is named');
    await page.goto(base + '#');
  });
  await test('a lesson\'s check question: a wrong number is answered with the model\'s, the right one and the right choice are marked right', async () => {
    await page.goto('about:blank');
    await page.goto(base + '?lesson=ring-step-by-step&step=0');
    await page.waitForSelector('#lesson-check');
    await page.fill('#lesson-check-number', '12');
    await page.click('#lesson-check-submit');
    expect((await text('#lesson-check-result')).includes('the model says 14 steps'), await text('#lesson-check-result'));
    await page.fill('#lesson-check-number', '14');
    await page.click('#lesson-check-submit');
    expect((await text('#lesson-check-result')) === 'Right.', await text('#lesson-check-result'));
    await page.goto('about:blank');
    await page.goto(base + '?lesson=ring-vs-tree&step=0');
    await page.waitForSelector('#lesson-check');
    await page.check('#lesson-check input[value="0"]');
    await page.click('#lesson-check-submit');
    expect((await text('#lesson-check-result')).includes('the model says Tree'), await text('#lesson-check-result'));
    await page.check('#lesson-check input[value="1"]');
    await page.click('#lesson-check-submit');
    expect((await text('#lesson-check-result')) === 'Right.', await text('#lesson-check-result'));
    await page.click('#lesson-close');
    await page.goto(base + '#');
  });
}
