// <fabricscope-figure scenario='{"preset": "dgx-h100", "nodes": 2, ...}' lang="en" loop-ms="8000">
//
// A live Fabricscope figure without an iframe: the scenario is simulated by the package that
// `wasm-pack build web --target web` makes (served here from ./pkg/, with `cargo xtask dist`),
// and the cluster is drawn on a canvas, looping over the collective. The simulation and the
// drawing run in a Web Worker (fabricscope-figure-worker.js) on a canvas handed over to it, so
// the host page never freezes, however large the cluster; where a worker cannot start (an old
// browser, or this file served from another origin than the page: browsers start workers only
// from the page's own origin), it runs on the page after the page has painted, and says so.
// The element fills its container's width, follows its resizes and the screen's pixel ratio,
// and shows one clear message for a missing or bad scenario, in place of the figure.
// Nothing is fetched but this file, the worker and ./pkg/.

const here = new URL('.', import.meta.url);

class FabricscopeFigure extends HTMLElement {
  connectedCallback() {
    if (this.started) return;
    this.started = true;
    // A block that fills its container, whatever the host's CSS says of custom elements.
    if (getComputedStyle(this).display === 'inline') this.style.display = 'block';
    const lang = this.getAttribute('lang') ?? document.documentElement.lang ?? 'en';
    this.zh = lang.startsWith('zh');
    this.status = document.createElement('p');
    this.status.className = 'fabricscope-caption';
    this.status.setAttribute('role', 'status');
    this.status.textContent = this.zh ? 'Fabricscope：正在后台模拟…' : 'Fabricscope: simulating in the background…';
    this.replaceChildren(this.status);
    const scenario = this.getAttribute('scenario');
    if (scenario === null || scenario.trim() === '') {
      this.fail(this.zh
        ? '缺少 scenario 属性：请写成 scenario=\'{"preset": "dgx-h100", "nodes": 2, "collective": "all_reduce", "size_bytes": 268435456}\'（场景文件或页面链接 #s= 中的 JSON）。'
        : 'the scenario attribute is missing: write scenario=\'{"preset": "dgx-h100", "nodes": 2, "collective": "all_reduce", "size_bytes": 268435456}\' (the JSON of a scenario file or of a page link\'s #s=).');
      return;
    }
    const loopMs = Number(this.getAttribute('loop-ms') ?? 8000);
    // The width the canvas is shown at: the element's content box.
    const width = () => {
      const style = getComputedStyle(this);
      const content = this.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return Math.max(320, Math.round(content || 800));
    };
    const canvas = document.createElement('canvas');
    canvas.style.width = '100%';
    canvas.style.height = 'auto';
    canvas.style.display = 'block';
    canvas.setAttribute('role', 'img');
    let worker = null;
    try {
      if (!canvas.transferControlToOffscreen) throw new Error('no OffscreenCanvas');
      worker = new Worker(new URL('fabricscope-figure-worker.js', here), { type: 'module' });
    } catch (error) {
      worker = null;
    }
    if (worker) {
      const offscreen = canvas.transferControlToOffscreen();
      worker.onmessage = (event) => this.onWorker(event.data, canvas);
      worker.onerror = (event) => this.fail(String(event.message || 'the worker stopped'));
      worker.postMessage({ canvas: offscreen, scenario, lang, width: width(), ratio: devicePixelRatio, loopMs }, [offscreen]);
      this.worker = worker;
      this.observe(() => worker.postMessage({ width: width(), ratio: devicePixelRatio }));
    } else {
      // On the page, after it has painted: the status shows first.
      setTimeout(() => this.onPage(canvas, scenario, lang, width, loopMs), 50);
    }
  }

  disconnectedCallback() {
    this.worker?.terminate();
    this.resizer?.disconnect();
  }

  // The container's width and the screen's pixel ratio, followed.
  observe(changed) {
    let last = [this.clientWidth, devicePixelRatio];
    this.resizer = new ResizeObserver(() => {
      const now = [this.clientWidth, devicePixelRatio];
      if (Math.abs(now[0] - last[0]) >= 1 || now[1] !== last[1]) {
        last = now;
        changed();
      }
    });
    this.resizer.observe(this);
  }

  onWorker(message, canvas) {
    if (message.error) {
      this.fail(message.error);
    } else if (message.ready) {
      canvas.setAttribute('aria-label', message.caption);
      this.status.textContent = message.caption;
      this.status.removeAttribute('role');
      this.replaceChildren(canvas, this.status);
      this.dataset.mode = 'worker';
    } else if (message.frames) {
      this.dataset.frames = String(message.frames);
    }
    if (message.pixels) this.dataset.pixels = String(message.pixels);
  }

  async onPage(canvas, scenario, lang, width, loopMs) {
    let figure;
    try {
      const { default: init, Figure } = await import(new URL('pkg/fabricscope.js', here));
      await init();
      figure = new Figure(canvas, scenario, lang, width(), devicePixelRatio);
    } catch (error) {
      this.fail(String(error?.message ?? error));
      return;
    }
    canvas.setAttribute('aria-label', figure.caption());
    this.status.textContent = `${figure.caption()} ${this.zh ? '（在页面主线程上运行：此浏览器无法启动 Web Worker）' : '(run on the page: this browser could not start a Web Worker)'}`;
    this.replaceChildren(canvas, this.status);
    this.dataset.mode = 'page';
    this.observe(() => figure.resize(width(), devicePixelRatio));
    let frames = 0;
    const tick = (now) => {
      if (!this.isConnected) return;
      figure.draw(((now % loopMs) / loopMs) * figure.end_ns());
      frames += 1;
      this.dataset.frames = String(frames);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  // One message in place of the figure: no empty canvas above it.
  fail(message) {
    this.worker?.terminate();
    const text = document.createElement('p');
    text.className = 'fabricscope-error';
    text.setAttribute('role', 'alert');
    text.textContent = `Fabricscope: ${message}`;
    this.replaceChildren(text);
    this.dataset.error = 'true';
  }
}

customElements.define('fabricscope-figure', FabricscopeFigure);
