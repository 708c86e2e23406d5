/* A Gomocup engine written the way the world's threaded engines are (Rapfi, the Gomocup
 * 2024 champion, among them): an input thread reads the manager's commands and drops any
 * command that arrives while a `thinking` flag is set; a search thread thinks, prints its
 * move, and clears the flag only after some more work of its own (bookkeeping after the
 * answer). A manager that stops the engine the moment the move is read can freeze the
 * search thread between the two; when it then continues the engine and writes the next
 * `TURN` at once, the input thread reads it while the flag is still set, drops it, and
 * the engine never answers: a loss on time caused by the manager.
 *
 * Its moves: a random empty cell (seeded from ARBITER_SEED when given), after thinking
 * 1 to 8 ms (busy), then BOOKKEEPING_US (busy) after its answer. Like Rapfi, it sets up
 * its hash table at its first search of a game: half the memory `INFO max_memory` gave
 * it, or 350 MB when told there is no limit (0), each byte written. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX 32
#define BOOKKEEPING_US 400

static int size = 10;
static int board[MAX][MAX];
static atomic_int thinking;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int job;
static unsigned long long state = 88172645463325252ULL;
static unsigned long long max_memory;
static char *hash;

static unsigned long long next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void busy(long long us) {
    long long until = now_us() + us;
    volatile unsigned long long sink = 0;
    while (now_us() < until) sink += next_random();
}

static void say(const char *line) {
    fputs(line, stdout);
    fflush(stdout);
}

static void *search(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!job) pthread_cond_wait(&wake, &lock);
        job = 0;
        pthread_mutex_unlock(&lock);
        if (!hash) {
            size_t bytes = max_memory ? max_memory / 2 : 350u << 20;
            hash = malloc(bytes);
            if (hash) memset(hash, 1, bytes);
        }
        busy(1000 + (long long)(next_random() % 7000));
        int free_cells = 0;
        for (int x = 0; x < size; x++)
            for (int y = 0; y < size; y++) free_cells += board[x][y] == 0;
        int pick = free_cells ? (int)(next_random() % free_cells) : 0, mx = 0, my = 0;
        for (int x = 0; x < size; x++)
            for (int y = 0; y < size; y++)
                if (board[x][y] == 0 && pick-- == 0) mx = x, my = y;
        board[mx][my] = 1;
        char answer[32];
        snprintf(answer, sizeof answer, "%d,%d\n", mx, my);
        say(answer);
        /* The work after the answer: the window a manager must not stop the engine in. */
        busy(BOOKKEEPING_US);
        atomic_store(&thinking, 0);
    }
    return NULL;
}

static void think(void) {
    atomic_store(&thinking, 1);
    pthread_mutex_lock(&lock);
    job = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

int main(void) {
    const char *seed = getenv("ARBITER_SEED");
    if (seed && *seed) state ^= strtoull(seed, NULL, 10) * 2654435761ULL;
    pthread_t searcher;
    pthread_create(&searcher, NULL, search, NULL);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        if (atomic_load(&thinking)) {
            /* As such engines do: a command while thinking is not for now. */
            char dropped[300];
            line[strcspn(line, "\r\n")] = 0;
            snprintf(dropped, sizeof dropped, "ERROR dropped a command while thinking: %s\n", line);
            say(dropped);
            continue;
        }
        int x, y, who;
        if (!strncmp(line, "START", 5)) {
            size = atoi(line + 6);
            if (size < 5 || size > MAX) { say("ERROR unsupported size\n"); continue; }
            memset(board, 0, sizeof board);
            say("OK\n");
        } else if (!strncmp(line, "RESTART", 7)) {
            memset(board, 0, sizeof board);
            say("OK\n");
        } else if (!strncmp(line, "BEGIN", 5)) {
            think();
        } else if (sscanf(line, "TURN %d,%d", &x, &y) == 2) {
            if (x >= 0 && y >= 0 && x < size && y < size) board[x][y] = 2;
            think();
        } else if (!strncmp(line, "BOARD", 5)) {
            while (fgets(line, sizeof line, stdin) && strncmp(line, "DONE", 4))
                if (sscanf(line, "%d,%d,%d", &x, &y, &who) == 3 && x >= 0 && y >= 0 && x < size && y < size) board[x][y] = who;
            think();
        } else if (!strncmp(line, "ABOUT", 5)) {
            say("name=\"threaded-brain\", version=\"1\", author=\"Arbiter tests\"\n");
        } else if (sscanf(line, "INFO max_memory %llu", &max_memory) == 1) {
            /* Its hash is set up for it at the next first search. */
        } else if (!strncmp(line, "END", 3)) {
            return 0;
        } else if (strncmp(line, "INFO", 4)) {
            say("UNKNOWN\n");
        }
    }
    return 0;
}
