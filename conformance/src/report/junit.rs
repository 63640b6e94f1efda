//! junit report (placeholder).
