//! Property tests of the bounded capture buffer and its truncation marker.

#![allow(clippy::unwrap_used)]

use mcp_safety_core::exec::{CaptureBuffer, Captured};
use proptest::prelude::*;

const MARKER: &str = "\n[ToolHub discarded ";

/// Pushes `data` in chunks split at `cuts` (positions taken modulo the length).
fn capture(data: &[u8], limit: usize, cuts: &[usize]) -> Captured {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    points.push(0);
    points.push(data.len());
    points.sort_unstable();
    let mut buf = CaptureBuffer::new(limit);
    for w in points.windows(2) {
        buf.push(&data[w[0]..w[1]]);
    }
    buf.finish()
}

/// Splits the marker off: (text, N) with N = 0 when there is no marker.
fn split_marker(text: &str) -> (&str, u64) {
    match text.rfind(MARKER) {
        Some(at) if text.ends_with(" output bytes]") => {
            let n = &text[at + MARKER.len()..text.len() - " output bytes]".len()];
            (&text[..at], n.parse().unwrap())
        }
        _ => (text, 0),
    }
}

proptest! {
    #[test]
    fn counters_add_up_and_the_prefix_is_kept(
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        limit in 0usize..1200,
        cuts in proptest::collection::vec(any::<usize>(), 0..24),
    ) {
        let c = capture(&data, limit, &cuts);
        prop_assert_eq!(c.total_bytes, data.len() as u64);
        prop_assert_eq!(c.retained_bytes + c.dropped_bytes, c.total_bytes);
        prop_assert_eq!(c.retained_bytes, c.bytes.len() as u64);
        prop_assert_eq!(&c.bytes[..], &data[..limit.min(data.len())]);
        prop_assert!(c.discarded_bytes() >= c.dropped_bytes);
        prop_assert!(c.discarded_bytes() <= c.dropped_bytes + 3);
    }

    #[test]
    fn marker_is_exact_and_the_cut_never_makes_a_replacement_character(
        text in any::<String>().prop_filter("no U+FFFD in the input", |s| !s.contains('\u{FFFD}')),
        limit in 0usize..1200,
        cuts in proptest::collection::vec(any::<usize>(), 0..24),
    ) {
        let c = capture(text.as_bytes(), limit, &cuts);
        let rendered = c.text_with_marker();
        let (body, n) = split_marker(&rendered);
        prop_assert!(!body.contains('\u{FFFD}'), "{:?}", body);
        prop_assert!(text.starts_with(body));
        prop_assert_eq!(n, c.total_bytes - body.len() as u64);
        prop_assert_eq!(n, c.discarded_bytes());
        prop_assert_eq!(c.retained_chars(), body.chars().count());
        if text.len() <= limit {
            prop_assert_eq!(&rendered, &text);
        } else {
            prop_assert!(n > 0);
            // Only an incomplete character (at most 3 bytes) is given up at the cap.
            prop_assert!(body.len() + 3 >= limit && body.len() <= limit);
        }
    }
}

#[test]
fn marker_format_is_exact() {
    let c = capture("héllo wörld".as_bytes(), 2, &[]);
    // "h" plus the first byte of "é": the cut byte is discarded too.
    assert_eq!(
        c.text_with_marker(),
        "h\n[ToolHub discarded 12 output bytes]"
    );
    assert_eq!(c.discarded_bytes(), 12);
    assert_eq!(c.dropped_bytes, 11);
}
