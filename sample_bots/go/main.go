// The starter bot: the protocol layer driving the strategy. Run by the referee:
//
//	arena play machiavelli --bot go=sample_bots/go/bot --bot r=builtin:random
package main

import (
	"fmt"
	"os"

	"arena.example/starter-bot/protocol"
	"arena.example/starter-bot/strategy"
)

func main() {
	s := strategy.NewStarter() // re-seeded from game_start.bot_seed at every game
	if err := protocol.Run(s, "starter-go", "1.0.0"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
