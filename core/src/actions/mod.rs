//! The decisions of acting on an element, made in the engine: the runtime observes the page
//! (hit tests, checked states, what a list offers), feeds the facts in, and performs the step
//! it is told; what is refused, and in which words, is decided here.

mod problem;

pub use problem::ElementProblem;
