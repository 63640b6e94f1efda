//! human report (placeholder).
