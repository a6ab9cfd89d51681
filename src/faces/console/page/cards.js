// The timeline's cards: one per tool call, with its command, live output while it runs and its result once it ends.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { html } from 'htm/preact';
import { spillUrl } from './api.js';
import { bytes, duration } from './format.js';
import { attach, converter } from './output.js';

export function Output({ jobId }) {
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

/**
 * Where a call stands: running, waiting for a person (in this console, or asked by its client: an MCP 2026-07-28
 * call returns to ask and its retry continues the same card), or ended with its result.
 */
function phase(card, approval, now) {
  if (card.suspendedUntil !== undefined) return now < card.suspendedUntil ? 'client' : 'unanswered';
  if (card.endedAt !== undefined) return 'ended';
  return approval ? 'console' : 'running';
}

const WAITING = {
  client: 'waiting for approval in the client',
  console: 'waiting for your approval',
};

export function Card({ card, job, approval, selected, now }) {
  const state = phase(card, approval, now);
  const ended = state === 'ended' || state === 'unanswered';
  const title = card.description ?? card.tool;
  const classes = ['card', state === 'running' ? 'running' : '', WAITING[state] ? 'asking' : '', selected ? 'selected' : ''];
  return html`<article class=${classes.join(' ')} data-call=${card.callId} data-phase=${state}>
    <header>
      <span class="label">${title}</span>
      ${card.background ? html`<span class="pill info">background</span>` : null}
      ${card.escalation ? html`<span class="pill warn">asks ${card.escalation.mode}</span>` : null}
      ${state === 'running' ? html`<span class="pill info" data-pill>running ${duration(now - card.startedAt)}</span>` : null}
      ${WAITING[state] ? html`<span class="pill warn" data-pill>${WAITING[state]}</span>` : null}
      ${state === 'unanswered' ? html`<span class="pill bad" data-pill>not answered</span>` : null}
      ${state === 'ended' ? html`<${ExitPill} result=${card.result} />` : null}
    </header>
    ${card.command !== undefined ? html`<pre class="command">$ ${card.command}</pre>` : html`<pre class="command">${card.tool} ${card.argsText ?? ''}</pre>`}
    ${card.cwd ? html`<div class="cwd">in ${card.cwd}</div>` : null}
    ${card.escalation?.justification ? html`<div class="asked">why: ${card.escalation.justification}</div>` : null}
    ${ended && card.result.stopped !== undefined ? html`<div class="stopped" data-stopped>stopped: ${card.result.stopped}</div>` : null}
    ${job?.waiting ? html`<div class="waiting" data-waiting>${job.waiting}</div>` : null}
    ${job ? html`<div class="jobline">job ${job.id} · ${job.state} · ${bytes(job.bytes)}</div><${Output} jobId=${job.id} />` : null}
    ${ended && !job ? html`<${ResultText} result=${card.result} />` : null}
    ${ended && card.result.spills.length
      ? html`<div class="spills">${card.result.spills.map((path) => html`<a class="spill" href=${spillUrl(path)} download>download full output (${path.split('/').pop()})</a> `)}</div>`
      : null}
  </article>`;
}
