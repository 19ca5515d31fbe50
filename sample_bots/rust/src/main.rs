//! The starter bot: the protocol layer driving the strategy. Run by the referee:
//!   arena play machiavelli --bot rs=sample_bots/rust/target/release/bot --bot r=builtin:random

use arena_starter_bot::protocol::run;
use arena_starter_bot::strategy::Starter;

fn main() {
    // re-seeded from game_start.bot_seed at every game
    let mut strategy = Starter::new(0);
    if let Err(err) = run(&mut strategy, "starter-rust", "1.0.0") {
        eprintln!("{err}");
        std::process::exit(1);
    }
}
