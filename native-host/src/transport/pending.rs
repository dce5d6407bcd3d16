//! Calls sent over a connection and still waiting for their answer, matched by id.
//!
//! Both ends of the host correlate requests with answers that arrive later on a reader task:
//! the MCP server's link to a bridge (answers come back over the bridge socket) and the bridge
//! (answers come back from the extension over native messaging). [`PendingCalls`] is that one
//! mechanism: it allocates ids, registers a [`Waiter`] per call, hands an answer to the waiter
//! with the same id, forgets a call nobody waits for any more (timed out, never sent), and fails
//! every waiter at once when the connection is lost. It never reads or writes the connection
//! itself.
//!
//! A call that waits for the person to answer a question in the browser is told so while it
//! waits ([`PendingCalls::waiting`]): its waiter then waits as long as the question may take
//! ([`Waiter::wait_on_person`]), within a hard maximum the waiter's owner sets, and hears the
//! question, for the agent's progress notes. It is told, too, when the person's answer comes
//! ([`PendingCalls::answered`]): a call whose connection closes while it still waits on the
//! person, no answer allowing it heard, did not act ([`Unanswered::ClosedWhileAsking`]), and
//! its agent can be told so instead of "it may have run".

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// Calls waiting for their answer of type `T`, by id.
pub struct PendingCalls<T> {
    next_id: AtomicU64,
    waiters: Mutex<HashMap<u64, Entry<T>>>,
}

/// Where a call's answer and its waiting notes go.
struct Entry<T> {
    answer: oneshot::Sender<T>,
    notes: mpsc::UnboundedSender<Note>,
}

/// What the browser says of a call while it runs, in the order it says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The call waits for the person to answer a question.
    Waiting(Waiting),
    /// The person's answer came (or their time ran out), before an allowed action starts.
    Answered {
        /// Whether the person allowed the action: only then may it run.
        allowed: bool,
    },
}

/// The call waits for the person to answer a question in the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// How long the call may now run, from when this was read.
    pub time_limit: Duration,
    /// The action asked about, in the person's words.
    pub question: String,
}

/// Why a [`Waiter`] got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unanswered {
    /// Every waiter was failed at once: the connection the answer would come over is gone.
    /// The call may have acted.
    #[error("the connection closed before the answer came")]
    ConnectionLost,
    /// The connection closed while the call waited on the person's answer to `question`, and
    /// no answer allowing anything had been heard: the call did not act, since nothing it asks
    /// about runs before the person allows it (and the browser says so before it runs).
    #[error("the connection closed while the person was asked: {question}")]
    ClosedWhileAsking {
        /// The action asked about, in the person's words.
        question: String,
    },
    /// The answer did not come within the time the caller allowed.
    #[error("no answer within {} s", .0.as_secs())]
    TimedOut(Duration),
}

/// One registered call. Dropping it (after its answer, a timeout, or an early return) forgets
/// its id, so an answer that comes later is reported as unexpected instead of kept forever.
pub struct Waiter<'a, T> {
    id: u64,
    answer: oneshot::Receiver<T>,
    notes: mpsc::UnboundedReceiver<Note>,
    calls: &'a PendingCalls<T>,
}

impl<T> Default for PendingCalls<T> {
    fn default() -> Self {
        Self { next_id: AtomicU64::new(1), waiters: Mutex::default() }
    }
}

