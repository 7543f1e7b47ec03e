// The API key bar shared by /docs and /graphiql: entered once, kept in this browser's
// localStorage, and sent as X-Service-ApiKey by both pages. Loaded as a file, not inline,
// so the pages' CSP can forbid inline scripts.
(function () {
  var STORAGE = 'pylon.apiKey';
  var listeners = [];
  function get() {
    try {
      return localStorage.getItem(STORAGE) || '';
    } catch (e) {
      return '';
    }
  }
  function set(key) {
    try {
      if (key) localStorage.setItem(STORAGE, key);
      else localStorage.removeItem(STORAGE);
    } catch (e) {
      /* storage disabled: the key lives for this page only */
    }
    listeners.forEach(function (fn) {
      fn(key);
    });
  }
  window.pylonApiKey = {
    get: get,
    onChange: function (fn) {
      listeners.push(fn);
    },
  };
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.getElementById('pylon-key');
    if (!form) return;
    var input = form.querySelector('input');
    var status = form.querySelector('output');
    var show = function (key) {
      status.textContent = key ? 'key set: sent as X-Service-ApiKey' : 'no key set';
    };
    input.value = get();
    show(input.value);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      set(input.value.trim());
      show(input.value.trim());
    });
  });
})();
