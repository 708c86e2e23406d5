/* A bot of the project's protocol that tries to think on its opponent's time although the
 * referee pauses it between its moves, in the two ways a stopped process can be made to
 * run again: a POSIX timer sends it SIGCONT every 2 ms (with a handler), and a child
 * that tries to leave its process group (`setsid`) sends it SIGCONT every millisecond.
 * A second thread spins all the time, "pondering". At each `go` it says on stderr how
 * much CPU time the pondering thread had since its last answer (`pondered N ms`), then
 * plays the first legal move. Paused so that it cannot undo the pause, it ponders only
 * while it settles. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static clockid_t ponder_clock;

static double ms(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void *ponder(void *unused) {
    (void)unused;
    volatile unsigned long n = 0;
    for (;;) n++;
    return NULL;
}

static void on_cont(int sig) { (void)sig; }

int main(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_cont;
    action.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &action, NULL);
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGCONT;
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) == 0) {
        struct itimerspec every = {{0, 2000000}, {0, 2000000}};
        timer_settime(timer, 0, &every, NULL);
    } else {
        fprintf(stderr, "no timer\n");
    }
    pid_t parent = getpid();
    if (fork() == 0) {
        /* Out of the group the referee stops, where the system lets it (outside the sandbox). */
        if (setsid() < 0) fprintf(stderr, "setsid refused\n");
        /* Ends with the bot: out of its group, no kill of the group reaches it. */
        for (;;) {
            if (kill(parent, SIGCONT) < 0) _exit(0);
            usleep(1000);
        }
    }
    pthread_t thread;
    pthread_create(&thread, NULL, ponder, NULL);
    pthread_getcpuclockid(thread, &ponder_clock);
    char line[65536], legal[65536] = "";
    double answered = -1;
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "arbiter", 7)) {
            printf("name sigcont\nready\n");
            fflush(stdout);
        } else if (!strncmp(line, "legal ", 6)) {
            strcpy(legal, line + 6);
        } else if (!strncmp(line, "go", 2)) {
            double now = ms(ponder_clock);
            if (answered >= 0) fprintf(stderr, "pondered %.0f ms\n", now - answered);
            char *move = strtok(legal, " \r\n");
            printf("move %s\n", move ? move : "");
            fflush(stdout);
            answered = ms(ponder_clock);
        } else if (!strncmp(line, "quit", 4)) {
            return 0;
        }
    }
    return 0;
}
