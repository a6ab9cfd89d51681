// The task list: every job, running ones first, then the newest; a row brings its call's card into view.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { post } from './api.js';
import { bytes, duration } from './format.js';

const LIVE = new Set(['running', 'stopping']);

/** Running (and stopping) jobs first, then by start, newest first. */
export function taskOrder(jobs) {
  // Jobs started in the same millisecond: the later id (bash-10 after bash-9) first.
  return [...jobs].sort(
    (a, b) => Number(LIVE.has(b.state)) - Number(LIVE.has(a.state)) || b.startedAt - a.startedAt || b.id.localeCompare(a.id, undefined, { numeric: true }),
  );
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

/** How a job stands, with what stopped it when a person gave a reason. */
function State({ job }) {
  return html`<span class="state ${job.state}">${job.state}</span>${job.detail ? html` <small>${job.detail}</small>` : null}${
    job.killReason ? html` <small class="reason" data-reason>stopped: ${job.killReason}</small>` : null
  }${job.waiting ? html` <small class="waiting" data-waiting>${job.waiting}</small>` : null}`;
}

export function TaskList({ jobs, selected, onSelect, onOpen, now, names }) {
  const [stopping, setStopping] = useState(null);
  const live = jobs.filter((job) => LIVE.has(job.state)).length;
  return html`<section class="tasks">
    <h2>Tasks <small class="muted">${live} running · ${jobs.length} in all</small></h2>
    <div class="scroll" data-tasks>
      <table>
        <thead><tr><th></th><th>job</th><th>session</th><th>state</th><th>label</th><th>elapsed</th><th>bytes</th><th></th></tr></thead>
        <tbody>
          ${taskOrder(jobs).map(
            (job) => html`<tr key=${job.id} data-job=${job.id} class="${job.id === selected ? 'selected' : ''} ${job.state}" onClick=${() => onSelect(job)}>
              <td>${job.waited ? html`<span class="pill warn waited" title="a tool call is still waiting on this job" data-waited>call waits</span>` : null}${job.escalation ? html`<span class="pill warn" title="runs under an approved one-shot escalation until its command ends" data-escalation>${job.escalation}</span>` : null}</td>
              <td>${job.id}</td>
              <td class="sessioncell" title=${job.sessionId}>${names.get(job.sessionId) ?? job.sessionId}</td>
              <td><${State} job=${job} /></td>
              <td class="labelcell" title=${job.command ?? job.label}>${job.label}</td>
              <td>${duration((job.settledAt ?? now) - job.startedAt)}</td>
              <td>${bytes(job.bytes)}</td>
              <td>
                <button class="small open" title="open this job's own panel" onClick=${(e) => { e.stopPropagation(); onOpen(job); }}>panel</button>
                ${job.state === 'running' ? html` <button class="stop small" onClick=${(e) => { e.stopPropagation(); setStopping(job.id); }}>Stop</button>` : null}
              </td>
            </tr>
            ${stopping === job.id ? html`<tr class="stoprow"><td colspan="8"><${StopForm} job=${job} onDone=${() => setStopping(null)} /></td></tr>` : null}`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
