//! How much Sightline keeps, as a person sets it in the extension's options: the versions of
//! the agent's view held for the panel to compare, and the capacities of the timeline's console,
//! network, WebSocket and action rings. Every size is brought within sane bounds here, whatever
//! was stored, so that neither a zero nor a huge number can empty the logs or exhaust memory.

use serde::{Deserialize, Serialize};

use crate::changes::Limits;
use crate::page_state::HELD_VERSIONS;

/// The smallest and largest value one size may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bound {
    /// Smallest.
    pub min: usize,
    /// Largest.
    pub max: usize,
    /// What is kept when nothing is set.
    pub default: usize,
}

impl Bound {
    const fn new(min: usize, max: usize, default: usize) -> Self {
        Bound { min, max, default }
    }

    /// `value` within the bound.
    pub fn clamp(&self, value: usize) -> usize {
        value.clamp(self.min, self.max)
    }
}

/// The bound of each size, by the name the options use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bounds {
    /// Versions of the agent's view held per tab for the panel.
    pub history: Bound,
    /// Console messages kept.
    pub console: Bound,
    /// Requests kept.
    pub network: Bound,
    /// WebSocket events kept.
    pub websocket: Bound,
    /// Actions kept.
    pub actions: Bound,
}

/// The bounds of every size. The defaults are what Sightline keeps without options; the
/// largest rings stay a few megabytes, since the whole timeline is saved to the browser's
/// session storage.
pub const BOUNDS: Bounds = Bounds {
    history: Bound::new(2, 200, HELD_VERSIONS),
    console: Bound::new(10, 10_000, 1_000),
    network: Bound::new(10, 5_000, 500),
    websocket: Bound::new(10, 10_000, 1_000),
    actions: Bound::new(10, 2_000, 200),
};

/// The sizes a person chose; a size left out is its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sizes {
    /// Versions of the agent's view held per tab for the panel to compare.
    pub history: usize,
    /// Console messages kept.
    pub console: usize,
    /// Requests kept.
    pub network: usize,
    /// WebSocket events kept.
    pub websocket: usize,
    /// Actions kept.
    pub actions: usize,
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            history: BOUNDS.history.default,
            console: BOUNDS.console.default,
            network: BOUNDS.network.default,
            websocket: BOUNDS.websocket.default,
            actions: BOUNDS.actions.default,
        }
    }
}

impl Sizes {
    /// Every size brought within [`BOUNDS`].
    pub fn bounded(self) -> Sizes {
        Sizes {
            history: BOUNDS.history.clamp(self.history),
            console: BOUNDS.console.clamp(self.console),
            network: BOUNDS.network.clamp(self.network),
            websocket: BOUNDS.websocket.clamp(self.websocket),
            actions: BOUNDS.actions.clamp(self.actions),
        }
    }

    /// `limits` with the ring capacities of these sizes (bounded); the other limits are kept.
    pub fn limits(self, limits: Limits) -> Limits {
        let sizes = self.bounded();
        Limits {
            console: sizes.console,
            network: sizes.network,
            websocket: sizes.websocket,
            actions: sizes.actions,
            ..limits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_what_is_kept_without_options() {
        let limits = Sizes::default().limits(Limits::default());
        assert_eq!(limits, Limits::default());
        assert_eq!(Sizes::default().history, HELD_VERSIONS);
        assert_eq!(Sizes::default().bounded(), Sizes::default());
    }

    #[test]
    fn sizes_below_or_above_their_bounds_are_brought_within() {
        let zero = Sizes { history: 0, console: 0, network: 0, websocket: 0, actions: 0 }.bounded();
        assert_eq!(zero, Sizes { history: 2, console: 10, network: 10, websocket: 10, actions: 10 });
        let huge =
            Sizes { history: usize::MAX, console: usize::MAX, network: 1 << 40, websocket: 10_001, actions: 2_001 };
        assert_eq!(
            huge.bounded(),
            Sizes { history: 200, console: 10_000, network: 5_000, websocket: 10_000, actions: 2_000 }
        );
        let within = Sizes { history: 5, console: 25, network: 30, websocket: 40, actions: 50 };
        assert_eq!(within.bounded(), within);
    }

    #[test]
    fn limits_take_the_bounded_ring_sizes_and_keep_the_rest() {
        let base = Limits { endpoints: 7, sessions: 3, ..Limits::default() };
        let limits = Sizes { console: 3, network: 12, ..Sizes::default() }.limits(base);
        assert_eq!((limits.console, limits.network, limits.endpoints, limits.sessions), (10, 12, 7, 3));
    }

    #[test]
    fn a_size_left_out_of_the_stored_options_is_its_default() {
        let sizes: Sizes = serde_json::from_str(r#"{"console": 25}"#).expect("sizes");
        assert_eq!(sizes, Sizes { console: 25, ..Sizes::default() });
    }
}
