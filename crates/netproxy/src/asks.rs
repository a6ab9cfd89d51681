//! Questions to a person about a host the session's policy does not list: one open question per host and port, every
//! connection to it waiting on the same answer, and the hosts a person allowed for the rest of the session.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A person's answer, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// These connections go through; the next one asks again.
    Once,
    /// These and every later connection to the host and port, for the rest of the session.
    Session,
    Rejected,
    /// Asked, and not answered in time (or the request was cancelled).
    Unanswered,
    /// Nobody could be asked.
    Nobody,
    /// The session ended while it waited.
    Ended,
}

impl Answer {
    /// `once`, `session`, `rejected`, `unanswered` or `nobody`, as the host's side answers.
    pub fn parse(text: &str) -> Option<Answer> {
        Some(match text {
            "once" => Answer::Once,
            "session" => Answer::Session,
            "rejected" => Answer::Rejected,
            "unanswered" => Answer::Unanswered,
            "nobody" => Answer::Nobody,
            _ => return None,
        })
    }

    /// The reason the connection is refused (`unlisted`: the policy's reason for a host on neither list), or None
    /// when it goes through.
    pub fn refusal(self, unlisted: &str) -> Option<String> {
        match self {
            Answer::Once | Answer::Session => None,
            Answer::Rejected => Some(format!("{unlisted}; a person refused it")),
            Answer::Unanswered => Some(format!(
                "{unlisted}; nobody answered the request to allow it"
            )),
            Answer::Nobody => Some(format!("{unlisted}, and nobody could be asked to allow it")),
            Answer::Ended => Some(format!(
                "{unlisted}; the session ended while a person was asked"
            )),
        }
    }
}

#[derive(Default)]
struct Question {
    answer: Mutex<Option<Answer>>,
    answered: Condvar,
}

type Target = (String, u16);

#[derive(Default)]
pub struct Asks {
    /// Locked before `allowed` wherever both are.
    open: Mutex<HashMap<Target, Arc<Question>>>,
    allowed: Mutex<HashSet<Target>>,
}

impl Asks {
    /// Whether a person allowed `host` (normalised) and `port` for the rest of the session.
    pub fn allowed(&self, host: &str, port: u16) -> bool {
        lock(&self.allowed).contains(&(host.to_string(), port))
    }

    /// Waits for the answer about `host` and `port`, at most `bound`. Only the first connection to wait on a question
    /// calls `ask` (false: the question could not be sent, so nobody can answer it).
    pub fn wait(
        &self,
        host: &str,
        port: u16,
        ask: impl FnOnce() -> bool,
        bound: Duration,
    ) -> Answer {
        let target = (host.to_string(), port);
        let (question, first) = {
            let mut open = lock(&self.open);
            if lock(&self.allowed).contains(&target) {
                return Answer::Session;
            }
            match open.get(&target) {
                Some(question) => (question.clone(), false),
                None => {
                    let question = Arc::new(Question::default());
                    open.insert(target.clone(), question.clone());
                    (question, true)
                }
            }
        };
        let _asking = Asking::begin();
        if first && !ask() {
            self.answer(host, port, Answer::Nobody);
        }
        let deadline = Instant::now() + bound;
        let mut answer = lock(&question.answer);
        while answer.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                drop(answer);
                let mut open = lock(&self.open);
                if open.get(&target).is_some_and(|q| Arc::ptr_eq(q, &question)) {
                    open.remove(&target);
                }
                return lock(&question.answer).unwrap_or(Answer::Unanswered);
            }
            answer = question
                .answered
                .wait_timeout(answer, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        answer.unwrap_or(Answer::Unanswered)
    }

    /// Answers the open question about `host` and `port`; false when none is open (answered, or given up on).
    pub fn answer(&self, host: &str, port: u16, answer: Answer) -> bool {
        let target = (host.to_string(), port);
        let question = {
            let mut open = lock(&self.open);
            let Some(question) = open.remove(&target) else {
                return false;
            };
            if answer == Answer::Session {
                lock(&self.allowed).insert(target);
            }
            question
        };
        settle(&question, answer);
        true
    }

    /// Ends every open question (the session is gone): its connections are refused.
    pub fn end(&self) {
        let open: Vec<_> = lock(&self.open).drain().map(|(_, q)| q).collect();
        for question in open {
            settle(&question, Answer::Ended);
        }
    }
}

/// While it lives, this thread is named `netproxy-ask`, so `ps -L` and /proc show how many connections wait for a
/// person; its own name comes back after.
struct Asking([u8; 16]);

impl Asking {
    fn begin() -> Asking {
        let mut own = [0u8; 16];
        // SAFETY: PR_GET_NAME writes at most 16 bytes, NUL included, into `own`; PR_SET_NAME reads a NUL-terminated
        // name. Both act on this thread only.
        unsafe {
            libc::prctl(libc::PR_GET_NAME, own.as_mut_ptr());
            libc::prctl(libc::PR_SET_NAME, c"netproxy-ask".as_ptr());
        }
        Asking(own)
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        // SAFETY: `self.0` holds the NUL-terminated name PR_GET_NAME gave.
        unsafe { libc::prctl(libc::PR_SET_NAME, self.0.as_ptr()) };
    }
}

