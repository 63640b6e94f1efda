//! Helpers shared by several test files.
pub mod xml;