impl<T> PendingCalls<T> {
    /// No calls yet; the first id is 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates a fresh id and registers a waiter for its answer. Register before sending the
    /// call, so an answer that arrives at once finds its waiter.
    pub fn register(&self) -> Waiter<'_, T> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let (notes_tx, notes) = mpsc::unbounded_channel();
        self.lock().insert(id, Entry { answer: tx, notes: notes_tx });
        Waiter { id, answer: rx, notes, calls: self }
    }

    /// Hands `answer` to the waiter of call `id`. Returns `false` when nobody waits for that id
    /// (never registered, already answered, forgotten, or failed).
    pub fn resolve(&self, id: u64, answer: T) -> bool {
        let waiter = self.lock().remove(&id);
        // A waiter dropped between `remove` and `send` has stopped waiting, too.
        waiter.is_some_and(|waiter| waiter.answer.send(answer).is_ok())
    }

    /// Tells the waiter of call `id` that the call waits for the person. Returns `false` when
    /// nobody waits for that id.
    pub fn waiting(&self, id: u64, waiting: Waiting) -> bool {
        self.note(id, Note::Waiting(waiting))
    }

    /// Tells the waiter of call `id` that the person's answer came, and whether it allows the
    /// action. Returns `false` when nobody waits for that id.
    pub fn answered(&self, id: u64, allowed: bool) -> bool {
        self.note(id, Note::Answered { allowed })
    }

    fn note(&self, id: u64, note: Note) -> bool {
        self.lock().get(&id).is_some_and(|entry| entry.notes.send(note).is_ok())
    }

    /// Stops waiting for call `id`; a later answer to it is not expected.
    pub fn forget(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Wakes every waiter with [`Unanswered::ConnectionLost`].
    pub fn fail_all(&self) {
        // Dropping the senders is what wakes the receivers.
        self.lock().clear();
    }

    /// How many calls are waiting.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry<T>>> {
        // Nothing panics while holding the lock; if something did, the map is still consistent.
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Waiter<'_, T> {
    /// The call's id: send it with the call; the answer comes back with it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Waits at most `timeout` for the answer.
    #[cfg(test)]
    pub async fn wait(mut self, timeout: Duration) -> Result<T, Unanswered> {
        match tokio::time::timeout(timeout, &mut self.answer).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(Unanswered::ConnectionLost),
            Err(_) => Err(Unanswered::TimedOut(timeout)),
        }
    }

    /// Waits for the answer `limit` past now, plus `grace` (the trip back); while the call
    /// waits for the person, as long as it says (see [`extended_deadline`]), but never more than
    /// `hard_max` past now, plus `grace`. Each note is handed to `heard` as it comes, in order,
    /// and what `heard` returns is awaited before the next one (so a note passed on is passed on
    /// in order). Every note told before the connection closed is heard before the close is
    /// judged: a close while the call waits on the person, no allowing answer heard, is
    /// [`Unanswered::ClosedWhileAsking`].
    pub async fn wait_on_person<Passed: Future<Output = ()>>(
        mut self,
        limit: Duration,
        hard_max: Duration,
        grace: Duration,
        mut heard: impl FnMut(&Note) -> Passed,
    ) -> Result<T, Unanswered> {
        let started = Instant::now();
        let mut deadline = started + limit + grace;
        let mut asking = Asking::default();
        let mut notes_open = true;
        loop {
            tokio::select! {
                // Notes first: those sent before the answer or the close are counted before it
                // (the sender closes only once the call is answered or failed).
                biased;
                note = self.notes.recv(), if notes_open => match note {
                    Some(note) => {
                        if let Note::Waiting(waiting) = &note {
                            deadline = extended_deadline(deadline, started, Instant::now(), waiting, hard_max, grace);
                        }
                        asking.hear(&note);
                        heard(&note).await;
                    }
                    None => notes_open = false,
                },
                answer = &mut self.answer => return answer.map_err(|_| asking.closed()),
                () = tokio::time::sleep_until(deadline) => {
                    return Err(Unanswered::TimedOut(deadline.duration_since(started)));
                }
            }
        }
    }
}

/// What a call's notes have said so far of the person's part in it.
#[derive(Debug, Default)]
struct Asking {
    /// The question open now: heard waiting, not yet answered.
    open: Option<String>,
    /// Whether any answer allowed an action: from then on the call may have acted.
    allowed: bool,
}

impl Asking {
    fn hear(&mut self, note: &Note) {
        match note {
            Note::Waiting(waiting) => self.open = Some(waiting.question.clone()),
            Note::Answered { allowed } => {
                self.open = None;
                self.allowed |= *allowed;
            }
        }
    }

    /// Why the call got no answer, its connection having closed.
    fn closed(self) -> Unanswered {
        match self.open {
            // The rule: an open question, and nothing allowed before it.
            Some(question) if !self.allowed => Unanswered::ClosedWhileAsking { question },
            _ => Unanswered::ConnectionLost,
        }
    }
}

/// When a call whose wait ends at `deadline` stops being waited for, once told at `now` that
/// it waits for the person (`note`): as long as the note says, plus `grace`, never less than
/// before (a note cannot cut a call short), and never more than `hard_max` past `started`, plus
/// `grace` (a browser cannot keep a call waiting without end).
pub fn extended_deadline(
    deadline: Instant,
    started: Instant,
    now: Instant,
    note: &Waiting,
    hard_max: Duration,
    grace: Duration,
) -> Instant {
    let asked = (now + note.time_limit).min(started + hard_max) + grace;
    deadline.max(asked)
}

