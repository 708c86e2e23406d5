<?php
// Connect Four TCP client library for PHP (docs/protocols/connect4-tcp.md).
//
// A player is an object with a $name and three methods, the seed's API:
//   wake($width, $height, $iStart)   a game starts; $iStart is true when you move first
//   move($board, $lastMove)          your turn: return a column 0..width-1
//   gameOver($result)                the game ended: "win", "loss" or "draw"
// $board[$x][$y] is the cell at column x (0 = left), row y (0 = bottom): C4_EMPTY,
// C4_MINE or C4_OPPONENT. $lastMove is the opponent's last column, or -1 when you move
// first; it is already on the board. One connection plays any number of games.
//
// c4_run connects to the address given as the first command-line argument, or else in
// the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.

const C4_EMPTY = 0;
const C4_MINE = 1;
const C4_OPPONENT = 2;

// $board[$x][$y] from the rows of a `move` line (top row first, joined by '/').
function c4_parse_board(string $text): array
{
    $rows = explode('/', $text);
    $height = count($rows);
    $width = strlen($rows[0]);
    $board = [];
    for ($x = 0; $x < $width; $x++) {
        for ($y = 0; $y < $height; $y++) {
            $c = $rows[$height - 1 - $y][$x] ?? '.';
            $board[$x][$y] = $c === 'M' ? C4_MINE : ($c === 'T' ? C4_OPPONENT : C4_EMPTY);
        }
    }
    return $board;
}

// Plays games until the server says bye; returns 0 then, 1 on a connection error.
function c4_run(object $player, array $argv): int
{
    $address = $argv[1] ?? (getenv('ARBITER_ADDR') ?: '127.0.0.1:4000');
    $socket = @stream_socket_client("tcp://$address", $errno, $error, 10);
    if ($socket === false) {
        fwrite(STDERR, "c4client: cannot connect to $address: $error\n");
        return 1;
    }
    while (($line = fgets($socket, 4096)) !== false) {
        $words = explode(' ', trim($line));
        if ($words[0] === 'hello') {
            fwrite($socket, "name {$player->name}\n");
        } elseif ($words[0] === 'wake' && count($words) >= 4) {
            $player->wake((int) $words[1], (int) $words[2], $words[3] === '1');
        } elseif ($words[0] === 'move' && count($words) >= 3) {
            fwrite($socket, $player->move(c4_parse_board($words[2]), (int) $words[1]) . "\n");
        } elseif ($words[0] === 'over' && count($words) >= 2) {
            $player->gameOver($words[1]);
        } elseif ($words[0] === 'bye') {
            break;
        }
        fflush($socket);
    }
    fclose($socket);
    return 0;
}
