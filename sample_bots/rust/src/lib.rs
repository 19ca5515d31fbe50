//! An arena starter bot: `protocol` (the wire) kept apart from `strategy` (the decisions).

pub mod protocol;
pub mod rng;
pub mod strategy;
