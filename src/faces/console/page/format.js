// How the console writes sizes, durations and names, and the clock it shows them against.
import { useEffect, useState } from 'preact/hooks';

export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

export function ago(at, now) {
  return at === undefined ? '—' : `${duration(now - at)} ago`;
}

/** The server's clock, ticking each second: `offset` is the server's time minus this browser's. */
export function useNow(offset) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now + offset;
}

/**
 * A session's short tag, telling apart sessions whose labels repeat (two windows of one client): the end of its id,
 * the random part of both a UUID and an MCP 2026 state's id (which starts with the instance's name).
 */
export function shortId(id) {
  return id.length > 12 ? id.slice(-8) : id;
}

/** What people call a session: its client's name or the library's label, else its tag. */
export function sessionName(session) {
  return session?.label ?? `session ${shortId(session?.id ?? '?')}`;
}