impl<T> Drop for Waiter<'_, T> {
    fn drop(&mut self) {
        self.calls.forget(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOON: Duration = Duration::from_secs(5);

    #[test]
    fn ids_start_at_one_and_are_never_reused() {
        let calls = PendingCalls::<u32>::new();
        let first = calls.register();
        let second = calls.register();
        assert_eq!((first.id(), second.id()), (1, 2));
        drop(first);
        assert_eq!(calls.register().id(), 3);
    }

    #[tokio::test]
    async fn an_answer_reaches_the_waiter_with_the_same_id() {
        let calls = PendingCalls::new();
        let first = calls.register();
        let second = calls.register();
        assert!(calls.resolve(second.id(), "second"));
        assert!(calls.resolve(first.id(), "first"));
        assert_eq!(second.wait(SOON).await, Ok("second"));
        assert_eq!(first.wait(SOON).await, Ok("first"));
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn an_answer_for_an_unknown_id_is_reported_as_unexpected() {
        let calls = PendingCalls::new();
        let _waiter = calls.register();
        assert!(!calls.resolve(42, "stray"));
        assert_eq!(calls.len(), 1, "the registered waiter is untouched");
    }

    #[test]
    fn a_call_is_answered_at_most_once() {
        let calls = PendingCalls::new();
        let waiter = calls.register();
        assert!(calls.resolve(waiter.id(), 1));
        assert!(!calls.resolve(waiter.id(), 2));
    }

    #[tokio::test(start_paused = true)]
    async fn a_timed_out_call_is_forgotten() {
        let calls = PendingCalls::<u32>::new();
        let waiter = calls.register();
        let id = waiter.id();
        assert_eq!(waiter.wait(Duration::from_secs(130)).await, Err(Unanswered::TimedOut(Duration::from_secs(130))));
        assert!(!calls.resolve(id, 7), "a late answer finds nobody");
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn a_forgotten_call_is_not_answered() {
        let calls = PendingCalls::new();
        let waiter = calls.register();
        calls.forget(waiter.id());
        assert!(!calls.resolve(waiter.id(), 1));
    }

    #[test]
    fn dropping_a_waiter_forgets_its_call() {
        let calls = PendingCalls::new();
        let id = calls.register().id();
        assert_eq!(calls.len(), 0);
        assert!(!calls.resolve(id, 1));
    }

    #[tokio::test]
    async fn losing_the_connection_fails_every_waiter_at_once() {
        let calls = PendingCalls::<u32>::new();
        let first = calls.register();
        let second = calls.register();
        calls.fail_all();
        assert_eq!(first.wait(SOON).await, Err(Unanswered::ConnectionLost));
        assert_eq!(second.wait(SOON).await, Err(Unanswered::ConnectionLost));
        assert_eq!(calls.len(), 0);
    }

    fn note(seconds: u64) -> Waiting {
        Waiting { time_limit: Duration::from_secs(seconds), question: "click \"Pay\" (payment) on a.example".into() }
    }

    #[test]
    fn a_note_extends_the_deadline_to_what_it_says_within_the_hard_maximum() {
        let started = Instant::now();
        let (grace, max) = (Duration::from_secs(10), Duration::from_secs(3_660));
        let normal = started + Duration::from_secs(60) + grace;
        let now = started + Duration::from_secs(5);
        // The person's 2 minutes and the action's budget: past the normal 60 s.
        let extended = extended_deadline(normal, started, now, &note(123), max, grace);
        assert_eq!(extended, now + Duration::from_secs(123) + grace);
        // A shorter wait than the call had never cuts it short.
        assert_eq!(extended_deadline(normal, started, now, &note(3), max, grace), normal);
        // A browser asking for ever is held to the hard maximum.
        assert_eq!(extended_deadline(normal, started, now, &note(1_000_000), max, grace), started + max + grace);
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_waiting_for_the_person_is_waited_for_past_its_normal_limit_and_no_longer() {
        let calls = std::sync::Arc::new(PendingCalls::<u32>::new());
        let waiter = calls.register();
        let id = waiter.id();
        let (limit, max, grace) = (Duration::from_secs(60), Duration::from_secs(3_660), Duration::from_secs(10));
        assert!(calls.waiting(id, note(120)));
        let mut heard = Vec::new();
        let started = Instant::now();
        let outcome = waiter
            .wait_on_person(limit, max, grace, |n| {
                heard.push(n.clone());
                std::future::ready(())
            })
            .await;
        assert_eq!(outcome, Err(Unanswered::TimedOut(Duration::from_secs(130))));
        assert_eq!(started.elapsed(), Duration::from_secs(130), "the person's time and the grace, not 70 s");
        assert_eq!(heard, [Note::Waiting(note(120))]);

        // Answered after the normal limit would have cut it: the answer arrives.
        let waiter = calls.register();
        let id = waiter.id();
        assert!(calls.waiting(id, note(120)));
        let answering = calls.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(90)).await;
            answering.resolve(id, 7);
        });
        assert_eq!(waiter.wait_on_person(limit, max, grace, pass_on).await, Ok(7));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_note_the_normal_limit_holds() {
        let calls = PendingCalls::<u32>::new();
        let waiter = calls.register();
        let outcome =
            waiter.wait_on_person(Duration::from_secs(60), Duration::from_secs(3_660), Duration::ZERO, pass_on);
        assert_eq!(outcome.await, Err(Unanswered::TimedOut(Duration::from_secs(60))));
        assert!(!calls.waiting(1, note(120)), "a call nobody waits for hears nothing");
    }

    fn pass_on(_: &Note) -> std::future::Ready<()> {
        std::future::ready(())
    }

    /// How call 1 ends when the connection closes after the browser told `notes` of it.
    async fn closed_after(notes: &[Note]) -> Unanswered {
        let calls = PendingCalls::<u32>::new();
        let waiter = calls.register();
        for note in notes {
            let told = match note {
                Note::Waiting(waiting) => calls.waiting(waiter.id(), waiting.clone()),
                Note::Answered { allowed } => calls.answered(waiter.id(), *allowed),
            };
            assert!(told);
        }
        // Closed before the waiter looked at anything it was told.
        calls.fail_all();
        let (limit, max) = (Duration::from_secs(60), Duration::from_secs(3_660));
        waiter.wait_on_person(limit, max, Duration::ZERO, pass_on).await.unwrap_err()
    }

    fn asked() -> Unanswered {
        Unanswered::ClosedWhileAsking { question: note(120).question }
    }

    #[tokio::test(start_paused = true)]
    async fn a_close_while_the_person_is_asked_means_the_call_did_not_act() {
        assert_eq!(closed_after(&[Note::Waiting(note(120))]).await, asked());
    }

    #[tokio::test(start_paused = true)]
    async fn a_close_after_the_person_allowed_the_action_means_it_may_have_run() {
        let allowed = [Note::Waiting(note(120)), Note::Answered { allowed: true }];
        assert_eq!(closed_after(&allowed).await, Unanswered::ConnectionLost);
        // A second question in the same call: the first allowed action may have run.
        let asked_again = [Note::Waiting(note(120)), Note::Answered { allowed: true }, Note::Waiting(note(120))];
        assert_eq!(closed_after(&asked_again).await, Unanswered::ConnectionLost);
    }

    #[tokio::test(start_paused = true)]
    async fn a_close_of_a_call_never_waiting_on_the_person_means_it_may_have_run() {
        assert_eq!(closed_after(&[]).await, Unanswered::ConnectionLost);
    }

    #[tokio::test(start_paused = true)]
    async fn a_close_after_a_denial_claims_nothing() {
        // The call ends with its refusal at once; were it cut first, the host cannot tell what
        // else it did after the answer, so it says no more than before.
        let denied = [Note::Waiting(note(120)), Note::Answered { allowed: false }];
        assert_eq!(closed_after(&denied).await, Unanswered::ConnectionLost);
    }

    #[tokio::test(start_paused = true)]
    async fn every_note_told_before_the_close_is_heard_before_the_close_is_judged() {
        // The waiter is polled only after the notes and the close are all queued: whichever it
        // looks at first, an allowing answer told before the close always counts.
        for _ in 0..64 {
            let allowed = [Note::Waiting(note(120)), Note::Answered { allowed: true }];
            assert_eq!(closed_after(&allowed).await, Unanswered::ConnectionLost);
            assert_eq!(closed_after(&[Note::Waiting(note(120))]).await, asked());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn notes_are_heard_in_the_order_told_each_passed_on_before_the_next() {
        let calls = PendingCalls::<u32>::new();
        let waiter = calls.register();
        let id = waiter.id();
        assert!(calls.waiting(id, note(120)));
        assert!(calls.answered(id, true));
        assert!(calls.resolve(id, 7));
        let heard = std::cell::RefCell::new(Vec::new());
        let (limit, max) = (Duration::from_secs(60), Duration::from_secs(3_660));
        let outcome = waiter
            .wait_on_person(limit, max, Duration::ZERO, |note| {
                let note = note.clone();
                let heard = &heard;
                async move {
                    // Passing a note on takes a while: the next is not heard before it is done.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    heard.borrow_mut().push(note);
                }
            })
            .await;
        assert_eq!(outcome, Ok(7), "the answer comes after every note before it");
        assert_eq!(heard.into_inner(), [Note::Waiting(note(120)), Note::Answered { allowed: true }]);
    }

    #[test]
    fn calls_registered_after_a_failure_wait_normally() {
        let calls = PendingCalls::new();
        calls.fail_all();
        let waiter = calls.register();
        assert!(calls.resolve(waiter.id(), 1));
    }
}
