// Package protocol is the wire layer of an arena bot: connect, handshake, receive
// requests, send actions, shutdown. It knows nothing about any game; the Strategy
// decides every action. Spec: protocol/PROTOCOL.md. Every message is one ZeroMQ
// frame of UTF-8 JSON.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	zmq "github.com/pebbe/zmq4"
)

// Version is the protocol version the bot states in hello.
const Version = 1

// Message is any referee message, as parsed JSON.
type Message map[string]any

// Type returns the message's "type" ("" when absent).
func (m Message) Type() string { s, _ := m["type"].(string); return s }

// Strategy is what a bot plugs in. Act answers a request; game is the current game_start.
type Strategy interface {
	Act(request Message, game Message) any
}

// GameStarter is an optional part of a Strategy: GameStart is called at every game_start,
// to reset per-game state and seed the generator from BotSeed.
type GameStarter interface {
	GameStart(game Message)
}

// BotSeed returns game_start.bot_seed, the seed for this game's random choices (an integer
// below 2^53, so exact in the float64 that encoding/json gives).
func BotSeed(gameStart Message) (uint64, error) {
	seed, ok := gameStart["bot_seed"].(float64)
	if !ok || seed < 0 || seed >= 1<<53 || seed != float64(uint64(seed)) {
		return 0, fmt.Errorf("game_start.bot_seed must be an integer in [0, 2^53), got %v",
			gameStart["bot_seed"])
	}
	return uint64(seed), nil
}

// EncodeHello returns the hello frame a bot sends first.
func EncodeHello(token, name, version string) []byte {
	return mustJSON(map[string]any{"type": "hello", "token": token, "name": name,
		"version": version, "protocol": Version})
}

// EncodeAction returns the action frame answering request id.
func EncodeAction(id int64, action any) []byte {
	return mustJSON(map[string]any{"type": "action", "id": id, "action": action})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only for values that cannot be JSON: a bug in the strategy
	}
	return b
}

var refereeTypes = map[string]bool{"welcome": true, "game_start": true, "request": true,
	"game_over": true, "error": true, "shutdown": true}

// Decode parses a referee frame; an error for anything that is not a referee message.
func Decode(frame []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(frame, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if !refereeTypes[m.Type()] {
		return nil, errors.New("not a referee message")
	}
	return m, nil
}

// Where returns the endpoint and token: --endpoint/--token, else ARENA_ENDPOINT/ARENA_TOKEN.
func Where(args []string, getenv func(string) string) (string, string, error) {
	endpoint, token := getenv("ARENA_ENDPOINT"), getenv("ARENA_TOKEN")
	tokenSet := token != ""
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--endpoint":
			endpoint = args[i+1]
		case "--token":
			token, tokenSet = args[i+1], true
		}
	}
	if endpoint == "" || !tokenSet {
		return "", "", errors.New("no endpoint/token: run me from `arena`, or pass --endpoint and --token")
	}
	return endpoint, token, nil
}

// Run connects, says hello and plays until shutdown.
func Run(strategy Strategy, name, version string) error {
	endpoint, token, err := Where(os.Args[1:], os.Getenv)
	if err != nil {
		return err
	}
	socket, err := zmq.NewSocket(zmq.DEALER)
	if err != nil {
		return err
	}
	defer socket.Close()
	socket.SetLinger(time.Second)
	if err := socket.Connect(endpoint); err != nil {
		return fmt.Errorf("cannot reach %s: %w", endpoint, err)
	}
	if _, err := socket.SendBytes(EncodeHello(token, name, version), 0); err != nil {
		return err
	}
	var game Message
	welcomed := false
	for {
		frame, err := socket.RecvBytes(0)
		if err != nil {
			return err
		}
		m, err := Decode(frame)
		if err != nil {
			fmt.Fprintln(os.Stderr, "arena: ignored a frame:", err)
			continue
		}
		switch m.Type() {
		case "welcome":
			welcomed = true
		case "game_start":
			game = m
			if g, ok := strategy.(GameStarter); ok {
				g.GameStart(m)
			}
		case "request":
			id, _ := m["id"].(float64)
			action := strategy.Act(m, game)
			if _, err := socket.SendBytes(EncodeAction(int64(id), action), 0); err != nil {
				return err
			}
		case "error": // information only, except before welcome: then we have no seat
			fmt.Fprintf(os.Stderr, "arena: %v: %v\n", m["code"], m["detail"])
			if !welcomed {
				return errors.New("refused by the referee")
			}
		case "shutdown":
			return nil
		}
	}
}
