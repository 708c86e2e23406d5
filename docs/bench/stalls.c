/* The machine's own floor for wall-clock fairness (docs/benchmarks.md, "Fair time"): a
   busy loop that reads the monotonic clock without pause for a set time and counts the
   stalls, the moments it did not run for more than 1, 5 and 20 ms (preempted by the
   kernel's or other programs' work, or by the hypervisor). Run one per core, pinned and
   at the bots' nice level, on an otherwise idle machine:
     cc -O2 -o /tmp/stalls docs/bench/stalls.c
     for cpu in 0 1; do taskset -c $cpu nice -n 10 /tmp/stalls 60 & done; wait
   A bot that answers 5 ms before its limit can lose on time whenever such a stall of
   more than 5 ms falls at the end of its move: no referee can prevent that. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    double end = now_ms() + seconds * 1e3, last = now_ms(), longest = 0;
    long over1 = 0, over5 = 0, over20 = 0;
    for (;;) {
        double t = now_ms(), gap = t - last;
        if (t > end) break;
        last = t;
        over1 += gap > 1;
        over5 += gap > 5;
        over20 += gap > 20;
        if (gap > longest) longest = gap;
    }
    printf("%.0f s: stalls over 1 ms %ld, over 5 ms %ld, over 20 ms %ld, longest %.1f ms\n", seconds, over1, over5, over20, longest);
    return 0;
}
