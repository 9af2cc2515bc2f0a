// One of the page's workers (`web/src/services/workers.rs`): it loads the page's own
// WebAssembly module (the JS the page preloads, and the module the page compiled, both sent in
// the first message: nothing is fetched or compiled again) and runs the page's independent
// simulations off its main thread: busbw chart points, the training view's step and
// comparisons, and the shown simulation's NVLSTree finer run. Messages in: {module, wasm}
// first, then {id, kind, input} (kind 'chart': a scenario's JSON; 'step': a training job's;
// 'train': a comparison's; 'finer': a finer run's). Out: {id, result} (its outcome as JSON), {id, error} if the module failed on it, or
// {init_error}.
let ready = null;

self.onmessage = async (event) => {
  const message = event.data;
  if (message.module) {
    ready = import(message.module).then(async (module) => {
      await module.default({ module_or_path: message.wasm });
      return module;
    });
    ready.catch((error) => self.postMessage({ init_error: String(error?.message ?? error) }));
    return;
  }
  let module;
  try {
    module = await ready;
  } catch {
    return;
  }
  try {
    const run = { step: module.trainStep, train: module.trainExtra, finer: module.finerRun }[message.kind] ?? module.chartPoint;
    self.postMessage({ id: message.id, result: run(message.input) });
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error?.message ?? error) });
  }
};
