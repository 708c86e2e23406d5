/* {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
 * Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form reads). It starts as a random player: it plays a random move of the
 * `legal` line. Make it better in choose_move.
 *
 * The referee writes one line at a time on stdin; the bot answers on stdout, one line,
 * flushed. Debug output goes to stderr (it is kept in the game record, per move). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1 << 16)

static char line[MAX_LINE], legal[MAX_LINE], move[MAX_LINE];

/* The move to play into `move`: a random word of the legal list. The list is empty in a
 * game whose moves cannot be listed (Legions), where "" is a turn without orders. */
static void choose_move(void) {
    int count = 0, pick;
    char *word;
    for (int i = 0; legal[i]; i++)
        if (legal[i] != ' ' && (i == 0 || legal[i - 1] == ' ')) count++;
    move[0] = '\0';
    if (count == 0) return;
    pick = rand() % count;
    word = strtok(legal, " ");
    for (int i = 0; word && i < pick; i++) word = strtok(NULL, " ");
    snprintf(move, sizeof move, "%s", word ? word : "");
}

int main(void) {
    /* The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
     * `--seed` gives the same games, move for move. */
    const char *seed = getenv("ARBITER_SEED");
    srand(seed ? (unsigned)strtoul(seed, NULL, 10) : 0u);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "arbiter ", 8) == 0) {
            printf("name {{NAME}}\nready\n");
            fflush(stdout);
        } else if (strncmp(line, "seed ", 5) == 0) {
            srand((unsigned)strtoul(line + 5, NULL, 10));
        } else if (strncmp(line, "position ", 9) == 0) {
            legal[0] = '\0';
        } else if (strncmp(line, "legal ", 6) == 0) {
            snprintf(legal, sizeof legal, "%s", line + 6);
        } else if (strcmp(line, "go") == 0) {
            choose_move();
            fprintf(stderr, "playing '%s'\n", move);
            printf("move %s\n", move);
            fflush(stdout);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
        /* Other lines (game, side, start, opponent, time, result) are not needed here. */
    }
    return 0;
}
