// The fleet at a glance: every screen of the account with its last screenshot, whether it is
// online and what it plays (its manifest's schedule and the items its last ping named). Reads the
// REST API with the API key kept in localStorage (the docs pages' key). Refreshes every 15 s;
// screenshot object URLs are revoked when replaced.
(function () {
  var STORAGE = 'pylon.apiKey';
  var urls = [];
  function key() {
    try {
      return localStorage.getItem(STORAGE) || '';
    } catch (e) {
      return '';
    }
  }
  function api(path) {
    return fetch(path, { headers: { 'X-Service-ApiKey': key() } });
  }
  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }
  function refresh() {
    var status = document.getElementById('screens-status');
    if (!key()) {
      status.textContent = 'enter an API key';
      return;
    }
    api('/devices?take=200')
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(function (devices) {
        var grid = document.getElementById('screens');
        var old = urls;
        urls = [];
        grid.textContent = '';
        devices.forEach(function (d) {
          var card = document.createElement('article');
          card.className = 'screen-card';
          card.dataset.deviceId = d.id;
          // A placeholder until a screenshot arrives: an <img> without one showed the broken-image alt text.
          var shot = text('div', 'no screenshot yet', 'no-shot');
          card.appendChild(shot);
          card.appendChild(text('h2', d.name));
          card.appendChild(text('p', d.is_online ? 'online' : 'offline', d.is_online ? 'online' : 'offline'));
          var ping = d.ping_data || {};
          var meta = ping.meta || {};
          card.appendChild(text('p', 'schedule: ' + (ping.current_schedule || '-')));
          card.appendChild(text('p', 'now playing: ' + (meta.playing || '-'), 'now-playing'));
          grid.appendChild(card);
          api('/devices/' + encodeURIComponent(d.registration_key) + '/snap')
            .then(function (res) {
              return res.ok && (res.headers.get('content-type') || '').indexOf('image/') === 0 ? res.blob() : null;
            })
            .then(function (blob) {
              if (!blob) return;
              var u = URL.createObjectURL(blob);
              urls.push(u);
              var img = document.createElement('img');
              img.alt = 'screenshot of ' + d.name;
              img.src = u;
              card.replaceChild(img, shot);
            })
            .catch(function () {});
        });
        old.forEach(function (u) {
          URL.revokeObjectURL(u);
        });
        status.textContent = devices.length + ' screens, ' + new Date().toLocaleTimeString();
      })
      .catch(function (e) {
        status.textContent = 'could not list screens: ' + e.message;
      });
  }
  document.getElementById('key').value = key();
  document.getElementById('key-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    try {
      localStorage.setItem(STORAGE, document.getElementById('key').value.trim());
    } catch (e) {
      /* storage disabled */
    }
    refresh();
  });
  refresh();
  setInterval(refresh, 15000);
})();
