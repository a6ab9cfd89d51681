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

/** Opens the stream for a session (and a selected job); handlers get parsed event data. */
export function openStream({ session, job }, handlers) {
  const query = new URLSearchParams();
  if (session) query.set('session', session);
  if (job) query.set('job', job);
  const source = new EventSource(`api/stream?${query}`);
  for (const [name, handle] of Object.entries(handlers)) {
    if (name === 'open' || name === 'error') source.addEventListener(name, () => handle());
    else source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
  }
  return () => source.close();
}
