//! Whether a click reaches the element it is aimed at, decided from what hit tests found.
//!
//! Input goes to coordinates, not to an element, so a click's point is hit-tested first and must
//! land on the target or something inside it, in the target's own frame (or on the control a
//! target `<label>` stands for, or a label of the target: a label's click is its control's). An [`Approach`] finds
//! that point: something else on top (a sticky header, an invisible overlay) makes the element
//! scroll to the viewport's centre and be tried once more, then the click is refused naming what
//! covers it; a frame over the target or inside it is refused at once (the input would go to
//! another document); an element with no box that has also left its document is refused as a
//! stale ref. A target in an out-of-process frame is also hit-tested from the top page, where the
//! point must land on the element holding that frame.
//!
//! A [`Hover`] then follows the pointer coming to rest over the point: a hover can move or
//! collapse the target (a `:hover` rule that swaps an icon's image, a list that closes), so the
//! point is looked at again until the target is under the pointer, for at most
//! [`HOVER_SETTLE_MS`]. When it is not by then, the press goes to the point found before the
//! move only if that still reaches the target or an element holding it (the button around an
//! emptied icon); a target the hover took away is refused rather than pressed through onto
//! whatever lies beneath. Right before the press, the element must still be in its document.
//!
//! The runtime sends the scrolls, hit tests and pointer moves, and feeds what they found back.

use super::{ElementProblem, Refusal};

/// A point in the page's viewport coordinates.
pub type Point = (f64, f64);

/// How long a click waits, after the pointer comes to rest over its target, for what the hover
/// changed to settle.
pub const HOVER_SETTLE_MS: u32 = 300;
/// How often it looks meanwhile.
pub const HOVER_LOOK_MS: u32 = 25;

/// What a click at a point would reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// The target, something inside it, or what a click on it clicks anyway: the control of a
    /// target `<label>`, or a label of the target.
    Target,
    /// Something else, described for the agent.
    Other(String),
    /// Another frame's document (a frame laid over the target, or held inside it).
    Frame(String),
}

/// The tags of elements that hold another document: a click on one goes to that document.
const FRAME_TAGS: [&str; 4] = ["<iframe", "<frame", "<object", "<embed"];

impl Hit {
    /// What the isolated-world check on the target answered about the hit node: `true` (it is
    /// the target or inside it), `frame:<what>` (a frame element), or a description of it.
    pub fn from_verdict(verdict: Option<&str>) -> Hit {
        match verdict {
            None => Hit::Target,
            Some(what) => match what.strip_prefix("frame:") {
                Some(frame) => Hit::Frame(frame.to_owned()),
                None => Hit::Other(what.to_owned()),
            },
        }
    }

    /// What the top page's hit test found over a target in an out-of-process frame, when it is
    /// not the element holding that frame: another frame element (described `<iframe …`), or
    /// something of the page around the frame.
    pub fn in_top_page(what: String) -> Hit {
        if FRAME_TAGS.iter().any(|tag| what.starts_with(tag)) { Hit::Frame(what) } else { Hit::Other(what) }
    }
}

/// What counts as reaching the target, for one hit test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The target or something inside it.
    Inside,
    /// That, or an element holding the target other than the page's body and root (the button
    /// around an icon a hover emptied). A target no longer in the document is held by nothing.
    InsideOrHolding,
}

/// What one look at the element found.
#[derive(Debug, Clone, PartialEq)]
pub enum Sight {
    /// It has no visible box now (hidden, collapsed or zero-size).
    NoBox,
    /// Its visible centre is `at`, and a hit test there in its own frame found `hit`.
    Seen {
        /// The centre, in the page's viewport coordinates.
        at: Point,
        /// What a click there reaches in the target's frame.
        hit: Hit,
    },
}

/// The centre of the first of `quads` (`DOM.getContentQuads`: four corners each) with an area
/// worth clicking, or `None` when the element shows none.
pub fn visible_centre(quads: &[Vec<f64>]) -> Option<Point> {
    quads
        .iter()
        .filter(|q| q.len() == 8 && quad_area(q) > 1.0)
        .map(|q| ((q[0] + q[2] + q[4] + q[6]) / 4.0, (q[1] + q[3] + q[5] + q[7]) / 4.0))
        .next()
}

