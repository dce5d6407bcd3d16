//! What the person lets an agent do where: rules per site ([`rules`]), the class of an action
//! judged from what it would do ([`classes`]), and the decision for one action given the rules
//! and what the person granted this session ([`decide`]).
//!
//! The runtime only gathers the facts (the tab's URL, the element's tag, type and form, the
//! fields around it, the URL a link or navigation goes to), asks the person when the decision
//! is to ask, waits and applies. Nothing an agent says about its action enters the judgement.

pub mod classes;
pub mod decide;
pub mod rules;
pub mod sites;

pub use classes::{ActionClass, ActionFacts, ElementFacts, FieldFacts};
pub use decide::{Decision, SessionGrants, decide, summary};
pub use rules::{Level, MAX_ANSWER_SECONDS, Policy, PolicyError, Rule, Verdict};
