// The console page: sessions, the selected session's timeline, approvals and the task list, fed by one stream.
import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { openStream, post, spillUrl } from './api.js';
import { attach, converter, outputOf, resetOutputs } from './output.js';


function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

function ago(at, now) {
  return at === undefined ? '—' : `${duration(now - at)} ago`;
}

function useNow(offset) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now + offset;
}

function Output({ jobId }) {
  const ref = useRef(null);
  useEffect(() => attach(ref.current, jobId), [jobId]);
  return html`<pre class="output" data-output=${jobId} ref=${ref}></pre>`;
}

/** A finished result: its colours rendered by ansi_up, which escapes every other character. */
function ResultText({ result }) {
  const ref = useRef(null);
  // Before the frame is painted, so a finished card never shows an empty result first.
  useLayoutEffect(() => {
    ref.current.innerHTML = converter().ansi_to_html(result.text);
  }, [result.text]);
  return html`<pre class="result">${result.cut > 0 ? html`<span class="skip">[console: first ${result.cut} characters not shown]\n</span>` : null}<span ref=${ref}></span></pre>`;
}

function ExitPill({ result }) {
  if (result.stopped !== undefined) return html`<span class="pill warn" data-pill>stopped</span>`;
  if (result.signal !== undefined) return html`<span class="pill bad" data-pill>signal ${result.signal}</span>`;
  if (result.exitCode === undefined) {
    const text = result.isError ? 'error' : result.kind === 'background' ? 'started' : result.kind === 'promoted' ? 'moved to background' : 'returned';
    return html`<span class="pill ${result.isError ? 'bad' : 'info'}" data-pill>${text}</span>`;
  }
  return html`<span class="pill ${result.exitCode === 0 ? 'ok' : 'bad'}" data-pill>exit ${String(result.exitCode)}</span>`;
}

function Card({ card, job, now }) {
  const running = card.endedAt === undefined;
  const title = card.description ?? card.tool;
  return html`<article class="card ${running ? 'running' : ''}" data-call=${card.callId}>
    <header>
      <span class="label">${title}</span>
      ${card.background ? html`<span class="pill info">background</span>` : null}
      ${card.escalation ? html`<span class="pill warn">asks ${card.escalation.mode}</span>` : null}
      ${running ? html`<span class="pill info" data-pill>running ${duration(now - card.startedAt)}</span>` : html`<${ExitPill} result=${card.result} />`}
    </header>
    ${card.command !== undefined ? html`<pre class="command">$ ${card.command}</pre>` : html`<pre class="command">${card.tool} ${card.argsText ?? ''}</pre>`}
    ${card.cwd ? html`<div class="cwd">in ${card.cwd}</div>` : null}
    ${!running && card.result.stopped !== undefined ? html`<div class="stopped" data-stopped>stopped: ${card.result.stopped}</div>` : null}
    ${job?.waiting ? html`<div class="waiting" data-waiting>${job.waiting}</div>` : null}
    ${job ? html`<div class="jobline">job ${job.id} · ${job.state} · ${bytes(job.bytes)}</div><${Output} jobId=${job.id} />` : null}
    ${!running && !job ? html`<${ResultText} result=${card.result} />` : null}
    ${!running && card.result.spills.length
      ? html`<div class="spills">${card.result.spills.map((path) => html`<a class="spill" href=${spillUrl(path)} download>download full output (${path.split('/').pop()})</a> `)}</div>`
      : null}
  </article>`;
}

