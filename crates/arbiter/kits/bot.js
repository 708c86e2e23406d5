// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
// reads), for Node.js. It starts as a random player: it plays a random
// move of the `legal` line. Make it better in chooseMove.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line
// (process.stdout.write to a pipe is passed on at once). Debug output goes to stderr
// (it is kept in the game record, per move).
"use strict";
const readline = require("readline");

// The move to play. `legal` lists every legal move in the game's notation; it is empty
// in a game whose moves cannot be listed (Legions), where "" is a turn without orders.
function chooseMove(legal) {
  return legal.length ? legal[Math.floor(random() * legal.length)] : "";
}

// A small random generator (mulberry32) from the game's seed for this side (the `seed`
// line; ARBITER_SEED before it): the same `--seed` gives the same games, move for move.
let state = Number(process.env.ARBITER_SEED || 0) >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

let legal = [];
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  line = line.replace(/\r$/, "");
  const space = line.indexOf(" ");
  const word = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? "" : line.slice(space + 1);
  if (word === "arbiter") {
    process.stdout.write("name {{NAME}}\nready\n");
  } else if (word === "seed") {
    state = Number(rest) >>> 0;
  } else if (word === "position") {
    legal = [];
  } else if (word === "legal") {
    legal = rest.split(" ");
  } else if (word === "go") {
    const move = chooseMove(legal);
    process.stderr.write(`playing '${move}'\n`);
    process.stdout.write(`move ${move}\n`);
  } else if (word === "quit") {
    input.close();
    process.exit(0);
  }
  // Other lines (game, side, start, opponent, time, result) are not needed here.
});
