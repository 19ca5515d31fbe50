//! The starter bot: the protocol layer driving the strategy. Run by the referee:
//!   arena play machiavelli --bot rs=sample_bots/rust/target/release/bot --bot r=builtin:random

use std::time::{SystemTime, UNIX_EPOCH};

use arena_starter_bot::protocol::run;
use arena_starter_bot::strategy::Starter;

fn main() {
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let mut strategy = Starter::new(seed ^ u64::from(std::process::id()));
    if let Err(err) = run(&mut strategy, "starter-rust", "1.0.0") {
        eprintln!("{err}");
        std::process::exit(1);
    }
}
