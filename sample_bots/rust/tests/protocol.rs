//! The protocol layer against the shared test vectors in protocol/examples.

use std::fs;
use std::path::PathBuf;

use arena_starter_bot::protocol::{decode, encode_action, encode_hello, where_to, Strategy};
use arena_starter_bot::strategy::{extensions, meld_from_hand, rummy, Starter};
use serde_json::{json, Value};

fn raw(name: &str) -> Vec<u8> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "protocol", "examples",
                         &format!("{name}.json")].iter().collect();
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn example(name: &str) -> Value {
    serde_json::from_slice(&raw(name)).unwrap()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn hello_encodes_to_the_example() {
    let ex = example("hello");
    let bytes = encode_hello(ex["token"].as_str().unwrap(), ex["name"].as_str().unwrap(),
                             ex["version"].as_str().unwrap());
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), ex);
}

#[test]
fn action_encodes_to_the_example() {
    let ex = example("action");
    let bytes = encode_action(ex["id"].as_i64().unwrap(), &ex["action"]);
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), ex);
    assert!(!encode_action(1, &json!({"s": "é\n"})).contains(&b'\n'));
}

#[test]
fn decodes_every_referee_example_from_its_bytes() {
    for name in ["welcome", "game_start", "request", "game_over", "error", "shutdown"] {
        let message = decode(&raw(name)).unwrap();
        assert_eq!(message, example(name));
        assert_eq!(message["type"], name);
    }
    assert!(decode(&raw("hello")).is_err());
    assert!(decode(b"not json").is_err());
    assert!(decode(b"[1]").is_err());
}

#[test]
fn endpoint_from_flags_then_environment() {
    let args = strings(&["bot", "--endpoint", "tcp://x:1", "--token", "t"]);
    assert_eq!(where_to(&args, |_| None).unwrap(), ("tcp://x:1".into(), "t".into()));
    let env = |k: &str| Some(if k == "ARENA_ENDPOINT" { "ipc://e" } else { "k" }.to_string());
    assert_eq!(where_to(&[], env).unwrap(), ("ipc://e".into(), "k".into()));
    assert!(where_to(&[], |_| None).is_err());
}

#[test]
fn strategy_answers_with_an_option() {
    let request = example("request");
    let action = Starter::new(7).act(&request, &example("game_start"));
    assert!(request["options"].as_array().unwrap().contains(&action));
}

#[test]
fn rummy_melds_extends_or_draws() {
    assert_eq!(meld_from_hand(&strings(&["QS", "KS", "AS", "2D"])), Some(strings(&["QS", "KS", "AS"])));
    assert_eq!(meld_from_hand(&strings(&["7H", "7S", "7H", "7C"])), Some(strings(&["7S", "7H", "7C"])));
    assert_eq!(extensions(&strings(&["JS", "QS", "KS"])), strings(&["10S", "AS"]));
    assert_eq!(extensions(&strings(&["QS", "KS", "AS"])), strings(&["JS"]));
    assert_eq!(extensions(&strings(&["4S", "4H", "4D"])), strings(&["4C"]));
    let full = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"];
    assert!(extensions(&strings(&full)).is_empty(), "A..K: the ace cannot be high as well");
    let game = json!({"game": "machiavelli-rummy@1", "rules": {}});
    let request = |hand: Value, table: Value| json!({"observation":
        {"hand": hand, "table": table, "seat": 0, "opened": [false]}});
    assert_eq!(rummy(&request(json!(["5D", "9C"]), json!([["6D", "7D", "8D"]])), &game),
               json!({"type": "play", "table": [["6D", "7D", "8D", "5D"]]}));
    assert_eq!(rummy(&request(json!(["2C"]), json!([["4S", "JK", "6S"]])), &game), json!({"type": "draw"}));
    let opening = json!({"game": "machiavelli-rummy@1", "rules": {"opening": "meld-from-hand"}});
    assert_eq!(rummy(&request(json!(["5D"]), json!([["6D", "7D", "8D"]])), &opening), json!({"type": "draw"}));
}
