// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
// reads). It starts as a random player: it plays a random move of the `legal` line.
// Make it better in chooseMove.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line
// (os.Stdout is not buffered). Debug output goes to stderr (kept in the game record).
package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
)

// seedOf reads a seed; 0 when there is none.
func seedOf(text string) int64 {
	seed, _ := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	return seed
}

// The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
// `--seed` gives the same games, move for move.
var rng = rand.New(rand.NewSource(seedOf(os.Getenv("ARBITER_SEED"))))

// chooseMove gives the move to play. `legal` lists every legal move in the game's
// notation; it is empty in a game whose moves cannot be listed (Legions), where "" is a
// turn without orders.
func chooseMove(legal []string) string {
	if len(legal) == 0 {
		return ""
	}
	return legal[rng.Intn(len(legal))]
}

func main() {
	in := bufio.NewReader(os.Stdin)
	var legal []string
	for {
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case "arbiter":
			fmt.Print("name {{NAME}}\nready\n")
		case "seed":
			rng = rand.New(rand.NewSource(seedOf(rest)))
		case "position":
			legal = nil
		case "legal":
			legal = strings.Split(rest, " ")
		case "go":
			move := chooseMove(legal)
			fmt.Fprintf(os.Stderr, "playing '%s'\n", move)
			fmt.Printf("move %s\n", move)
		case "quit":
			return
		}
		// Other lines (game, side, start, opponent, time, result) are not needed here.
	}
}
