package strategy

import (
	"encoding/json"
	"math/rand"
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
	action := (&Starter{Rand: rand.New(rand.NewSource(1))}).Act(request, example(t, "game_start"))
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
