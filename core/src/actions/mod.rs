//! The decisions of acting on an element, made in the engine: the runtime observes the page
//! (hit tests, checked states, what a list offers), feeds the facts in, and performs the step
//! it is told; what is refused, and in which words, is decided here.

pub mod choose;
pub mod fill;
pub mod invalid_fields;
mod problem;
pub mod reach;
pub mod whole_values;

pub use problem::ElementProblem;

/// Why an action on an element is not done, for the runtime to turn into the agent's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Something is wrong with the element (the agent reads `<ref> <problem>`).
    Element(ElementProblem),
    /// The element has left its document since the snapshot that named it (the stale-ref
    /// error, which says what to do).
    Stale,
    /// The element is not what the action needs, or the value asked for does not suit it (the
    /// whole sentence, naming the ref).
    Invalid(String),
    /// What the element offers does not include what was asked for (the whole sentence).
    Options(String),
}