fn quad_area(q: &[f64]) -> f64 {
    // Shoelace formula over the four corners.
    let mut twice = 0.0;
    for i in 0..4 {
        let (x1, y1) = (q[2 * i], q[2 * i + 1]);
        let (x2, y2) = (q[(2 * i + 2) % 8], q[(2 * i + 3) % 8]);
        twice += x1 * y2 - x2 * y1;
    }
    (twice / 2.0).abs()
}

/// What the runtime does next to find where a click reaches the element.
#[derive(Debug, Clone, PartialEq)]
pub enum ApproachStep {
    /// Scroll the element into view if needed, then look ([`Approach::saw`]).
    ScrollIntoView,
    /// Scroll the element to the middle of the viewport (clear of sticky headers and footers),
    /// then look again.
    ScrollToCentre,
    /// Hit-test the point in the top page ([`Approach::top_page`]).
    LookFromTopPage(Point),
    /// Say whether the element is still in its document ([`Approach::attached`]).
    CheckAttached,
    /// A click at the point reaches the element.
    Reached(Point),
    /// The click is refused.
    Refuse(Refusal),
}

/// Finding a point where a click reaches the element (see the module's comment).
#[derive(Debug, Clone)]
pub struct Approach {
    out_of_process: bool,
    centred: bool,
    seen_at: Option<Point>,
    refusal_if_attached: Option<Refusal>,
}

impl Approach {
    /// An approach to an element in its frame's own process (`out_of_process` for a frame of
    /// another site, which the top page's hit test must also let through). Its first step is
    /// [`ApproachStep::ScrollIntoView`].
    pub fn new(out_of_process: bool) -> (Approach, ApproachStep) {
        let approach = Approach { out_of_process, centred: false, seen_at: None, refusal_if_attached: None };
        (approach, ApproachStep::ScrollIntoView)
    }

    /// What to do after a look at the element found `sight`.
    pub fn saw(&mut self, sight: Sight) -> ApproachStep {
        match sight {
            // Without a box the element may have left its document: that, if so, is what the
            // agent must hear (a stale ref says what to do), not that it is hidden.
            Sight::NoBox => {
                self.refusal_if_attached = Some(Refusal::Element(ElementProblem::NoBox));
                ApproachStep::CheckAttached
            }
            Sight::Seen { at, hit: Hit::Target } if self.out_of_process => {
                self.seen_at = Some(at);
                ApproachStep::LookFromTopPage(at)
            }
            Sight::Seen { at, hit } => {
                self.seen_at = Some(at);
                self.judge(hit)
            }
        }
    }

    /// What to do after the top page's hit test at the point of the last look found `hit`.
    pub fn top_page(&mut self, hit: Hit) -> ApproachStep {
        self.judge(hit)
    }

    /// What to do once it is known whether the element is still in its document.
    pub fn attached(&mut self, connected: bool) -> ApproachStep {
        match (connected, self.refusal_if_attached.take()) {
            (false, _) => ApproachStep::Refuse(Refusal::Stale),
            (true, Some(refusal)) => ApproachStep::Refuse(refusal),
            // Asked without cause: nothing found against the element, so look again.
            (true, None) => ApproachStep::ScrollIntoView,
        }
    }

    fn judge(&mut self, hit: Hit) -> ApproachStep {
        match (hit, self.seen_at) {
            (Hit::Target, Some(at)) => ApproachStep::Reached(at),
            (Hit::Target, None) => ApproachStep::ScrollIntoView,
            (Hit::Frame(what), _) => ApproachStep::Refuse(Refusal::Element(ElementProblem::OtherFrame { what })),
            (Hit::Other(_), _) if !self.centred => {
                self.centred = true;
                ApproachStep::ScrollToCentre
            }
            (Hit::Other(by), _) => ApproachStep::Refuse(Refusal::Element(ElementProblem::Covered { by })),
        }
    }
}

