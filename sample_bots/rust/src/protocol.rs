//! The protocol layer: connect, handshake, receive requests, send actions, shutdown.
//! It knows nothing about any game; the `Strategy` decides every action.
//! Spec: protocol/PROTOCOL.md. Every message is one ZeroMQ frame of UTF-8 JSON.

use serde_json::{json, Value};

pub const PROTOCOL_VERSION: i64 = 1;

/// What a bot plugs in: `act` answers a request; `game` is the current game_start.
pub trait Strategy {
    fn act(&mut self, request: &Value, game: &Value) -> Value;
    /// A new game begins: reset per-game state and seed the generator from `bot_seed`.
    fn game_start(&mut self, _message: &Value) {}
    fn game_over(&mut self, _message: &Value) {}
}

/// `game_start.bot_seed`: the seed for this game's random choices (an integer below 2^53);
/// None when it is absent or not such an integer.
pub fn bot_seed(game_start: &Value) -> Option<u64> {
    game_start["bot_seed"].as_u64().filter(|seed| *seed < 1 << 53)
}

/// The hello a bot sends first.
pub fn encode_hello(token: &str, name: &str, version: &str) -> Vec<u8> {
    json!({"type": "hello", "token": token, "name": name, "version": version,
           "protocol": PROTOCOL_VERSION})
    .to_string()
    .into_bytes()
}

/// The action answering request `id`.
pub fn encode_action(id: i64, action: &Value) -> Vec<u8> {
    json!({"type": "action", "id": id, "action": action}).to_string().into_bytes()
}

const REFEREE_TYPES: [&str; 6] = ["welcome", "game_start", "request", "game_over", "error", "shutdown"];

/// Parse a referee frame; an error for anything that is not a referee message.
pub fn decode(frame: &[u8]) -> Result<Value, String> {
    let message: Value = serde_json::from_slice(frame).map_err(|e| format!("not JSON: {e}"))?;
    match message["type"].as_str() {
        Some(t) if REFEREE_TYPES.contains(&t) => Ok(message),
        _ => Err("not a referee message".to_string()),
    }
}

/// The endpoint and token: --endpoint/--token, else ARENA_ENDPOINT/ARENA_TOKEN.
pub fn where_to(args: &[String], env: impl Fn(&str) -> Option<String>) -> Result<(String, String), String> {
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned());
    let endpoint = flag("--endpoint").or_else(|| env("ARENA_ENDPOINT")).filter(|e| !e.is_empty());
    let token = flag("--token").or_else(|| env("ARENA_TOKEN"));
    match (endpoint, token) {
        (Some(e), Some(t)) => Ok((e, t)),
        _ => Err("no endpoint/token: run me from `arena`, or pass --endpoint and --token".into()),
    }
}

/// Connect, say hello and play until shutdown.
pub fn run(strategy: &mut dyn Strategy, name: &str, version: &str) -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let (endpoint, token) = where_to(&args, |k| std::env::var(k).ok())?;
    let context = zmq::Context::new();
    let socket = context.socket(zmq::DEALER).map_err(|e| e.to_string())?;
    socket.set_linger(1000).map_err(|e| e.to_string())?;
    socket.connect(&endpoint).map_err(|e| format!("cannot reach {endpoint}: {e}"))?;
    socket.send(encode_hello(&token, name, version), 0).map_err(|e| e.to_string())?;
    let mut game = Value::Null;
    let mut welcomed = false;
    loop {
        let frame = socket.recv_bytes(0).map_err(|e| e.to_string())?;
        let message = match decode(&frame) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("arena: ignored a frame: {e}");
                continue;
            }
        };
        match message["type"].as_str().unwrap_or("") {
            "game_start" => {
                game = message;
                strategy.game_start(&game);
            }
            "request" => {
                let action = strategy.act(&message, &game);
                let id = message["id"].as_i64().unwrap_or(0);
                socket.send(encode_action(id, &action), 0).map_err(|e| e.to_string())?;
            }
            "game_over" => strategy.game_over(&message),
            "error" => {
                // information only, except before welcome: then we have no seat
                eprintln!("arena: {}: {}", message["code"], message["detail"]);
                if !welcomed {
                    return Err("refused by the referee".into());
                }
            }
            "welcome" => welcomed = true,
            "shutdown" => return Ok(()),
            _ => {}
        }
    }
}
