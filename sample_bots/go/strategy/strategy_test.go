package strategy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"arena.example/starter-bot/protocol"
)

func example(t *testing.T, name string) protocol.Message {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "protocol", "examples", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m protocol.Message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAnswersWithAnOption(t *testing.T) {
	request := example(t, "request")
	action := NewStarter().Act(request, example(t, "game_start"))
	for _, o := range request["options"].([]any) {
		if reflect.DeepEqual(o, action) {
			return
		}
	}
	t.Fatalf("%v is not an option", action)
}

func TestRummy(t *testing.T) {
	eq := func(got, want any) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("got %s, want %s", g, w)
		}
	}
	eq(MeldFromHand([]string{"QS", "KS", "AS", "2D"}), []string{"QS", "KS", "AS"})
	eq(MeldFromHand([]string{"7H", "7S", "7H", "7C"}), []string{"7S", "7H", "7C"})
	eq(Extensions([]string{"JS", "QS", "KS"}), []string{"10S", "AS"})
	eq(Extensions([]string{"QS", "KS", "AS"}), []string{"JS"})
	eq(Extensions([]string{"4S", "4H", "4D"}), []string{"4C"})
	full := []string{"AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"}
	if got := Extensions(full); len(got) != 0 {
		t.Errorf("A..K: the ace cannot be high as well, got %v", got)
	}
	game := protocol.Message{"game": "machiavelli-rummy@1", "rules": map[string]any{}}
	req := func(hand, table string) protocol.Message {
		var obs map[string]any
		json.Unmarshal([]byte(`{"hand":`+hand+`,"table":`+table+`,"seat":0,"opened":[false]}`), &obs)
		return protocol.Message{"observation": obs}
	}
	eq(Rummy(req(`["5D","9C"]`, `[["6D","7D","8D"]]`), game),
		map[string]any{"type": "play", "table": [][]string{{"6D", "7D", "8D", "5D"}}})
	eq(Rummy(req(`["2C"]`, `[["4S","JK","6S"]]`), game), map[string]any{"type": "draw"})
	opening := protocol.Message{"game": "machiavelli-rummy@1", "rules": map[string]any{"opening": "meld-from-hand"}}
	eq(Rummy(req(`["5D"]`, `[["6D","7D","8D"]]`), opening), map[string]any{"type": "draw"})
}

func TestBotSeedIsReadFromTheExample(t *testing.T) {
	seed, err := protocol.BotSeed(example(t, "game_start"))
	if err != nil || seed != 6095745163040713 {
		t.Fatalf("BotSeed = %d, %v", seed, err)
	}
	for _, bad := range []protocol.Message{{}, {"bot_seed": 1.5}, {"bot_seed": -1.0}, {"bot_seed": "7"}} {
		if _, err := protocol.BotSeed(bad); err == nil {
			t.Fatalf("BotSeed(%v) accepted", bad)
		}
	}
}

func TestTwoGeneratorsFromTheSameSeedAgree(t *testing.T) {
	seed, _ := protocol.BotSeed(example(t, "game_start"))
	a, b, c := NewRand(seed), NewRand(seed), NewRand(seed+1)
	differs := false
	for i := 0; i < 20; i++ {
		x := a.Uint64()
		if x != b.Uint64() {
			t.Fatal("the same seed gave two sequences")
		}
		differs = differs || x != c.Uint64()
	}
	if !differs {
		t.Fatal("another seed gave the same sequence")
	}
}

func TestStrategyReplaysAfterGameStart(t *testing.T) {
	start := example(t, "game_start")
	var options []any
	for i := 0; i < 9; i++ {
		options = append(options, map[string]any{"type": "pick", "i": i})
	}
	request := protocol.Message{"options": options}
	s := NewStarter()
	play := func(game protocol.Message) []any {
		s.GameStart(game)
		var picks []any
		for i := 0; i < 30; i++ {
			picks = append(picks, s.Act(request, game).(map[string]any)["i"])
		}
		return picks
	}
	first := play(start)
	if !reflect.DeepEqual(play(start), first) {
		t.Fatal("the same bot_seed gave other choices")
	}
	other := protocol.Message{"game": start["game"], "bot_seed": 7.0}
	if reflect.DeepEqual(play(other), first) {
		t.Fatal("another bot_seed gave the same choices")
	}
}
