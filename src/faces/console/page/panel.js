// One job's own panel beside the timeline: its live output from the start of what memory holds. A job with a
// terminal gets its screen and keyboard here.
import { html } from 'htm/preact';
import { Output } from './cards.js';
import { bytes } from './format.js';
import { TerminalPanel } from './terminal.js';

export function JobPanel({ job, name, onClose }) {
  return html`<aside class="panel" data-panel=${job.id}>
    <header>
      <h2>${job.label} <small class="muted">${job.id}</small></h2>
      <button class="small" onClick=${onClose} title="close this panel">✕</button>
    </header>
    <div class="jobline">${name} · ${job.state}${job.killReason ? ` · stopped: ${job.killReason}` : ''} · ${bytes(job.bytes)}</div>
    <pre class="command">$ ${job.command}</pre>
    ${job.terminal ? html`<${TerminalPanel} job=${job} />` : null}
    <${Output} jobId=${job.id} />
  </aside>`;
}
