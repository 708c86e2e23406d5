/* Legions random player (the seed's baseline, simplified): reads the map from stdin
 * and sends its 5 legions one by one, each to a random province it does not own next
 * to one of its connected provinces (upper case). Empty stdin: prints its name.
 * Build: cc -O2 -o random random.c */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_N 32

static char cell[MAX_N][MAX_N][3]; /* cell[y][x]: ".", or e.g. "N0", "v1" */

/* Reads all of stdin into a NUL-terminated buffer. */
static char *read_all(void) {
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, stdin)) > 0) {
        len += got;
        if (cap - len < 2) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) { free(buf); return NULL; }
            buf = bigger;
        }
    }
    if (buf) buf[len] = '\0';
    return buf;
}

static int connected(int x, int y, char me) {
    return (cell[y][x][0] == 'N' || cell[y][x][0] == 'V') && cell[y][x][1] == me;
}

int main(void) {
    char *input = read_all();
    if (!input) return 1;
    /* Tokens are separated by any whitespace: TABs in map lines, spaces, \r\n. */
    char *tok = strtok(input, " \t\r\n");
    if (!tok) { /* empty stdin: the name request */
        puts("random-c");
        return 0;
    }
    char me = tok[0];
    tok = strtok(NULL, " \t\r\n");
    int n = tok ? atoi(tok) : 0;
    if (n < 1 || n > MAX_N) {
        fprintf(stderr, "bad board size\n");
        return 1;
    }
    for (int i = 0; i < 4; i++) strtok(NULL, " \t\r\n"); /* the two cities */
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            tok = strtok(NULL, " \t\r\n");
            if (!tok) { fprintf(stderr, "short map\n"); return 1; }
            snprintf(cell[y][x], sizeof cell[y][x], "%s", tok);
        }
    }
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */

    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    int left = 5, n_orders = 0;
    while (left > 0) {
        /* Every province next to a connected one of ours that we do not own. */
        static int tx[MAX_N * MAX_N], ty[MAX_N * MAX_N];
        static char seen[MAX_N][MAX_N];
        memset(seen, 0, sizeof seen);
        int count = 0;
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                if (!connected(x, y, me)) continue;
                for (int d = 0; d < 4; d++) {
                    int nx = x + dx[d], ny = y + dy[d];
                    if (nx < 0 || ny < 0 || nx >= n || ny >= n || seen[ny][nx]) continue;
                    if (cell[ny][nx][0] != '.' && cell[ny][nx][1] == me) continue;
                    seen[ny][nx] = 1;
                    tx[count] = nx;
                    ty[count] = ny;
                    count++;
                }
            }
        if (count == 0) break;
        int k = rand() % count;
        int c = 1 + rand() % left;
        printf("%d %d %d\n", tx[k], ty[k], c);
        left -= c;
        n_orders++;
        /* Assume an empty target is taken, so the next order may go further. */
        if (cell[ty[k]][tx[k]][0] == '.') {
            cell[ty[k]][tx[k]][0] = 'N';
            cell[ty[k]][tx[k]][1] = me;
            cell[ty[k]][tx[k]][2] = '\0';
        }
    }
    fprintf(stderr, "player %c: %d orders\n", me, n_orders);
    free(input);
    return 0;
}
