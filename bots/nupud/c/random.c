/* Nupud random player: one process per call. `place white|black`: a random set-up (a
 * permutation of 432111, file a first). `move white|black` and the board: a uniformly
 * random legal move, e.g. `c1c3`. Empty stdin: prints its name.
 * Build: cc -O2 -o random random.c */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* side[f][r] is 'W', 'B' or 0; value[f][r] its value. Files and ranks from 0. */
static char side[6][6];
static int value[6][6];
static int moves[18][4], n_moves;

static int on_board(int f, int r) { return f >= 0 && f < 6 && r >= 0 && r < 6; }

static void add(int f, int r, int tf, int tr) {
    moves[n_moves][0] = f; moves[n_moves][1] = r;
    moves[n_moves][2] = tf; moves[n_moves][3] = tr;
    n_moves++;
}

int main(void) {
    char verb[16], who[16];
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */
    if (scanf("%15s %15s", verb, who) != 2) { /* empty stdin: the name request */
        puts("random-c");
        return 0;
    }
    if (strcmp(verb, "place") == 0) {
        char setup[] = "432111";
        for (int i = 5; i > 0; i--) { /* Fisher-Yates shuffle */
            int j = rand() % (i + 1);
            char t = setup[i]; setup[i] = setup[j]; setup[j] = t;
        }
        fprintf(stderr, "%s: set-up %s\n", who, setup);
        puts(setup);
        return 0;
    }
    char me = strcmp(who, "white") == 0 ? 'W' : 'B';
    int ahead = me == 'W' ? 1 : -1; /* White moves up the ranks, Black down */
    for (int rank = 5; rank >= 0; rank--) /* rank 6 comes first */
        for (int file = 0; file < 6; file++) {
            char cell[8];
            if (scanf("%7s", cell) != 1) { fprintf(stderr, "short board\n"); return 1; }
            if (cell[0] == 'W' || cell[0] == 'B') {
                side[file][rank] = cell[0];
                value[file][rank] = cell[1] - '0';
            }
        }
    for (int f = 0; f < 6; f++)
        for (int r = 0; r < 6; r++) {
            if (side[f][r] != me) continue;
            if (value[f][r] == 1) {
                /* One step forward onto an empty square, or a diagonal capture. */
                if (on_board(f, r + ahead) && !side[f][r + ahead]) add(f, r, f, r + ahead);
                for (int d = -1; d <= 1; d += 2) {
                    int tf = f + d, tr = r + ahead;
                    if (on_board(tf, tr) && side[tf][tr] && side[tf][tr] != me) add(f, r, tf, tr);
                }
            } else {
                /* 1 to value squares straight forward, stopping at the first piece. */
                for (int k = 1; k <= value[f][r]; k++) {
                    int tr = r + k * ahead;
                    if (!on_board(f, tr) || side[f][tr] == me) break;
                    add(f, r, f, tr);
                    if (side[f][tr]) break;
                }
            }
        }
    if (n_moves == 0) { fprintf(stderr, "no legal move\n"); return 1; }
    int *m = moves[rand() % n_moves];
    fprintf(stderr, "%s: %d legal moves, playing %c%d%c%d\n", who, n_moves, 'a' + m[0], m[1] + 1, 'a' + m[2], m[3] + 1);
    printf("%c%d%c%d\n", 'a' + m[0], m[1] + 1, 'a' + m[2], m[3] + 1);
    return 0;
}
