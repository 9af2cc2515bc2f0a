// First paint, before the WebAssembly arrives: puts on <html> the language and theme the app
// will open in, so the static page in index.html shows in the reader's language and colours
// at once. The app decides the same way (route.rs: the link, then this browser, then the
// system) and takes over <html> when it starts (hooks/theme.rs).
(function () {
  var stored = function (key) {
    try { return JSON.parse(localStorage.getItem(key)); } catch (e) { return null; }
  };
  var lang = null;
  var theme = null;
  location.hash.replace(/^#/, '').split('&').slice(0, 64).forEach(function (part) {
    var pair = part.split('=');
    if (pair[0] === 'lang') lang = pair[1];
    if (pair[0] === 'theme') theme = pair[1];
  });
  lang = lang || stored('fabricscope.lang') || ((navigator.language || '').indexOf('zh') === 0 ? 'zh' : 'en');
  theme = theme || stored('fabricscope.theme') ||
    (window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  var root = document.documentElement;
  root.lang = lang === 'zh' || lang === 'zh-CN' ? 'zh-CN' : 'en';
  root.className = theme === 'dark' ? 'dark' : 'light';
})();