function Approvals({ approvals, sessions, now }) {
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
        <div><b>Session</b> ${sessions.get(a.sessionId) ?? a.sessionId} · asked ${ago(a.requestedAt, now)}</div>
        ${a.kind === 'command'
          ? html`<div><b>Command policy</b> <span class="pill warn subcommand">${a.subcommand}</span> ${a.rule !== undefined ? html`rule <code class="rule">${a.rule}</code>` : html`no rule`}</div>`
          : html`<div><b>Mode</b> <span class="pill warn">${a.mode ?? '?'}</span></div>`}
        ${a.command !== undefined ? html`<pre class="command">$ ${a.command}</pre>` : null}
        ${a.cwd ? html`<div class="cwd">in ${a.cwd}</div>` : null}
        ${a.kind === 'command' ? html`<div class="message"><b>Why</b> ${a.message}</div>` : html`<div><b>Justification</b> ${a.justification ?? a.reason}</div>`}
        <div class="actions">
          <button class="allow" disabled=${busy === a.id} onClick=${() => decide(a.id, 'allow-once')}>Allow once</button>
          ${a.alwaysPrefix
            ? html`<button class="always" disabled=${busy === a.id} onClick=${() => decide(a.id, 'allow-always')}>Allow "${a.alwaysPrefix.join(' ')}" always for this session</button>`
            : null}
          <button class="reject" disabled=${busy === a.id} onClick=${() => decide(a.id, 'reject')}>Reject</button>
        </div>
      </article>`,
    )}
  </section>`;
}

function StopForm({ job, onDone }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  async function stop(event) {
    event.preventDefault();
    try {
      await post(`api/jobs/${encodeURIComponent(job.id)}/stop`, reason.trim() ? { reason } : {});
      onDone();
    } catch (e) {
      setError(e.message);
    }
  }
  return html`<form class="stopform" onSubmit=${stop}>
    <input name="reason" placeholder="reason (optional): the model reads it" value=${reason} onInput=${(e) => setReason(e.target.value)} maxlength="500" />
    <button type="submit" class="reject">Stop ${job.id}</button>
    <button type="button" onClick=${onDone}>Cancel</button>
    ${error ? html`<span class="error">${error}</span>` : null}
  </form>`;
}

