//! JSON subset matching with `$` operators (placeholder).