/// What the runtime does next while the pointer rests over the element before the press.
#[derive(Debug, Clone, PartialEq)]
pub enum HoverStep {
    /// Look at the element again ([`Hover::saw`]): its visible centre, hit-tested with
    /// [`Reached::Inside`].
    Look,
    /// Wait this many milliseconds, then look again.
    Wait(u32),
    /// Hit-test the point in the top page ([`Hover::top_page`]).
    LookFromTopPage(Point),
    /// Say whether the element is still in its document ([`Hover::attached`]).
    CheckAttached,
    /// Hit-test the point found before the hover, with [`Reached::InsideOrHolding`]
    /// ([`Hover::beneath`]).
    LookBeneath(Point),
    /// Move the pointer to the point (its last move before the press can itself close what the
    /// target was in), then say whether the element is still in its document.
    Settle(Point),
    /// Press at the point, where the pointer now is.
    Press(Point),
    /// Nothing is pressed.
    Refuse(Refusal),
}

/// Where the hover stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Looking for the target under the pointer.
    Watching,
    /// The wait is over and the target is not under the pointer: is it still in the document?
    Gone,
    /// The pointer moves to the point to press at; then the element must still be attached.
    Settling(Point),
}

/// The pointer resting over the element before the press (see the module's comment).
#[derive(Debug, Clone)]
pub struct Hover {
    before: Point,
    seen_at: Option<Point>,
    deadline_ms: f64,
    out_of_process: bool,
    phase: Phase,
}

impl Hover {
    /// The pointer has come to rest at `before` (the point the [`Approach`] found) at `now_ms`.
    /// The first step is [`HoverStep::Look`].
    pub fn new(before: Point, now_ms: f64, out_of_process: bool) -> (Hover, HoverStep) {
        let hover = Hover {
            before,
            seen_at: None,
            deadline_ms: now_ms + f64::from(HOVER_SETTLE_MS),
            out_of_process,
            phase: Phase::Watching,
        };
        (hover, HoverStep::Look)
    }

    /// What to do after a look at `now_ms` found `sight`.
    pub fn saw(&mut self, sight: Sight, now_ms: f64) -> HoverStep {
        match sight {
            Sight::NoBox => self.not_yet(now_ms),
            Sight::Seen { at, hit: Hit::Target } if self.out_of_process => {
                self.seen_at = Some(at);
                HoverStep::LookFromTopPage(at)
            }
            Sight::Seen { at, hit } => {
                self.seen_at = Some(at);
                self.judge(hit, now_ms)
            }
        }
    }

    /// What to do after the top page's hit test at the point of the last look found `hit`.
    pub fn top_page(&mut self, hit: Hit, now_ms: f64) -> HoverStep {
        self.judge(hit, now_ms)
    }

    /// What to do once it is known whether the element is still in its document.
    pub fn attached(&mut self, connected: bool) -> HoverStep {
        if !connected {
            return HoverStep::Refuse(Refusal::Stale);
        }
        match self.phase {
            Phase::Settling(at) => HoverStep::Press(at),
            Phase::Gone | Phase::Watching => HoverStep::LookBeneath(self.before),
        }
    }

    /// What to do after the hit test at the point found before the hover found `hit`.
    pub fn beneath(&mut self, hit: Hit) -> HoverStep {
        match hit {
            Hit::Target => self.settle(self.before),
            Hit::Other(instead) => HoverStep::Refuse(Refusal::Element(ElementProblem::GoneOnHover { instead })),
            Hit::Frame(what) => HoverStep::Refuse(Refusal::Element(ElementProblem::OtherFrame { what })),
        }
    }

    fn judge(&mut self, hit: Hit, now_ms: f64) -> HoverStep {
        match (hit, self.seen_at) {
            (Hit::Target, Some(at)) => self.settle(at),
            (Hit::Frame(what), _) => HoverStep::Refuse(Refusal::Element(ElementProblem::OtherFrame { what })),
            (Hit::Target | Hit::Other(_), _) => self.not_yet(now_ms),
        }
    }

    fn settle(&mut self, at: Point) -> HoverStep {
        self.phase = Phase::Settling(at);
        HoverStep::Settle(at)
    }

    /// The target is not under the pointer (yet): wait and look again, or, once the wait is
    /// over, find out whether it is still there to be pressed.
    fn not_yet(&mut self, now_ms: f64) -> HoverStep {
        let left = self.deadline_ms - now_ms;
        if left <= 0.0 {
            self.phase = Phase::Gone;
            return HoverStep::CheckAttached;
        }
        HoverStep::Wait((left.ceil() as u32).min(HOVER_LOOK_MS))
    }
}

#[cfg(test)]
mod tests;
