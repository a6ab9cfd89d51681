// The console's calls to its server: changes carry the CSRF header; the event stream is one EventSource.
const csrf = document.querySelector('meta[name="shellring-csrf"]').content;

export async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shellring-csrf': csrf },
    body: JSON.stringify(body ?? {}),
    credentials: 'same-origin',
  });
  if (!res.ok) throw new Error((await res.text()).trim() || `HTTP ${res.status}`);
  return res.json();
}

export function spillUrl(path) {
  return `api/spill?path=${encodeURIComponent(path)}`;
}

/**
 * Opens the stream for a session (and a selected job); handlers get parsed event data. Output is acknowledged
 * once drawn, one acknowledgement in flight at a time: the server sends no more than the page keeps up with.
 */
export function openStream({ session, job }, handlers) {
  const query = new URLSearchParams();
  if (session) query.set('session', session);
  if (job) query.set('job', job);
  const source = new EventSource(`api/stream?${query}`);
  let stream = null;
  let drawn = 0;
  let sending = false;
  const ack = async () => {
    if (sending || !stream) return;
    sending = true;
    try {
      while (true) {
        const seq = drawn;
        await post('api/stream/ack', { stream, seq }).catch(() => {});
        if (drawn === seq) break;
      }
    } finally {
      sending = false;
    }
  };
  source.addEventListener('hello', (event) => {
    stream = JSON.parse(event.data).stream;
    drawn = 0;
  });
  for (const [name, handle] of Object.entries(handlers)) {
    if (name === 'open' || name === 'error') source.addEventListener(name, () => handle());
    else if (name === 'output') {
      source.addEventListener(name, (event) => {
        const data = JSON.parse(event.data);
        handle(data);
        drawn = data.seq;
        // After the browser has painted what was added.
        requestAnimationFrame(() => void ack());
      });
    } else source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
  }
  return () => source.close();
}