fn settle(question: &Question, answer: Answer) {
    *lock(&question.answer) = Some(answer);
    question.answered.notify_all();
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const LONG: Duration = Duration::from_secs(60);

    #[test]
    fn concurrent_waiters_share_one_question_and_its_answer() {
        let asks = Arc::new(Asks::default());
        let asked = Arc::new(AtomicUsize::new(0));
        let waiters: Vec<_> = (0..10)
            .map(|_| {
                let (asks, asked) = (asks.clone(), asked.clone());
                std::thread::spawn(move || {
                    asks.wait(
                        "example.org",
                        443,
                        || asked.fetch_add(1, Ordering::SeqCst) == 0,
                        LONG,
                    )
                })
            })
            .collect();
        while lock(&asks.open).is_empty() {
            std::thread::yield_now();
        }
        // Every waiter either found the question open or has not reached it yet; answer once they all wait.
        while Arc::strong_count(lock(&asks.open).values().next().unwrap()) < 11 {
            std::thread::yield_now();
        }
        assert!(asks.answer("example.org", 443, Answer::Once));
        for waiter in waiters {
            assert_eq!(waiter.join().unwrap(), Answer::Once);
        }
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        assert!(!asks.allowed("example.org", 443));
    }

    #[test]
    fn a_waiting_thread_is_named_for_it_and_gets_its_name_back() {
        let asks = Arc::new(Asks::default());
        let tid = Arc::new(AtomicUsize::new(0));
        let waiter = {
            let (asks, tid) = (asks.clone(), tid.clone());
            std::thread::Builder::new()
                .name("netproxy-conn".into())
                .spawn(move || {
                    // SAFETY: gettid has no arguments and cannot fail.
                    tid.store(unsafe { libc::gettid() } as usize, Ordering::SeqCst);
                    let answer = asks.wait("example.org", 443, || true, LONG);
                    (
                        answer,
                        std::fs::read_to_string("/proc/thread-self/comm").unwrap(),
                    )
                })
                .unwrap()
        };
        let named = Instant::now() + LONG;
        let name = || match tid.load(Ordering::SeqCst) {
            0 => String::new(),
            tid => std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).unwrap(),
        };
        while name() != "netproxy-ask\n" && Instant::now() < named {
            std::thread::yield_now();
        }
        assert_eq!(name(), "netproxy-ask\n");
        // Named only once it waits on the question: the answer reaches it.
        assert!(asks.answer("example.org", 443, Answer::Once));
        assert_eq!(
            waiter.join().unwrap(),
            (Answer::Once, "netproxy-conn\n".to_string())
        );
    }

    #[test]
    fn a_session_answer_is_kept_for_that_host_and_port_only() {
        let asks = Arc::new(Asks::default());
        let waiter = {
            let asks = asks.clone();
            std::thread::spawn(move || asks.wait("example.org", 443, || true, LONG))
        };
        while !asks.answer("example.org", 443, Answer::Session) {
            std::thread::yield_now();
        }
        assert_eq!(waiter.join().unwrap(), Answer::Session);
        assert!(asks.allowed("example.org", 443));
        assert!(!asks.allowed("example.org", 80));
        assert_eq!(
            asks.wait("example.org", 443, || panic!("asked again"), LONG),
            Answer::Session
        );
    }

    #[test]
    fn a_question_that_cannot_be_sent_or_is_not_answered_refuses() {
        let asks = Asks::default();
        assert_eq!(asks.wait("a.example", 80, || false, LONG), Answer::Nobody);
        assert_eq!(
            asks.wait("b.example", 80, || true, Duration::from_millis(1)),
            Answer::Unanswered
        );
        assert!(lock(&asks.open).is_empty());
        assert!(!asks.answer("b.example", 80, Answer::Once));
    }

    #[test]
    fn ending_the_session_refuses_every_waiter() {
        let asks = Arc::new(Asks::default());
        let waiter = {
            let asks = asks.clone();
            std::thread::spawn(move || asks.wait("example.org", 22, || true, LONG))
        };
        while lock(&asks.open).is_empty() {
            std::thread::yield_now();
        }
        asks.end();
        assert_eq!(waiter.join().unwrap(), Answer::Ended);
    }

    #[test]
    fn refusals_name_what_happened() {
        let base = "not in the allowed hosts";
        assert_eq!(Answer::Once.refusal(base), None);
        assert_eq!(Answer::Session.refusal(base), None);
        assert_eq!(
            Answer::Rejected.refusal(base).unwrap(),
            "not in the allowed hosts; a person refused it"
        );
        assert_eq!(
            Answer::Nobody.refusal(base).unwrap(),
            "not in the allowed hosts, and nobody could be asked to allow it"
        );
        assert_eq!(Answer::parse("session"), Some(Answer::Session));
        assert_eq!(Answer::parse("ended"), None);
    }
}
