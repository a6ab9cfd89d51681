// Which session the console shows when nobody chose one, and a scroll container that follows its newest content.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** How long a session stays shown after its last activity once it has no work left: its result is seen landing. */
const LINGER_MS = 5000;

/**
 * The session where the work is: one waiting for a person's approval, else one running jobs, newest activity first.
 * The shown one is kept while it still qualifies, and for LINGER_MS after its last activity, so the page neither
 * flaps between two busy sessions nor leaves a result the moment it lands. With no work anywhere the shown one
 * stays, or the newest activity is shown when none is.
 */
export function sessionToFollow(sessions, current, now) {
  const newest = (list) => list.reduce((best, s) => ((s.lastActivity ?? 0) > (best.lastActivity ?? 0) ? s : best));
  const shown = sessions.find((s) => s.id === current);
  const asking = sessions.filter((s) => s.approvals > 0);
  if (shown && shown.approvals > 0) return shown.id;
  if (asking.length) return newest(asking).id;
  if (shown && (shown.liveJobs > 0 || now - (shown.lastActivity ?? 0) < LINGER_MS)) return shown.id;
  const working = sessions.filter((s) => s.liveJobs > 0);
  if (working.length) return newest(working).id;
  if (shown) return shown.id;
  return sessions.length ? newest(sessions).id : null;
}

/** Within this many pixels of the bottom the view counts as there: output may grow while a wheel scroll lands. */
const BOTTOM_PX = 48;

function nearBottom(el) {
  return el.scrollTop + el.clientHeight >= el.scrollHeight - BOTTOM_PX;
}

/**
 * Keeps a scroll container at its bottom while the person has not scrolled away from it: every render and every
 * change inside it (output appended to a card draws without a render) moves it down. Scrolling up stops that;
 * scrolling back to the bottom resumes it. `reset` changes when a new view opens: it starts at the bottom again.
 */
export function useTailFollow(reset) {
  const ref = useRef(null);
  const following = useRef(true);
  const [isFollowing, setFollowing] = useState(true);
  const toEnd = useCallback(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, []);
  const set = useCallback((value) => {
    if (value === following.current) return;
    following.current = value;
    setFollowing(value);
  }, []);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    following.current = true;
    setFollowing(true);
    toEnd();
    let lastTop = el.scrollTop;
    // Judged by where the view went, not only where it is: content growing under a following view leaves it short
    // of the bottom for a moment without the person having moved it up.
    const onScroll = () => {
      if (nearBottom(el)) set(true);
      else if (el.scrollTop < lastTop) set(false);
      lastTop = el.scrollTop;
    };
    const observer = new MutationObserver(() => {
      if (following.current) toEnd();
    });
    el.addEventListener('scroll', onScroll, { passive: true });
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      el.removeEventListener('scroll', onScroll);
      observer.disconnect();
    };
  }, [reset]);
  useLayoutEffect(() => {
    if (following.current) toEnd();
  });
  const resume = useCallback(() => {
    set(true);
    toEnd();
  }, []);
  /** Stops following, for a place the person asked to see (a task's card). */
  const hold = useCallback(() => set(false), []);
  return { ref, following: isFollowing, resume, hold };
}
