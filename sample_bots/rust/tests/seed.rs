//! The strategy's randomness comes from game_start.bot_seed, so a game can be replayed.

use std::fs;
use std::path::PathBuf;

use arena_starter_bot::protocol::{bot_seed, Strategy};
use arena_starter_bot::rng::SplitMix64;
use arena_starter_bot::strategy::Starter;
use serde_json::{json, Value};

fn example(name: &str) -> Value {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "protocol", "examples",
                         &format!("{name}.json")].iter().collect();
    serde_json::from_slice(&fs::read(&path).unwrap()).unwrap()
}

fn draws(mut rng: SplitMix64, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.next_u64()).collect()
}

#[test]
fn bot_seed_is_read_from_the_game_start_example() {
    assert_eq!(bot_seed(&example("game_start")), Some(6095745163040713));
    assert_eq!(bot_seed(&json!({"type": "game_start"})), None);
    assert_eq!(bot_seed(&json!({"bot_seed": 1.5})), None);
    assert_eq!(bot_seed(&json!({"bot_seed": -1})), None);
}

#[test]
fn splitmix64_gives_the_reference_sequence() {
    // the first outputs of Vigna's splitmix64.c for seed 1234567
    assert_eq!(draws(SplitMix64::new(1234567), 3),
               vec![6457827717110365317, 3203168211198807973, 9817491932198370423]);
}

#[test]
fn two_generators_from_the_same_seed_give_the_same_sequence() {
    let seed = bot_seed(&example("game_start")).unwrap();
    assert_eq!(draws(SplitMix64::new(seed), 20), draws(SplitMix64::new(seed), 20));
    assert_ne!(draws(SplitMix64::new(seed), 20), draws(SplitMix64::new(seed + 1), 20));
}

#[test]
fn the_strategy_replays_its_choices_after_game_start() {
    let start = example("game_start");
    let options: Vec<Value> = (0..9).map(|i| json!({"type": "pick", "i": i})).collect();
    let request = json!({"type": "request", "kind": "pick", "options": options});
    let mut starter = Starter::new(99);
    let mut play = |game: &Value| -> Vec<Value> {
        starter.game_start(game);
        (0..30).map(|_| starter.act(&request, game)["i"].clone()).collect()
    };
    let first = play(&start);
    assert_eq!(play(&start), first);
    let mut other = start.clone();
    other["bot_seed"] = json!(7);
    assert_ne!(play(&other), first);
}
