/* Gomoku random player for the console interface (the seed's baseline).
 *
 * One process per game. The bot asks, the manager answers: `figure?` gives its mark
 * (`X` or `0`), `step?` the opponent's last move (`--` before the opponent's first
 * move), `field?` the 10 field lines. `step! B7` is the bot's move (column A..J, row
 * 0..9); the time for it runs from the answer to `step?`. `random INFO` prints the name
 * and the author on two lines and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Prints a question and reads the answer's first line into `line`; exits when the
 * manager has gone (the game is over). */
static void ask(const char *question, char *line, int size) {
    printf("%s\n", question);
    fflush(stdout);
    if (!fgets(line, size, stdin)) exit(0);
    line[strcspn(line, "\r\n")] = '\0';
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "INFO") == 0) {
        printf("Random Player\nArbiter sample bots\n");
        return 0;
    }
    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */

    char figure[16], last[16], rows[10][16];
    ask("figure?", figure, sizeof figure);
    for (;;) {
        ask("step?", last, sizeof last);
        ask("field?", rows[0], sizeof rows[0]);
        for (int row = 1; row < 10; row++) {
            if (!fgets(rows[row], sizeof rows[row], stdin)) return 0;
        }

        int empty[100], n_empty = 0;
        for (int row = 0; row < 10; row++)
            for (int col = 0; col < 10; col++)
                if (rows[row][col] == '.') empty[n_empty++] = row * 10 + col;
        if (n_empty == 0) return 0;

        int cell = empty[rand() % n_empty];
        char move[3] = {(char)('A' + cell % 10), (char)('0' + cell / 10), '\0'};
        fprintf(stderr, "%s after %s: %s of %d empty cells\n", figure, last, move, n_empty);
        printf("step! %s\n", move);
        fflush(stdout);
    }
}
