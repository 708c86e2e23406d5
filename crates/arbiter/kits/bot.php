<?php
// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
// reads). It starts as a random player: it plays a random move of the `legal` line.
// Make it better in choose_move.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line,
// flushed. Debug output goes to stderr (it is kept in the game record, per move).

// The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
// `--seed` gives the same games, move for move.
mt_srand((int) (getenv('ARBITER_SEED') ?: 0));

// The move to play. `legal` lists every legal move in the game's notation; it is empty
// in a game whose moves cannot be listed (Legions), where "" is a turn without orders.
function choose_move(array $legal): string
{
    return count($legal) === 0 ? '' : $legal[mt_rand(0, count($legal) - 1)];
}

$legal = [];
while (($line = fgets(STDIN)) !== false) {
    $line = rtrim($line, "\r\n");
    $parts = explode(' ', $line, 2);
    $word = $parts[0];
    $rest = $parts[1] ?? '';
    if ($word === 'arbiter') {
        fwrite(STDOUT, "name {{NAME}}\nready\n");
        fflush(STDOUT);
    } elseif ($word === 'seed') {
        mt_srand((int) $rest);
    } elseif ($word === 'position') {
        $legal = [];
    } elseif ($word === 'legal') {
        $legal = explode(' ', $rest);
    } elseif ($word === 'go') {
        $move = choose_move($legal);
        fwrite(STDERR, "playing '$move'\n");
        fwrite(STDOUT, "move $move\n");
        fflush(STDOUT);
    } elseif ($word === 'quit') {
        break;
    }
    // Other lines (game, side, start, opponent, time, result) are not needed here.
}
