// Requests waiting for a person in this console: a sandbox escalation, a command the policy asks about, or a
// connection to a host the network policy does not list.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { post } from './api.js';
import { ago } from './format.js';

export function Approvals({ approvals, names, now }) {
  const [busy, setBusy] = useState(null);
  const [error, setError] = useState('');
  if (!approvals.length) return null;
  async function decide(id, decision) {
    setBusy(id);
    setError('');
    try {
      await post(`api/approvals/${encodeURIComponent(id)}`, { decision });
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(null);
    }
  }
  return html`<section class="approvals">
    <h2>Approvals waiting (${approvals.length})</h2>
    ${error ? html`<p class="error">${error}</p>` : null}
    ${approvals.map(
      (a) => html`<article class="approval" data-approval=${a.id} data-kind=${a.kind}>
        <div><b>Session</b> ${names.get(a.sessionId) ?? a.sessionId} · asked ${ago(a.requestedAt, now)}</div>
        ${a.kind === 'network'
          ? html`<div><b>Network</b> a command connects to <span class="pill warn host">${hostPort(a)}</span>, which the session's network policy does not list</div>`
          : a.kind === 'command'
            ? html`<div><b>Command policy</b> <span class="pill warn subcommand">${a.subcommand}</span> ${a.rule !== undefined ? html`rule <code class="rule">${a.rule}</code>` : html`no rule`}</div>`
            : html`<div><b>Mode</b> <span class="pill warn">${a.mode ?? '?'}</span></div>`}
        ${a.command !== undefined ? html`<pre class="command">$ ${a.command}</pre>` : null}
        ${a.cwd ? html`<div class="cwd">in ${a.cwd}</div>` : null}
        ${a.kind === 'command'
          ? html`<div class="message"><b>Why</b> ${a.message}</div>`
          : a.kind === 'escalation'
            ? html`<div><b>Justification</b> ${a.justification ?? a.reason}</div>`
            : null}
        <div class="actions">
          <button class="allow" disabled=${busy === a.id} onClick=${() => decide(a.id, 'allow-once')}>Allow once</button>
          ${a.alwaysPrefix
            ? html`<button class="always" disabled=${busy === a.id} onClick=${() => decide(a.id, 'allow-always')}>Allow "${a.alwaysPrefix.join(' ')}" always for this session</button>`
            : a.kind === 'network'
              ? html`<button class="always" disabled=${busy === a.id} onClick=${() => decide(a.id, 'allow-always')}>Allow ${hostPort(a)} for this session</button>`
              : null}
          <button class="reject" disabled=${busy === a.id} onClick=${() => decide(a.id, 'reject')}>Reject</button>
        </div>
      </article>`,
    )}
  </section>`;
}

/** `host:port`, an IPv6 literal in brackets. */
function hostPort(a) {
  return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}
