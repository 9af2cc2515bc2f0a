// Browser tests on a phone: a 390×844 touch screen (isMobile, hasTouch), in English and
// Chinese; and the first paint before the WebAssembly arrives. Run by run.mjs, which passes
// its `test` and `expect`; this file has its own browser contexts (a phone's cannot be the
// desktop's persistent one).

import { join } from 'node:path';

const PHONE = { width: 390, height: 844 };

/// Elements that stick out of the viewport on the right (or left), outside boxes that scroll
/// themselves (tables in .table-scroll): what a reader would have to pan to see.
async function overflowing(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll('#app *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      let scroller = el.parentElement;
      let inside = false;
      while (scroller && scroller.id !== 'app') {
        const style = getComputedStyle(scroller);
        if (style.overflowX === 'auto' || style.overflowX === 'scroll' || style.position === 'fixed') { inside = true; break; }
        scroller = scroller.parentElement;
      }
      if (inside || getComputedStyle(el).position === 'fixed') continue;
      if (box.right > width + 1 || box.left < -1) {
        out.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} [${Math.round(box.left)}, ${Math.round(box.right)}]`);
      }
    }
    return { width, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8) };
  });
}

export async function phoneTests({ chromium, executablePath, args, base, shots, test, expect, consoleErrors, origin, offOrigin }) {
  const browser = await chromium.launch({ executablePath, headless: true, args });
  const phone = async (locale) => {
    const ctx = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
    const page = await ctx.newPage();
    page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(`phone: ${msg.text()}`); });
    page.on('pageerror', (err) => consoleErrors.push(`phone: ${err}`));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) offOrigin.push(url);
    });
    return { ctx, page };
  };
  const noOverflow = async (page, where) => {
    const o = await overflowing(page);
    expect(o.scroll <= o.width && o.out.length === 0, `${where}: the page is ${o.scroll} px wide on a ${o.width} px screen; ${o.out.join('; ')}`);
  };
  const inFirstScreen = async (page, selector) => {
    const box = await page.locator(selector).first().boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= PHONE.height, `${selector} is at ${JSON.stringify(box)}, not within the first ${PHONE.height} px`);
  };

  for (const [locale, lang, word] of [['en-US', 'en', 'Step'], ['zh-CN', 'zh', '步']]) {
    await test(`phone (${lang}): a lesson's text, its figure and the step controls share the first screen; nothing overflows`, async () => {
      const { ctx, page } = await phone(locale);
      await page.goto(base + '?lesson=ring-step-by-step&step=0');
      await page.waitForSelector('#topology[data-gpu-count]');
      await page.waitForTimeout(300);
      await noOverflow(page, 'a lesson');
      for (const selector of ['#lesson-text', '#lesson-next', '#topology', '#step-forward', '#play']) await inFirstScreen(page, selector);
      expect((await page.locator('#step-text').innerText()).includes(word), await page.locator('#step-text').innerText());
      // Touch wording, not the keyboard's or the mouse's.
      const info = await page.locator('#link-info').innerText();
      expect(lang === 'en' ? info.startsWith('Tap a link') : info.startsWith('轻触链路'), info);
      expect(!(await page.locator('.timeline .hint').innerText()).includes('Home/End'), 'no keyboard hint on a touch screen');
      // The controls wait in a drawer; the lesson's extras are folded.
      expect(!(await page.locator('#controls').isVisible()), 'the controls start closed');
      expect(!(await page.locator('#lesson-question').isVisible()), 'the question starts folded');
      await page.screenshot({ path: join(shots, `phone-lesson-${lang}.png`) });
      await page.click('#step-forward');
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(shots, `phone-lesson-${lang}-step.png`), fullPage: true });
      await ctx.close();
    });
  }

  await test('phone: the controls open in a drawer, change the cluster, and close (button, Escape, tap beside)', async () => {
    const { ctx, page } = await phone('en-US');
    await page.goto(base);
    await page.waitForSelector('#topology[data-gpu-count]');
    await noOverflow(page, 'the collectives view');
    await inFirstScreen(page, '#topology');
    await page.tap('#controls-toggle');
    await page.waitForSelector('#controls.open');
    expect(await page.locator('#nodes').isVisible(), 'the node count in the drawer');
    await page.screenshot({ path: join(shots, 'phone-drawer.png') });
    await page.selectOption('#nodes', '2');
    await page.waitForFunction(() => document.querySelector('#topology')?.getAttribute('data-gpu-count') === '16');
    await page.tap('#controls-close');
    expect(!(await page.locator('#controls').isVisible()), 'closed by its button');
    await page.tap('#controls-toggle');
    await page.keyboard.press('Escape');
    expect(!(await page.locator('#controls').isVisible()), 'closed by Escape');
    await page.tap('#controls-toggle');
    await page.mouse.click(10, 400);
    expect(!(await page.locator('#controls').isVisible()), 'closed by a tap beside it');
    await noOverflow(page, 'two nodes');
    // A tap on a link describes it: scan down the middle of GPU 0's column for one.
    const canvas = await page.locator('#topology').boundingBox();
    let found = '';
    for (let y = 4; y < canvas.height && !found; y += 5) {
      for (const fx of [0.06, 0.1, 0.14]) {
        await page.touchscreen.tap(canvas.x + canvas.width * fx, canvas.y + y);
        const info = await page.locator('#link-info').innerText();
        if (info.includes('GB/s')) { found = info; break; }
      }
    }
    expect(found.includes('line rate'), `a tapped link's details: ${found}`);
    await page.goto(base + '#');
    await ctx.close();
  });

  await test('phone: the training view fits the screen, its controls in the drawer', async () => {
    const { ctx, page } = await phone('zh-CN');
    await page.goto(base + '?lesson=tp-inside-node&step=0');
    await page.waitForSelector('#step-time');
    await page.waitForTimeout(300);
    await noOverflow(page, 'the training view');
    await inFirstScreen(page, '#lesson-text');
    await page.screenshot({ path: join(shots, 'phone-training-zh.png'), fullPage: true });
    await ctx.close();
  });

  await test('first paint: before the WebAssembly arrives, the title, every lesson and a sketch of the figure show, in the reader\'s language', async () => {
    try {
    for (const [locale, heading] of [['en-US', 'Guided lessons'], ['zh-CN', '引导课程']]) {
      const { ctx, page } = await phone(locale);
      await page.route('**/*.wasm', (route) => route.abort());
      await page.goto(base);
      await page.waitForSelector('.boot');
      expect(await page.locator('.boot h1').isVisible(), 'the title');
      expect(await page.locator('.boot-figure').isVisible(), 'the sketch');
      const shown = await page.locator('.boot-lessons h2').evaluate((h) => [...h.children].filter((s) => getComputedStyle(s).display !== 'none').map((s) => s.textContent).join(''));
      expect(shown === heading, `the heading in the reader's language: ${shown}`);
      const links = await page.locator('.boot-lessons a').count();
      expect(links >= 20, `${links} lessons listed`);
      const href = await page.locator('.boot-lessons a').first().getAttribute('href');
      expect(href.startsWith('?lesson='), href);
      await noOverflow(page, 'the first paint');
      await page.screenshot({ path: join(shots, `first-paint-${locale}.png`) });
      await ctx.close();
    }
    } finally {
      // The aborted wasm is this test's doing, not the page's.
      for (let i = consoleErrors.length - 1; i >= 0; i -= 1) if (/^phone: .*(wasm|WebAssembly|Failed to load resource|Failed to fetch)/i.test(consoleErrors[i])) consoleErrors.splice(i, 1);
    }
  });

  await browser.close();
}
