//! json report (placeholder).
