/* Pah-tum random player (the seed's baseline): reads the 56-character board from
 * stdin, puts its letter on a random empty square, writes the board to stdout.
 * Build: cc -O2 -o random random.c */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    char board[7][8];
    int xs = 0, os = 0, empty[49], n_empty = 0;
    for (int r = 0; r < 7; r++) {
        /* Each line is 7 characters and a line end. */
        if (scanf("%7s", board[r]) != 1 || strlen(board[r]) != 7) {
            fprintf(stderr, "bad board\n");
            return 1;
        }
        for (int c = 0; c < 7; c++) {
            if (board[r][c] == 'X') xs++;
            if (board[r][c] == 'O') os++;
            if (board[r][c] == '-') empty[n_empty++] = r * 7 + c;
        }
    }
    if (n_empty == 0) {
        fprintf(stderr, "no empty square\n");
        return 1;
    }
    char letter = xs == os ? 'X' : 'O';
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */
    int k = empty[rand() % n_empty];
    board[k / 7][k % 7] = letter;
    fprintf(stderr, "playing %c at %c%d\n", letter, 'A' + k / 7, k % 7 + 1);
    for (int r = 0; r < 7; r++) printf("%s\n", board[r]);
    return 0;
}
