// The worker behind <fabricscope-figure>: it simulates the scenario and draws the figure on the
// canvas the element handed over (an OffscreenCanvas), so the host page's main thread never
// waits for a simulation or a frame. Messages in: {canvas, scenario, lang, width, ratio,
// loopMs} to start, {width, ratio} after a resize. Out: {ready, caption, height}, {height},
// {frames} now and then, or {error}.
import init, { Figure } from './pkg/fabricscope.js';

let figure = null;
let offscreen = null;
let loopMs = 8000;
let frames = 0;
const next = self.requestAnimationFrame ? (f) => self.requestAnimationFrame(f) : (f) => setTimeout(() => f(performance.now()), 16);

function tick(now) {
  if (!figure) return;
  figure.draw(((now % loopMs) / loopMs) * figure.end_ns());
  frames += 1;
  if (frames % 30 === 1) self.postMessage({ frames });
  next(tick);
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.canvas) {
    offscreen = message.canvas;
    try {
      await init();
      figure = new Figure(message.canvas, message.scenario, message.lang, message.width, message.ratio);
    } catch (error) {
      self.postMessage({ error: String(error?.message ?? error) });
      return;
    }
    loopMs = message.loopMs > 0 ? message.loopMs : 8000;
    self.postMessage({ ready: true, caption: figure.caption(), height: figure.height(), pixels: message.canvas.width });
    next(tick);
  } else if (figure && message.width) {
    const height = figure.resize(message.width, message.ratio);
    self.postMessage({ height, pixels: offscreen.width });
  }
};
