// The console page: it follows the work (the session waiting for a person or running jobs) unless a person pinned
// one; approvals, the task list and that session's timeline, fed by one event stream.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { openStream } from './api.js';
import { Approvals } from './approvals.js';
import { Card } from './cards.js';
import { sessionToFollow, useTailFollow } from './follow.js';
import { sessionName, shortId, useNow } from './format.js';
import { resetOutputs, outputOf } from './output.js';
import { JobPanel } from './panel.js';
import { ModeControl, SessionList } from './sessions.js';
import { TaskList } from './tasks.js';

/**
 * The session a person pinned, kept in the address (`#pin=<id>`; `#session=<id>` from older links) so a reload keeps
 * it. Unpinning hands the session to `setFollowed`, which keeps it while it still has work.
 */
function usePin(setFollowed) {
  const [pinned, setPinned] = useState(() => {
    const params = new URLSearchParams(location.hash.slice(1));
    return params.get('pin') ?? params.get('session');
  });
  const pin = (id) => {
    history.replaceState(null, '', `#pin=${encodeURIComponent(id)}`);
    setPinned(id);
  };
  const unpin = () => {
    history.replaceState(null, '', location.pathname + location.search);
    setFollowed(pinned);
    setPinned(null);
  };
  return [pinned, pin, unpin];
}

function Timeline({ session, cards, jobs, approvals, selectedCall, reveal, onRevealed, snap, now }) {
  const follow = useTailFollow(session.id);
  const jobsByCall = new Map(jobs.filter((j) => j.callId).map((j) => [j.callId, j]));
  const asked = new Map(approvals.filter((a) => a.callId).map((a) => [a.callId, a]));
  const timeline = [...cards.values()].sort((a, b) => a.startedAt - b.startedAt);
  useEffect(() => {
    if (!reveal) return;
    const card = follow.ref.current?.querySelector(`[data-call="${CSS.escape(reveal)}"]`);
    if (!card) return;
    // The person asked for this place: stay there (scrolling back to the bottom follows again).
    follow.hold();
    card.scrollIntoView({ block: 'center' });
    onRevealed();
  }, [reveal, cards]);
  return html`<section class="timeline">
    <h2 class="timeline-head">
      <span data-shown-session>${sessionName(session)}</span> <small class="sid">${shortId(session.id)}</small> <small class="cwd">${session.cwd}</small>
      ${snap.sandboxed ? html`<${ModeControl} session=${session} modes=${snap.modes} />` : null}
    </h2>
    <div class="timeline-scroll" ref=${follow.ref} data-timeline data-following=${String(follow.following)}>
      ${timeline.length === 0 ? html`<p class="muted">No tool calls yet.</p>` : null}
      ${timeline.map(
        (card) =>
          html`<${Card} key=${card.callId} card=${card} job=${jobsByCall.get(card.callId)} approval=${asked.get(card.callId)} selected=${card.callId === selectedCall} now=${now} />`,
      )}
      ${follow.following ? null : html`<button class="jump primary" data-jump onClick=${follow.resume}>↓ Follow the newest output</button>`}
    </div>
  </section>`;
}

/** The title, the stream's state, and whether the console follows the work or stays on a pinned session. */
function TopBar({ connected, pinned, onUnpin }) {
  return html`<header class="top">
    <h1><span class="brand">shellring</span> console</h1>
    <span class="conn ${connected ? 'ok' : 'bad'}">${connected ? 'live' : 'reconnecting…'}</span>
    <span class="spacer"></span>
    <span class="follow" data-follow=${pinned ? 'pinned' : 'following'}>
      ${pinned
        ? html`<span class="state pinned">📌 Pinned to ${pinned}</span><button onClick=${onUnpin} data-unpin>Follow the work</button>`
        : html`<span class="state">Following the work: the session waiting for a person or running jobs</span>`}
    </span>
  </header>`;
}

function App() {
  const [snap, setSnap] = useState(null);
  const [offset, setOffset] = useState(0);
  const [cards, setCards] = useState(new Map());
  const [synced, setSynced] = useState(false);
  const [followed, setFollowed] = useState(null);
  const [pinned, pin, unpin] = usePin(setFollowed);
  const [job, setJob] = useState(null);
  const [reveal, setReveal] = useState(null);
  const [panel, setPanel] = useState(null);
  const [connected, setConnected] = useState(false);
  const now = useNow(offset);
  const shown = pinned ?? followed;

  useEffect(() => {
    resetOutputs();
    setCards(new Map());
    setSynced(false);
    return openStream(
      { session: shown },
      {
        open: () => setConnected(true),
        error: () => setConnected(false),
        state: (value) => {
          setOffset(value.now - Date.now());
          setSnap(value);
        },
        card: (card) => setCards((old) => new Map(old).set(card.callId, card)),
        synced: () => setSynced(true),
        output: (event) => outputOf(event.jobId).add(event),
      },
    );
  }, [shown]);

  useEffect(() => {
    if (!snap) return;
    // A pinned session that closed lets the console follow the work again.
    if (pinned && !snap.sessions.some((s) => s.id === pinned)) unpin();
    else if (!pinned) setFollowed(sessionToFollow(snap.sessions, followed, now));
  }, [snap, pinned, now]);

  // A task whose card this session's timeline does not hold (never had one, or it left) opens in its own panel.
  useEffect(() => {
    if (reveal && synced && !cards.has(reveal)) {
      setPanel(job);
      setReveal(null);
    }
  }, [reveal, synced, cards]);

  if (!snap) return html`<p class="muted">Connecting…</p>`;
  const names = new Map(snap.sessions.map((s) => [s.id, sessionName(s)]));
  const current = snap.sessions.find((s) => s.id === shown);
  const selectedJob = snap.jobs.find((j) => j.id === job);
  const panelJob = snap.jobs.find((j) => j.id === panel);

  function show(id) {
    // Choosing another session is choosing to stay on it.
    if (id !== shown) pin(id);
  }
  function selectJob(row) {
    setJob(row.id);
    show(row.sessionId);
    if (row.callId) setReveal(row.callId);
    else setPanel(row.id);
  }
  function openPanel(row) {
    setJob(row.id);
    show(row.sessionId);
    setPanel(row.id);
  }

  return html`<div class="layout ${panelJob ? 'with-panel' : ''}">
    <${TopBar} connected=${connected} pinned=${pinned && (names.get(pinned) ?? shortId(pinned))} onUnpin=${unpin} />
    <${SessionList} sessions=${snap.sessions} shown=${shown} pinned=${pinned} onPick=${show} now=${now} />
    <main>
      <${Approvals} approvals=${snap.approvals} names=${names} now=${now} />
      <${TaskList} jobs=${snap.jobs} selected=${job} onSelect=${selectJob} onOpen=${openPanel} now=${now} names=${names} />
      ${current
        ? html`<${Timeline}
            session=${current}
            cards=${cards}
            jobs=${snap.jobs}
            approvals=${snap.approvals}
            selectedCall=${selectedJob?.callId}
            reveal=${reveal}
            onRevealed=${() => setReveal(null)}
            snap=${snap}
            now=${now}
          />`
        : null}
    </main>
    ${panelJob ? html`<${JobPanel} job=${panelJob} name=${names.get(panelJob.sessionId) ?? panelJob.sessionId} onClose=${() => setPanel(null)} />` : null}
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
