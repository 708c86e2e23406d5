/* Gomoku random player for the file interface (the seed's baseline).
 *
 * Started once per move as `random X|0 FIELD-FILE ANSWER-FILE` in its own working
 * directory: reads the field (10 lines of `.`, `X`, `0`), writes a random empty cell
 * (`B7`: column A..J, row 0..9) into the answer file. `random INFO FIELD ANSWER` writes
 * the name and the author on two lines instead. The working directory is kept for the
 * whole game, so a file there is the bot's memory between moves: here, a move count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s X|0|INFO FIELD-FILE ANSWER-FILE\n", argv[0]);
        return 2;
    }
    const char *command = argv[1];
    FILE *answer;
    if (strcmp(command, "INFO") == 0) {
        answer = fopen(argv[3], "w");
        if (!answer) return 1;
        fputs("Random Player\nArbiter sample bots\n", answer);
        return fclose(answer) == 0 ? 0 : 1;
    }

    char rows[10][16];
    FILE *field = fopen(argv[2], "r");
    if (!field) return 1;
    for (int row = 0; row < 10; row++) {
        if (fscanf(field, "%15s", rows[row]) != 1) return 1;
    }
    fclose(field);

    int empty[100], n_empty = 0;
    for (int row = 0; row < 10; row++)
        for (int col = 0; col < 10; col++)
            if (rows[row][col] == '.') empty[n_empty++] = row * 10 + col;
    if (n_empty == 0) return 1;

    int n_moves = 0;
    FILE *memory = fopen("moves.txt", "r");
    if (memory) {
        if (fscanf(memory, "%d", &n_moves) != 1) n_moves = 0;
        fclose(memory);
    }
    n_moves++;
    memory = fopen("moves.txt", "w");
    if (memory) {
        fprintf(memory, "%d\n", n_moves);
        fclose(memory);
    }

    srand((unsigned)strtoul(getenv("ARBITER_SEED") ? getenv("ARBITER_SEED") : "0", NULL, 10)); /* the game's seed for this side */
    int cell = empty[rand() % n_empty];
    char move[3] = {(char)('A' + cell % 10), (char)('0' + cell / 10), '\0'};
    fprintf(stderr, "move %d as %s: %s of %d empty cells\n", n_moves, command, move, n_empty);
    answer = fopen(argv[3], "w");
    if (!answer) return 1;
    fprintf(answer, "%s\n", move);
    return fclose(answer) == 0 ? 0 : 1;
}
