// Package strategy decides the actions: replace Starter.Act with your own.
package strategy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"arena.example/starter-bot/protocol"
)

// Starter plays both games legally: machiavelli from the options, rummy with simple melds.
// Every random choice comes from Rand, re-seeded from game_start.bot_seed at each game, so
// the same game seed replays the same game.
type Starter struct{ Rand *rand.Rand }

// NewRand returns this game's generator: PCG (math/rand/v2), seeded with seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// NewStarter returns a Starter; its generator is re-seeded at every game_start.
func NewStarter() *Starter { return &Starter{Rand: NewRand(0)} }

// GameStart seeds this game's generator from bot_seed.
func (s *Starter) GameStart(game protocol.Message) {
	seed, err := protocol.BotSeed(game)
	if err != nil {
		fmt.Fprintln(os.Stderr, err, "- seeding with 0")
	}
	s.Rand = NewRand(seed)
}

// Act chooses the action for request; game is the game_start of the current game.
func (s *Starter) Act(request, game protocol.Message) any {
	name, _ := game["game"].(string)
	if strings.HasPrefix(name, "machiavelli-rummy@") {
		return Rummy(request, game)
	}
	options, _ := request["options"].([]any)
	if len(options) == 0 {
		fmt.Fprintf(os.Stderr, "no strategy for %s decision %v\n", name, request["kind"])
		return nil
	}
	// machiavelli: every request lists its legal options; build when we can
	var builds []any
	for _, o := range options {
		if m, ok := o.(map[string]any); ok && m["type"] == "build" {
			builds = append(builds, o)
		}
	}
	if len(builds) > 0 {
		options = builds
	}
	return options[s.Rand.IntN(len(options))]
}

// ---- machiavelli-rummy: cards are codes such as "7H", "10S", "QD", "JK" (joker).

var ranks = []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
var suits = []string{"S", "H", "D", "C"}

type card struct {
	rank int
	suit string
}

// parseCard returns a natural card (rank 1..13); ok is false for the joker or a bad code.
func parseCard(code string) (card, bool) {
	if len(code) < 2 || code == "JK" {
		return card{}, false
	}
	rank, suit := code[:len(code)-1], code[len(code)-1:]
	for i, r := range ranks {
		if r == rank && strings.Contains("SHDC", suit) {
			return card{i + 1, suit}, true
		}
	}
	return card{}, false
}

func code(rank int, suit string) string { return ranks[(rank-1)%13] + suit }

// MeldFromHand returns three hand cards forming a group (one rank, three suits) or a run.
func MeldFromHand(hand []string) []string {
	have := map[card]bool{}
	for _, c := range hand {
		if p, ok := parseCard(c); ok {
			have[p] = true
			if p.rank == 1 {
				have[card{14, p.suit}] = true // the ace also ranks above the king
			}
		}
	}
	for rank := 1; rank <= 13; rank++ {
		var meld []string
		for _, s := range suits {
			if have[card{rank, s}] && len(meld) < 3 {
				meld = append(meld, code(rank, s))
			}
		}
		if len(meld) == 3 {
			return meld
		}
	}
	for _, s := range suits {
		for low := 1; low <= 12; low++ {
			if have[card{low, s}] && have[card{low + 1, s}] && have[card{low + 2, s}] {
				return []string{code(low, s), code(low+1, s), code(low+2, s)}
			}
		}
	}
	return nil
}

// Extensions returns the cards that extend a joker-free meld by one (either end of a run).
func Extensions(meld []string) []string {
	var cards []card
	for _, c := range meld {
		p, ok := parseCard(c)
		if !ok {
			return nil // a joker: where it stands is ambiguous, leave the meld alone
		}
		cards = append(cards, p)
	}
	if len(cards) == 0 {
		return nil
	}
	group, ace, king := true, false, false
	for _, c := range cards {
		group = group && c.rank == cards[0].rank
		ace, king = ace || c.rank == 1, king || c.rank == 13
	}
	var out []string
	if group {
		if len(cards) >= 4 {
			return nil
		}
		for _, s := range suits {
			present := false
			for _, c := range cards {
				present = present || c.suit == s
			}
			if !present {
				out = append(out, code(cards[0].rank, s))
			}
		}
		return out
	}
	if len(cards) >= 13 {
		return out // a run holds at most 13 cards (the ace is low or high)
	}
	lo, hi := 99, 0
	for _, c := range cards {
		r := c.rank
		if ace && king && r == 1 {
			r = 14
		}
		lo, hi = min(lo, r), max(hi, r)
	}
	if lo > 1 {
		out = append(out, code(lo-1, cards[0].suit))
	}
	if hi < 13 || (hi == 13 && lo > 1) {
		out = append(out, code(hi+1, cards[0].suit))
	}
	return out
}

func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Rummy lays a meld from hand, else extends a meld on the table, else draws.
func Rummy(request, game protocol.Message) any {
	obs, _ := request["observation"].(map[string]any)
	hand := strs(obs["hand"])
	var table [][]string
	melds, _ := obs["table"].([]any)
	for _, m := range melds {
		table = append(table, strs(m))
	}
	if table == nil {
		table = [][]string{}
	}
	if meld := MeldFromHand(hand); meld != nil {
		return map[string]any{"type": "play", "table": append(table, meld)}
	}
	rules, _ := game["rules"].(map[string]any)
	seat, _ := obs["seat"].(float64)
	opened, _ := obs["opened"].([]any)
	mustOpen := rules["opening"] == "meld-from-hand" &&
		!(int(seat) < len(opened) && opened[int(seat)] == true)
	for i := 0; i < len(table) && !mustOpen; i++ {
		for _, c := range Extensions(table[i]) {
			for _, h := range hand {
				if h == c {
					next := make([][]string, len(table))
					copy(next, table)
					next[i] = append(append([]string{}, table[i]...), c)
					return map[string]any{"type": "play", "table": next}
				}
			}
		}
	}
	return map[string]any{"type": "draw"}
}
