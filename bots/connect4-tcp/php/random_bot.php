<?php
// Connect Four random player (the seed's baseline) over TCP, in PHP: drops its disc into
// a random column that has room, from the seed in ARBITER_SEED (the same game seed, the
// same moves). Debug output goes to stderr.
require __DIR__ . '/c4client.php';

class RandomPlayer
{
    public string $name = 'random-php';
    private int $height = 0;

    public function __construct()
    {
        mt_srand((int) (getenv('ARBITER_SEED') ?: 0));
    }

    public function wake(int $width, int $height, bool $iStart): void
    {
        $this->height = $height;
        fwrite(STDERR, "new game {$width}x{$height}, " . ($iStart ? 'I' : 'they') . " start\n");
    }

    public function move(array $board, int $lastMove): int
    {
        $open = [];
        foreach ($board as $x => $column) {
            if ($column[$this->height - 1] === C4_EMPTY) {
                $open[] = $x;
            }
        }
        $column = $open[mt_rand(0, count($open) - 1)];
        fwrite(STDERR, "they played $lastMove, I play $column\n");
        return $column;
    }

    public function gameOver(string $result): void
    {
        fwrite(STDERR, "game over: $result\n");
    }
}

exit(c4_run(new RandomPlayer(), $argv));
