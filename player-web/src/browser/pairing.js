// A screen without a registration key asks for a pairing code, shows it large, and polls with the
// request's secret (never shown) until an operator claims the code; a new code replaces an
// expired one. Resolves with the registration key.
import { sleep } from './clock.js';

export async function pair(show) {
  for (;;) {
    let request;
    try {
      const res = await fetch('/player/pairings', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_agent: navigator.userAgent.slice(0, 300), width: window.screen.width, height: window.screen.height }),
      });
      if (res.status === 429) {
        show({ code: null, message: 'Too many pairing requests; retrying shortly' });
        await sleep(Number(res.headers.get('retry-after') || 60) * 1000);
        continue;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      request = await res.json();
    } catch (e) {
      show({ code: null, message: `Waiting for the server (${e && e.message})` });
      await sleep(5000);
      continue;
    }
    show({ code: request.code, message: `Code valid until ${new Date(request.expires_at).toLocaleTimeString()}` });
    const expires = Date.parse(request.expires_at);
    while (Date.now() < expires) {
      await sleep(request.poll_interval_ms || 2000);
      let res;
      try {
        res = await fetch(`/player/pairings/${encodeURIComponent(request.secret)}`, { cache: 'no-store' });
      } catch {
        continue;
      }
      if (res.status === 404) break;
      if (!res.ok) continue;
      const poll = await res.json();
      if (poll.status === 'claimed') return { key: poll.registration_key, name: poll.name };
    }
  }
}
