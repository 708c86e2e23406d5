/* What a virtual machine's host takes from a busy program (docs/benchmarks.md, "Fair
   time"): spins for SECONDS on one CPU, and reports every gap of more
   than 1 ms in its wall clock in which it neither ran (its thread's CPU clock) nor
   waited for a CPU (its run-queue wait, /proc/thread-self/schedstat), with the steal
   the machine's /proc/stat counted meanwhile. Run one per CPU at once:
       cc -O2 -o /tmp/freezes docs/bench/freezes.c
       /tmp/freezes 60 & /tmp/freezes 60 & wait */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The steal of all CPUs so far, in clock ticks (the eighth number of the cpu line). */
static long long steal_ticks(void) {
    long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f || fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) v[7] = -1;
    if (f) fclose(f);
    return v[7];
}

/* This thread's run-queue wait so far, in nanoseconds. */
static double run_delay_ns(void) {
    double ran = 0, waited = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f || fscanf(f, "%lf %lf", &ran, &waited) != 2) waited = 0;
    if (f) fclose(f);
    return waited;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 60;
    double start = now_ns(CLOCK_MONOTONIC), wall = start, cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
    double waited = run_delay_ns(), unexplained = 0;
    long long steal = steal_ticks(), first_steal = steal;
    int gaps = 0;
    for (;;) {
        double wall_now = now_ns(CLOCK_MONOTONIC), cpu_now = now_ns(CLOCK_THREAD_CPUTIME_ID);
        if (wall_now - wall > 1e6) {
            double waited_now = run_delay_ns();
            long long steal_now = steal_ticks();
            double gap = (wall_now - wall) / 1e6, ran = (cpu_now - cpu) / 1e6, wait = (waited_now - waited) / 1e6;
            double neither = gap - ran - wait;
            gaps++;
            if (neither > 1) {
                unexplained += neither;
                printf("at %.1f s: a gap of %.1f ms, ran %.2f, waited %.2f, neither %.2f ms; steal since the last gap %lld ticks\n",
                       (wall_now - start) / 1e9, gap, ran, wait, neither, steal_now - steal);
            }
            waited = waited_now;
            steal = steal_now;
        }
        if (wall_now - start > seconds * 1e9) break;
        wall = wall_now;
        cpu = cpu_now;
    }
    printf("%d gaps over 1 ms; %.1f ms neither running nor waiting; the machine's steal: %lld ticks\n", gaps, unexplained,
           steal_ticks() - first_steal);
    return 0;
}
