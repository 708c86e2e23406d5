/* Connect Four random player (the seed's baseline) over TCP: drops its disc into a
 * random column that has room, from the seed in ARBITER_SEED (the same game seed, the
 * same moves). Debug output goes to stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "c4client.h"

static void wake(int width, int height, int i_start) {
    fprintf(stderr, "new game %dx%d, %s start\n", width, height, i_start ? "I" : "they");
}

static int move(const c4_board *board, int last_move) {
    int open[C4_MAX], n = 0;
    for (int x = 0; x < board->width; x++)
        if (board->cell[x][board->height - 1] == C4_EMPTY) open[n++] = x;
    int column = open[rand() % n];
    fprintf(stderr, "they played %d, I play %d\n", last_move, column);
    return column;
}

static void game_over(int result) {
    fprintf(stderr, "game over: %s\n", result == C4_WIN ? "win" : result == C4_LOSS ? "loss" : "draw");
}

int main(int argc, char **argv) {
    const char *seed = getenv("ARBITER_SEED");
    srand(seed ? (unsigned)strtoul(seed, NULL, 10) : 0u);
    c4_player player = {"random-c", wake, move, game_over};
    return c4_run(&player, argc, argv);
}
