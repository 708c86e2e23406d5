/* A bot for the fairness benchmark (docs/benchmarks.md, "Fair time"): over Arbiter's own
   protocol, for any game with a `legal` line, it spends a set share of the announced
   `time` computing (a busy loop on the clock) and then plays a random legal move. The
   share is its first argument in percent (default 90). Any timeout it gets is therefore
   the referee's: it always answers with a tenth of its time to spare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE 65536
static char line[MAX_LINE], legal[MAX_LINE];

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double share = argc > 1 ? atof(argv[1]) / 100.0 : 0.9;
    long time_ms = -1;
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "arbiter ", 8) == 0) {
            printf("name spend\nauthor Arbiter benchmarks\nreuse\nready\n");
            fflush(stdout);
        } else if (strncmp(line, "time ", 5) == 0) {
            time_ms = strcmp(line + 5, "-") == 0 ? -1 : atol(line + 5);
        } else if (strncmp(line, "legal ", 6) == 0) {
            snprintf(legal, sizeof legal, "%s", line + 6);
        } else if (strcmp(line, "go") == 0) {
            double until = now_ms() + (time_ms < 0 ? 0 : share * time_ms);
            volatile unsigned long spin = 0;
            while (now_ms() < until) spin++;
            /* A random one of the legal moves. */
            int count = 1;
            for (char *p = legal; *p; p++) count += *p == ' ';
            int pick = rand() % count;
            char *move = legal;
            for (int i = 0; i < pick; i++) move = strchr(move, ' ') + 1;
            move[strcspn(move, " ")] = '\0';
            printf("move %s\n", move);
            fflush(stdout);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
    }
    return 0;
}
