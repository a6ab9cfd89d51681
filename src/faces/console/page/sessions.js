// The session list: each session by its client's name, what it is doing, and whether it waits for a person.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { post } from './api.js';
import { ago, sessionName, shortId } from './format.js';

export function SessionList({ sessions, shown, pinned, onPick, now }) {
  return html`<aside class="sessions">
    <h2>Sessions (${sessions.length})</h2>
    ${sessions.length === 0 ? html`<p class="muted">No open session.</p>` : null}
    <ul>
      ${sessions.map((s) => {
        const classes = [s.id === shown ? 'selected' : '', s.approvals > 0 ? 'asking' : s.liveJobs > 0 ? 'live' : ''];
        return html`<li key=${s.id} data-session=${s.id} class=${classes.join(' ')} onClick=${() => onPick(s.id)} title="show this session and pin it">
          <div class="name">
            <span class="label" data-session-label>${sessionName(s)}</span>
            <span class="sid">${shortId(s.id)}</span>
            ${s.id === pinned ? html`<span class="pin" data-pinned title="pinned: the console stays here">📌 pinned</span>` : null}
          </div>
          <div class="cwd">${s.cwd}</div>
          <div class="meta">
            ${s.approvals > 0 ? html`<span class="pill warn" data-asking>${s.approvals === 1 ? 'approval waiting' : `${s.approvals} approvals waiting`}</span>` : null}
            <span class="pill ${s.mode === 'danger-full-access' ? 'bad' : 'info'}">${s.mode}</span>
            <span>${s.liveJobs} live · ${ago(s.lastActivity, now)}</span>
          </div>
        </li>`;
      })}
    </ul>
  </aside>`;
}

/** A person's choice of the session's standing sandbox mode. */
export function ModeControl({ session, modes }) {
  const [mode, setMode] = useState(session.mode);
  const [note, setNote] = useState('');
  useEffect(() => setMode(session.mode), [session.id, session.mode]);
  async function apply() {
    try {
      await post(`api/sessions/${encodeURIComponent(session.id)}/mode`, { mode });
      setNote('');
    } catch (e) {
      setNote(e.message);
    }
  }
  return html`<span class="mode">
    sandbox <select value=${mode} onChange=${(e) => setMode(e.target.value)} data-mode-select>
      ${modes.map((m) => html`<option value=${m}>${m}</option>`)}
    </select>
    <button onClick=${apply} disabled=${mode === session.mode}>Set mode</button>
    ${note ? html`<span class="error">${note}</span>` : null}
  </span>`;
}
