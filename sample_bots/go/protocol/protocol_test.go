package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The shared test vectors: protocol/examples at the repository root.
var examples = filepath.Join("..", "..", "..", "protocol", "examples")

func raw(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examples, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHelloEncodesToTheExample(t *testing.T) {
	ex := parse(t, raw(t, "hello"))
	got := parse(t, EncodeHello(ex["token"].(string), ex["name"].(string), ex["version"].(string)))
	if !reflect.DeepEqual(got, ex) {
		t.Fatalf("got %v, want %v", got, ex)
	}
}

func TestActionEncodesToTheExample(t *testing.T) {
	ex := parse(t, raw(t, "action"))
	got := parse(t, EncodeAction(int64(ex["id"].(float64)), ex["action"]))
	if !reflect.DeepEqual(got, ex) {
		t.Fatalf("got %v, want %v", got, ex)
	}
	if bytes.Contains(EncodeAction(1, "é\n"), []byte("\n")) {
		t.Fatal("a frame must be one line")
	}
}

func TestDecodesEveryRefereeExample(t *testing.T) {
	for _, name := range []string{"welcome", "game_start", "request", "game_over", "error", "shutdown"} {
		m, err := Decode(raw(t, name))
		if err != nil || m.Type() != name {
			t.Fatalf("%s: %v %v", name, m, err)
		}
		if !reflect.DeepEqual(map[string]any(m), parse(t, raw(t, name))) {
			t.Fatalf("%s decoded differently", name)
		}
	}
	for _, bad := range [][]byte{raw(t, "hello"), []byte("not json"), []byte("[1]")} {
		if _, err := Decode(bad); err == nil {
			t.Fatalf("accepted %q", bad)
		}
	}
}

// Every message of the annotated conversation: the referee's decode, the bots' re-encode.
func TestConversation(t *testing.T) {
	f, err := os.Open(filepath.Join(examples, "conversation.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	count := 0
	for lines.Scan() {
		var entry struct {
			From    string         `json:"from"`
			Message map[string]any `json:"message"`
		}
		if err := json.Unmarshal(lines.Bytes(), &entry); err != nil {
			t.Fatal(err)
		}
		frame, _ := json.Marshal(entry.Message)
		var again []byte
		switch {
		case entry.From == "referee":
			if _, err := Decode(frame); err != nil {
				t.Fatalf("line %d: %v", count+1, err)
			}
			continue
		case entry.Message["type"] == "hello":
			m := entry.Message
			again = EncodeHello(m["token"].(string), m["name"].(string), m["version"].(string))
		default:
			again = EncodeAction(int64(entry.Message["id"].(float64)), entry.Message["action"])
		}
		if !reflect.DeepEqual(parse(t, again), entry.Message) {
			t.Fatalf("line %d: %s re-encodes as %s", count+1, frame, again)
		}
		count++
	}
	if count == 0 {
		t.Fatal("no bot message in the conversation")
	}
}

func TestWhereFlagsWinOverEnvironment(t *testing.T) {
	env := map[string]string{"ARENA_ENDPOINT": "ipc://e", "ARENA_TOKEN": "k"}
	e, k, err := Where([]string{"--endpoint", "tcp://x:1"}, func(s string) string { return env[s] })
	if err != nil || e != "tcp://x:1" || k != "k" {
		t.Fatal(e, k, err)
	}
	if _, _, err := Where(nil, func(string) string { return "" }); err == nil {
		t.Fatal("no endpoint must be an error")
	}
}
