/* A small Gomocup engine (Piskvork's "pbrain" protocol, docs/bots.md, "gomocup").
 *
 * The manager writes commands on stdin, the engine answers on stdout, one line each,
 * flushed: `START 10` -> `OK` (or `ERROR ...` for a size it does not play), `INFO key
 * value` -> nothing, `BEGIN` -> its first move, `TURN x,y` (the opponent's move) -> its
 * move, `BOARD` + `x,y,1|2` lines + `DONE` -> its move in that position, `ABOUT` -> one
 * line of key="value" pairs, `RESTART` -> an empty board and `OK` (a new game in the same
 * process), `END` -> exit. Moves are `x,y` from 0, x the column.
 *
 * It plays a five when it has one, blocks the opponent's, and otherwise the empty cell
 * that lengthens its own lines and cuts the opponent's most (ties broken at random).
 * It says what it found on `MESSAGE` and `DEBUG` lines, which the referee keeps. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 20
enum { EMPTY = 0, OWN = 1, OPP = 2 };

static int size = 0;
static int board[MAX_SIZE][MAX_SIZE];

static void say(const char *line) {
    printf("%s\n", line);
    fflush(stdout);
}

/* The longest line of `who` through (x, y) if `who` played there. */
static int line_length(int x, int y, int who) {
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    int best = 0;
    for (int d = 0; d < 4; d++) {
        int run = 1;
        for (int sign = -1; sign <= 1; sign += 2) {
            int cx = x + sign * dirs[d][0], cy = y + sign * dirs[d][1];
            while (cx >= 0 && cx < size && cy >= 0 && cy < size && board[cx][cy] == who) {
                run++;
                cx += sign * dirs[d][0];
                cy += sign * dirs[d][1];
            }
        }
        if (run > best) best = run;
    }
    return best;
}

static void play_move(void) {
    int best = -1, best_x = -1, best_y = -1, ties = 0, n_empty = 0;
    for (int x = 0; x < size; x++)
        for (int y = 0; y < size; y++) {
            if (board[x][y] != EMPTY) continue;
            n_empty++;
            int own = line_length(x, y, OWN), opp = line_length(x, y, OPP);
            /* A five wins, blocking one comes next, then longer lines. */
            int score = own >= 5 ? 1000 : opp >= 5 ? 900 : own * 10 + opp * 9;
            if (score > best) {
                best = score, best_x = x, best_y = y, ties = 1;
            } else if (score == best && rand() % ++ties == 0) {
                best_x = x, best_y = y;
            }
        }
    if (best_x < 0) {
        say("ERROR the board is full");
        return;
    }
    board[best_x][best_y] = OWN;
    if (best >= 1000) say("MESSAGE five in a row");
    else if (best >= 900) say("MESSAGE blocking a five");
    printf("DEBUG score %d of %d empty cells\n", best, n_empty);
    fprintf(stderr, "playing %d,%d\n", best_x, best_y);
    printf("%d,%d\n", best_x, best_y);
    fflush(stdout);
}

/* Puts `who`'s stone on "x,y"; false when the text is no cell of the board. */
static int put(const char *text, int who) {
    int x, y;
    if (sscanf(text, "%d,%d", &x, &y) != 2 || x < 0 || y < 0 || x >= size || y >= size) return 0;
    board[x][y] = who;
    return 1;
}

int main(void) {
    char line[256];
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncasecmp(line, "START ", 6) == 0) {
            int n = atoi(line + 6);
            if (n < 5 || n > MAX_SIZE) {
                say("ERROR unsupported size");
                continue;
            }
            size = n;
            memset(board, 0, sizeof board);
            say("OK");
        } else if (strncasecmp(line, "INFO ", 5) == 0) {
            /* The limits: this engine answers at once, so it needs none of them. */
        } else if (strcasecmp(line, "BEGIN") == 0) {
            play_move();
        } else if (strncasecmp(line, "TURN ", 5) == 0) {
            if (!put(line + 5, OPP)) say("ERROR bad TURN");
            else play_move();
        } else if (strcasecmp(line, "BOARD") == 0) {
            memset(board, 0, sizeof board);
            while (fgets(line, sizeof line, stdin)) {
                line[strcspn(line, "\r\n")] = '\0';
                if (strcasecmp(line, "DONE") == 0) break;
                int x, y, who;
                if (sscanf(line, "%d,%d,%d", &x, &y, &who) == 3 && x >= 0 && y >= 0 && x < size && y < size)
                    board[x][y] = who == 1 ? OWN : OPP;
            }
            play_move();
        } else if (strcasecmp(line, "RESTART") == 0) {
            memset(board, 0, sizeof board);
            say("OK");
        } else if (strcasecmp(line, "ABOUT") == 0) {
            say("name=\"Sample Brain\", version=\"1.0\", author=\"Arbiter sample bots\", country=\"LV\"");
        } else if (strcasecmp(line, "END") == 0) {
            return 0;
        } else {
            printf("UNKNOWN %s\n", line);
            fflush(stdout);
        }
    }
    return 0;
}
