//! Medians and 90th percentiles of measurements (token counts, milliseconds).
//!
//! Percentiles use the nearest-rank method on the sorted values, so every reported p90 is a
//! value that was really measured; the median of an even count is the mean of the middle two.

use serde::Serialize;

/// A summary of a set of measurements.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Summary {
    /// How many values.
    pub count: usize,
    /// The median.
    pub median: f64,
    /// The 90th percentile (nearest rank).
    pub p90: f64,
    /// The sum.
    pub total: f64,
}

/// Summarises `values`; `None` when there are none.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
    let rank = (0.9 * n as f64).ceil() as usize;
    let p90 = sorted[rank.clamp(1, n) - 1];
    Some(Summary { count: n, median, p90, total: sorted.iter().sum() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p90_of_ten_values() {
        let s = summarize(&[10.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).unwrap();
        assert_eq!((s.count, s.median, s.p90, s.total), (10, 5.5, 9.0, 55.0));
    }

    #[test]
    fn a_single_value_is_its_own_median_and_p90() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!((s.median, s.p90), (42.0, 42.0));
        assert!(summarize(&[]).is_none());
    }
}
