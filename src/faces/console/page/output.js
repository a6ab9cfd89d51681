// Live output per job: ANSI colours through ansi_up (which escapes everything else), a bounded tail in the DOM.
import { AnsiUp } from 'ansi_up';

/** Characters of output the page keeps per job; older text leaves the page (the spill file keeps it all). */
const KEEP_CHARS = 200_000;

/** A hyperlink escape sequence (OSC 8) from a command shows its text; it never becomes a live link. */
class TextOnlyLinks extends AnsiUp {
  process_hyperlink(packet) {
    return this.escape_txt_for_html(packet.text);
  }
}

export function converter() {
  const ansi = new TextOnlyLinks();
  ansi.escape_html = true;
  ansi.url_allowlist = {};
  ansi.use_classes = true;
  return ansi;
}

class JobOutput {
  constructor() {
    this.views = new Set();
    this.reset();
  }

  /** Forgets what was shown: a new stream sends the job's output again from its start. Views stay attached. */
  reset() {
    this.parts = [];
    this.chars = 0;
    this.skipped = 0;
    this.ansi = { stdout: converter(), stderr: converter(), log: converter() };
    for (const view of this.views) view([], Number.POSITIVE_INFINITY);
  }

  add(event) {
    const added = [];
    if (event.skipped > 0) {
      this.skipped += event.skipped;
      added.push({ kind: 'skip', text: `[console: ${event.skipped} bytes not shown — the view fell behind or they left memory; the spill file has them]\n` });
    }
    for (const chunk of event.chunks) {
      if (!chunk.text) continue;
      const kind = chunk.kind === 'stderr' ? 'stderr' : chunk.kind === 'log' ? 'log' : 'stdout';
      added.push({ kind, html: this.ansi[kind].ansi_to_html(chunk.text), chars: chunk.text.length });
    }
    for (const part of added) {
      this.parts.push(part);
      this.chars += part.chars ?? part.text.length;
    }
    let dropped = 0;
    while (this.chars > KEEP_CHARS && this.parts.length > 1) {
      const part = this.parts.shift();
      this.chars -= part.chars ?? part.text.length;
      dropped += 1;
    }
    for (const view of this.views) view(added, dropped);
  }
}

const outputs = new Map();

export function outputOf(jobId) {
  let output = outputs.get(jobId);
  if (!output) outputs.set(jobId, (output = new JobOutput()));
  return output;
}

/**
 * Before a new stream: every job's output starts over, and a pane that stays on the page (a job's own panel) keeps
 * following its job. Outputs nobody shows are dropped.
 */
export function resetOutputs() {
  for (const [jobId, output] of outputs) {
    if (output.views.size === 0) outputs.delete(jobId);
    else output.reset();
  }
}

function element(part) {
  const span = document.createElement('span');
  span.className = part.kind;
  // Only ansi_up's escaped markup is ever parsed; the console's own notes are plain text.
  if (part.html !== undefined) span.innerHTML = part.html;
  else span.textContent = part.text;
  return span;
}

/** Binds a <pre> to a job's output; returns the unbind function. */
export function attach(pre, jobId) {
  const output = outputOf(jobId);
  pre.replaceChildren(...output.parts.map(element));
  // Opened on output that is already there: start at its newest line, as a person following it would.
  pre.scrollTop = pre.scrollHeight;
  const view = (added, dropped) => {
    const follow = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    for (let i = 0; i < dropped && pre.firstChild; i += 1) pre.firstChild.remove();
    for (const part of added) pre.append(element(part));
    if (follow) pre.scrollTop = pre.scrollHeight;
  };
  output.views.add(view);
  return () => output.views.delete(view);
}
