/* Random player for every game, over Arbiter's own protocol (docs/protocols/arbiter.md).
 *
 * It plays a random move from the `legal` line. Legions sends no `legal` line: there it
 * sends its five legions, one by one, to random provinces next to its connected ones
 * (empty, enemy, or its own cut-off ones) read from the `position` line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE (1 << 16)
#define MAX_N 32

static char line[MAX_LINE], game[64], position[MAX_LINE], legal[MAX_LINE], move[MAX_LINE];
static int side;

/* A random word of the legal list, copied into `move`. */
static void random_legal(void) {
    int count = 0, pick, i;
    char *word;
    for (i = 0; legal[i]; i++)
        if (i == 0 || legal[i - 1] == ' ') count++;
    pick = count ? rand() % count : 0;
    word = strtok(legal, " ");
    for (i = 0; word && i < pick; i++) word = strtok(NULL, " ");
    snprintf(move, sizeof move, "%s", word ? word : "");
}

/* Is cell text `c` a province of ours joined to our city (N or V, upper case)? */
static int connected(const char *c) {
    return (c[0] == 'N' || c[0] == 'V') && c[1] == '0' + side;
}

static void legions_move(void) {
    static char cells[MAX_N][MAX_N][4];
    int n = 0, x = 0, y, k, tx, ty, len = 0, ntargets = 0;
    static int targets[MAX_N * MAX_N][2];
    const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    char *p = strchr(position, ' ');
    for (p = p ? p + 1 : position; *p && n < MAX_N; p++) {
        int i = 0;
        while (*p && *p != ',' && *p != '/') {
            if (i < 3) cells[n][x][i++] = *p;
            p++;
        }
        cells[n][x][i] = '\0';
        if (x < MAX_N - 1) x++;
        if (*p == '/') { n++; x = 0; }
        if (!*p) { n++; break; }
    }
    for (y = 0; y < n; y++)
        for (x = 0; x < n; x++) {
            if (!connected(cells[y][x])) continue;
            for (k = 0; k < 4; k++) {
                tx = x + dx[k];
                ty = y + dy[k];
                if (tx >= 0 && tx < n && ty >= 0 && ty < n && !connected(cells[ty][tx])) {
                    targets[ntargets][0] = tx;
                    targets[ntargets][1] = ty;
                    ntargets++;
                }
            }
        }
    move[0] = '\0';
    for (k = 0; k < 5 && ntargets > 0; k++) {
        int t = rand() % ntargets;
        len += snprintf(move + len, sizeof move - len, "%s%d %d 1", k ? ";" : "", targets[t][0], targets[t][1]);
    }
}

int main(void) {
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *rest = strchr(line, ' ');
        rest = rest ? rest + 1 : line + strlen(line);
        if (strncmp(line, "arbiter ", 8) == 0) {
            /* reuse: it can play game after game (it keeps nothing from one to the next). */
            printf("name random-c\nauthor Arbiter sample bots\nreuse\nready\n");
            fflush(stdout);
        } else if (strncmp(line, "game ", 5) == 0) {
            sscanf(rest, "%63s", game);
        } else if (strncmp(line, "side ", 5) == 0) {
            side = atoi(rest);
        } else if (strncmp(line, "position ", 9) == 0) {
            snprintf(position, sizeof position, "%s", rest);
        } else if (strncmp(line, "legal ", 6) == 0) {
            snprintf(legal, sizeof legal, "%s", rest);
        } else if (strcmp(line, "go") == 0) {
            if (strcmp(game, "legions") == 0) legions_move();
            else random_legal();
            fprintf(stderr, "position %s: playing %s\n", position, move);
            printf("move %s\n", move);
            fflush(stdout);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
        /* Other lines (start, opponent, time, result, anything new) are not needed. */
    }
    return 0;
}