function TaskList({ jobs, selected, onSelect, now, names }) {
  const [stopping, setStopping] = useState(null);
  return html`<section class="tasks">
    <h2>Tasks (${jobs.length})</h2>
    <div class="scroll" data-tasks>
      <table>
        <thead><tr><th></th><th>job</th><th>session</th><th>state</th><th>label</th><th>elapsed</th><th>bytes</th><th></th></tr></thead>
        <tbody>
          ${jobs.map(
            (job) => html`<tr key=${job.id} data-job=${job.id} class="${job.id === selected ? 'selected' : ''} ${job.state}" onClick=${() => onSelect(job)}>
              <td>${job.waited ? html`<span class="pill warn waited" title="a tool call is still waiting on this job" data-waited>call waits</span>` : null}</td>
              <td>${job.id}</td>
              <td>${names.get(job.sessionId) ?? job.sessionId}</td>
              <td><span class="state ${job.state}">${job.state}</span>${job.detail ? html` <small>${job.detail}</small>` : null}${job.waiting ? html` <small class="waiting" data-waiting>${job.waiting}</small>` : null}</td>
              <td class="labelcell" title=${job.command ?? job.label}>${job.label}</td>
              <td>${duration((job.settledAt ?? now) - job.startedAt)}</td>
              <td>${bytes(job.bytes)}</td>
              <td>${job.state === 'running' ? html`<button class="stop" onClick=${(e) => { e.stopPropagation(); setStopping(job.id); }}>Stop</button>` : null}</td>
            </tr>
            ${stopping === job.id ? html`<tr class="stoprow"><td colspan="8"><${StopForm} job=${job} onDone=${() => setStopping(null)} /></td></tr>` : null}`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

function ModeControl({ session, modes }) {
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

function App() {
  const [snap, setSnap] = useState(null);
  const [offset, setOffset] = useState(0);
  const [cards, setCards] = useState(new Map());
  const [session, setSession] = useState(new URLSearchParams(location.hash.slice(1)).get('session'));
  const [job, setJob] = useState(null);
  const [connected, setConnected] = useState(false);
  const now = useNow(offset);

  useEffect(() => {
    resetOutputs();
    setCards(new Map());
    return openStream(
      { session, job },
      {
        open: () => setConnected(true),
        error: () => setConnected(false),
        state: (value) => {
          setOffset(value.now - Date.now());
          setSnap(value);
        },
        card: (card) => setCards((old) => new Map(old).set(card.callId, card)),
        output: (event) => outputOf(event.jobId).add(event),
      },
    );
  }, [session, job]);

  useEffect(() => {
    // Until a person picks one, the session with the newest activity (live work first) is shown.
    if (!session && snap?.sessions.length) setSession(newest(snap.sessions).id);
  }, [snap, session]);

  if (!snap) return html`<p class="muted">Connecting…</p>`;
  const names = new Map(snap.sessions.map((s, i) => [s.id, `#${i + 1} ${s.id.slice(0, 8)}`]));
  const current = snap.sessions.find((s) => s.id === session);
  const jobsByCall = new Map(snap.jobs.filter((j) => j.callId).map((j) => [j.callId, j]));
  const selectSession = (id) => {
    location.hash = `session=${encodeURIComponent(id)}`;
    setSession(id);
  };
  const selectJob = (row) => {
    if (row.sessionId !== session) selectSession(row.sessionId);
    setJob(row.id);
  };
  const selectedJob = snap.jobs.find((j) => j.id === job);
  const timeline = [...cards.values()].sort((a, b) => a.startedAt - b.startedAt);
  return html`<div class="layout">
    <header class="top">
      <h1>shellring console</h1>
      <span class="conn ${connected ? 'ok' : 'bad'}">${connected ? 'live' : 'reconnecting…'}</span>
    </header>
    <aside class="sessions">
      <h2>Sessions (${snap.sessions.length})</h2>
      ${snap.sessions.length === 0 ? html`<p class="muted">No open session.</p>` : null}
      <ul>
        ${snap.sessions.map(
          (s) => html`<li key=${s.id} data-session=${s.id} class=${s.id === session ? 'selected' : ''} onClick=${() => selectSession(s.id)}>
            <div class="sid">${names.get(s.id)}</div>
            <div class="cwd">${s.cwd}</div>
            <div class="meta"><span class="pill ${s.mode === 'danger-full-access' ? 'bad' : 'info'}">${s.mode}</span> · ${s.liveJobs} live · ${ago(s.lastActivity, now)}</div>
          </li>`,
        )}
      </ul>
    </aside>
    <main>
      <${Approvals} approvals=${snap.approvals} sessions=${names} now=${now} />
      <${TaskList} jobs=${snap.jobs} selected=${job} onSelect=${selectJob} now=${now} names=${names} />
      ${current
        ? html`<section class="timeline">
            <h2>Session ${names.get(current.id)} <small class="cwd">${current.cwd}</small>
              ${snap.sandboxed ? html`<${ModeControl} session=${current} modes=${snap.modes} />` : null}</h2>
            ${timeline.length === 0 ? html`<p class="muted">No tool calls yet.</p>` : null}
            ${timeline.map((card) => html`<${Card} key=${card.callId} card=${card} job=${jobsByCall.get(card.callId)} now=${now} />`)}
          </section>`
        : null}
      ${selectedJob && !selectedJob.callId
        ? html`<section class="followed"><h2>Output of ${selectedJob.id}</h2><${Output} jobId=${selectedJob.id} /></section>`
        : null}
    </main>
  </div>`;
}

/** The session a person most likely came for: one with live jobs, then the most recent activity. */
function newest(sessions) {
  const rank = (s) => [s.liveJobs > 0 ? 1 : 0, s.lastActivity ?? 0];
  return sessions.reduce((best, s) => {
    const [a, b] = [rank(s), rank(best)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? s : best;
  });
}

render(html`<${App} />`, document.getElementById('app'));
