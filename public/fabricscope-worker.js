// One of the page's workers (`web/src/services/workers.rs`): it loads the page's own
// WebAssembly module (the JS the page preloads, and the module the page compiled, both sent in
// the first message: nothing is fetched or compiled again) and simulates busbw chart points off
// the page's main thread.
// Messages in: {module, wasm} first, then {id, scenario} (scenario JSON). Out: {id, result} (the
// point's outcome as JSON), {id, error} if the module failed on it, or {init_error}.
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
    self.postMessage({ id: message.id, result: module.chartPoint(message.scenario) });
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error?.message ?? error) });
  }
};
