//! The strategy: replace `Starter::act` with your own.

use serde_json::{json, Value};

use crate::protocol::{bot_seed, Strategy};
use crate::rng::SplitMix64;

/// Plays both games legally: machiavelli from the options, rummy with simple melds.
/// Every random choice comes from `rng`, re-seeded from `game_start.bot_seed` at each game,
/// so the same game seed replays the same game.
pub struct Starter {
    rng: SplitMix64,
}

impl Starter {
    pub fn new(seed: u64) -> Self {
        Starter { rng: SplitMix64::new(seed) }
    }

    /// machiavelli: every request lists its legal options; build when we can.
    fn machiavelli(&mut self, options: &[Value]) -> Value {
        let builds: Vec<&Value> = options.iter().filter(|o| o["type"] == "build").collect();
        if builds.is_empty() {
            options[self.rng.below(options.len())].clone()
        } else {
            builds[self.rng.below(builds.len())].clone()
        }
    }
}

impl Strategy for Starter {
    fn game_start(&mut self, message: &Value) {
        let seed = bot_seed(message).unwrap_or_else(|| {
            eprintln!("game_start without a valid bot_seed: seeding with 0");
            0
        });
        self.rng = SplitMix64::new(seed);
    }

    fn act(&mut self, request: &Value, game: &Value) -> Value {
        let name = game["game"].as_str().unwrap_or("").split('@').next().unwrap_or("");
        if name == "machiavelli-rummy" {
            return rummy(request, game);
        }
        match request["options"].as_array() {
            Some(options) if !options.is_empty() => self.machiavelli(options),
            _ => {
                eprintln!("no strategy for {name} decision {}", request["kind"]);
                Value::Null
            }
        }
    }
}

// ---- machiavelli-rummy: cards are codes such as "7H", "10S", "QD", "JK" (joker).
const RANKS: [&str; 13] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS: [char; 4] = ['S', 'H', 'D', 'C'];

/// Rank 1..13 and suit of a natural card; None for the joker or a bad code.
fn parse_card(code: &str) -> Option<(usize, char)> {
    let suit = code.chars().last()?;
    let rank = RANKS.iter().position(|r| *r == &code[..code.len() - 1])? + 1;
    SUITS.contains(&suit).then_some((rank, suit))
}

fn card_code(rank: usize, suit: char) -> String {
    format!("{}{}", RANKS[(rank - 1) % 13], suit)
}

fn cards(values: &Value) -> Vec<String> {
    values.as_array().map(|a| a.iter().filter_map(|c| c.as_str().map(String::from)).collect())
        .unwrap_or_default()
}

/// A meld of three cards from the hand: a group (one rank, three suits) or a run.
pub fn meld_from_hand(hand: &[String]) -> Option<Vec<String>> {
    let naturals: Vec<(usize, char)> = hand.iter().filter_map(|c| parse_card(c)).collect();
    for rank in 1..=13 {
        let suits: Vec<char> = SUITS.iter().copied()
            .filter(|s| naturals.contains(&(rank, *s))).collect();
        if suits.len() >= 3 {
            return Some(suits[..3].iter().map(|s| card_code(rank, *s)).collect());
        }
    }
    for suit in SUITS {
        // the ace (rank 1) also ranks above the king (14)
        let has = |r: usize| naturals.contains(&(if r == 14 { 1 } else { r }, suit));
        if let Some(low) = (1..=12).find(|&low| has(low) && has(low + 1) && has(low + 2)) {
            return Some((low..low + 3).map(|r| card_code(r, suit)).collect());
        }
    }
    None
}

/// The cards that extend a joker-free meld by one (at either end of a run).
pub fn extensions(meld: &[String]) -> Vec<String> {
    let parsed: Option<Vec<(usize, char)>> = meld.iter().map(|c| parse_card(c)).collect();
    let Some(parsed) = parsed else { return vec![] };
    if parsed.is_empty() {
        return vec![];
    }
    let (first_rank, suit) = parsed[0];
    if parsed.iter().all(|(r, _)| *r == first_rank) {
        if meld.len() >= 4 {
            return vec![];
        }
        return SUITS.iter().filter(|s| !parsed.iter().any(|(_, t)| t == *s))
            .map(|s| card_code(first_rank, *s)).collect();
    }
    if meld.len() >= 13 {
        return vec![]; // a run holds at most 13 cards (the ace is low or high)
    }
    let ace_high = parsed.iter().any(|(r, _)| *r == 1) && parsed.iter().any(|(r, _)| *r == 13);
    let ranks: Vec<usize> = parsed.iter().map(|(r, _)| if ace_high && *r == 1 { 14 } else { *r }).collect();
    let (lo, hi) = (*ranks.iter().min().unwrap(), *ranks.iter().max().unwrap());
    let mut out = vec![];
    if lo > 1 {
        out.push(card_code(lo - 1, suit));
    }
    if hi < 13 || (hi == 13 && lo > 1) {
        out.push(card_code(hi + 1, suit));
    }
    out
}

/// machiavelli-rummy: lay a meld from hand, else extend a meld on the table, else draw.
pub fn rummy(request: &Value, game: &Value) -> Value {
    let observation = &request["observation"];
    let hand = cards(&observation["hand"]);
    let table: Vec<Vec<String>> = observation["table"].as_array()
        .map(|melds| melds.iter().map(cards).collect()).unwrap_or_default();
    if let Some(meld) = meld_from_hand(&hand) {
        let mut next = table.clone();
        next.push(meld);
        return json!({"type": "play", "table": next});
    }
    let seat = observation["seat"].as_u64().unwrap_or(0) as usize;
    let must_open = game["rules"]["opening"] == "meld-from-hand"
        && observation["opened"][seat] != Value::Bool(true);
    if !must_open {
        for (i, meld) in table.iter().enumerate() {
            if let Some(card) = extensions(meld).into_iter().find(|c| hand.contains(c)) {
                let mut next = table.clone();
                next[i].push(card);
                return json!({"type": "play", "table": next});
            }
        }
    }
    json!({"type": "draw"})
}
