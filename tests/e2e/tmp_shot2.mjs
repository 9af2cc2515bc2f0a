import { chromium } from 'playwright-core';
const [base, out, scenJson, lang, w, h, wait] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const ctx = await browser.newContext({ viewport: { width: Number(w), height: Number(h) }, deviceScaleFactor: 2 });
const page = await ctx.newPage();
page.on('console', (m) => { if (m.type() === 'error') console.log('console', m.text()); });
await page.goto(base + '#s=' + encodeURIComponent(scenJson));
const scen = JSON.parse(scenJson);
await page.waitForSelector(process.argv[9] ? '#topology[data-gpu-count="' + process.argv[9] + '"]' : '#topology[data-gpu-count]', { timeout: 120000 });
await page.waitForFunction(() => !document.querySelector('.pending') && document.querySelector('#method')?.innerText.length > 0, null, { timeout: 120000 });
if (lang === 'zh') { await page.click('#lang-zh'); }
if (wait === 'play') { await page.click('#play'); await page.waitForTimeout(2500); } else { await page.waitForTimeout(800); }
await page.evaluate(() => window.scrollTo(0, document.querySelector('#topology').getBoundingClientRect().top + window.scrollY - 8));
await page.screenshot({ path: out });
console.log('gpus', await page.locator('#topology').getAttribute('data-gpu-count'));
await browser.close();
