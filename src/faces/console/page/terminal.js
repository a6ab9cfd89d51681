// A terminal job's screen and keyboard in its panel: the runner's screen, fetched while the panel is open, and what a
// person types sent as the keys a terminal sends (Enter as a carriage return).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { post } from './api.js';

const SCREEN_MS = 500;
const KEYS = { 'ctrl-c': '\x03', 'ctrl-d': '\x04', esc: '\x1b', tab: '\t', up: '\x1b[A', down: '\x1b[B' };

export function TerminalPanel({ job }) {
  const [screen, setScreen] = useState(null);
  const [line, setLine] = useState('');
  const [problem, setProblem] = useState('');
  const running = job.state === 'running';
  useEffect(() => {
    if (!running) return undefined;
    let alive = true;
    const look = () =>
      post(`api/jobs/${encodeURIComponent(job.id)}/screen`)
        .then((got) => alive && setScreen(got))
        .catch(() => {});
    look();
    const timer = setInterval(look, SCREEN_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [job.id, running]);
  const send = (text) =>
    post(`api/jobs/${encodeURIComponent(job.id)}/input`, { text }).then(
      () => setProblem(''),
      (error) => setProblem(error.message),
    );
  const submit = (event) => {
    event.preventDefault();
    void send(`${line}\r`);
    setLine('');
  };
  return html`<section class="terminal" data-terminal=${job.id}>
    ${screen ? html`<pre class="screen" data-screen>${screen.lines.join('\n')}</pre>` : null}
    ${running
      ? html`<form class="typing" onSubmit=${submit}>
          <input data-typing value=${line} onInput=${(e) => setLine(e.currentTarget.value)} placeholder="type a line, Enter sends it" />
          ${Object.entries(KEYS).map(([name, bytes]) => html`<button type="button" class="small" onClick=${() => void send(bytes)}>${name}</button>`)}
        </form>`
      : null}
    ${problem ? html`<div class="problem">${problem}</div>` : null}
  </section>`;
}
