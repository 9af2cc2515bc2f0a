// <fabricscope-figure scenario='{"preset": "dgx-h100", "nodes": 2, ...}' lang="en" loop-ms="8000">
//
// A live Fabricscope figure without an iframe: the scenario is simulated by the package that
// `wasm-pack build web --target web` makes (served here from ./pkg/, with `cargo xtask dist`),
// and the cluster is drawn on a canvas, looping over the collective. Bad input shows the named
// problem in the element instead of a figure. Nothing is fetched but this file and ./pkg/.
import init, { Figure } from './pkg/fabricscope.js';

const ready = init();

class FabricscopeFigure extends HTMLElement {
  async connectedCallback() {
    if (this.figure || this.started) return;
    this.started = true;
    await ready;
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(320, this.clientWidth || 800);
    canvas.style.width = '100%';
    const caption = document.createElement('p');
    caption.className = 'fabricscope-caption';
    this.replaceChildren(canvas, caption);
    try {
      this.figure = new Figure(canvas, this.getAttribute('scenario') ?? '', this.getAttribute('lang') ?? 'en');
    } catch (error) {
      caption.textContent = `Fabricscope: ${error.message ?? error}`;
      this.dataset.error = 'true';
      return;
    }
    caption.textContent = this.figure.caption();
    const loop = Number(this.getAttribute('loop-ms') ?? 8000);
    const start = performance.now();
    const tick = (now) => {
      if (!this.isConnected) return;
      this.figure.draw(((now - start) % loop) / loop * this.figure.end_ns());
      this.dataset.frames = String(Number(this.dataset.frames ?? 0) + 1);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }
}

customElements.define('fabricscope-figure', FabricscopeFigure);
