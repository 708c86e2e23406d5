/* The operating system's floor for one move of a persistent bot: a pipe round trip
   to a child process, bare and with SIGCONT/SIGSTOP around it (as the referee pauses
   bots between moves). Build and run: cc -O2 -o /tmp/pipe_floor docs/bench/pipe_floor.c && /tmp/pipe_floor */
#include <stdio.h>
#include <unistd.h>
#include <time.h>
#include <signal.h>
int main(){int a[2],b[2];pipe(a);pipe(b);pid_t p=fork();char c;
if(p==0){while(read(a[0],&c,1)==1) write(b[1],&c,1);return 0;}
struct timespec t0,t1;clock_gettime(CLOCK_MONOTONIC,&t0);int n=20000;
for(int i=0;i<n;i++){write(a[1],"x",1);read(b[0],&c,1);}
clock_gettime(CLOCK_MONOTONIC,&t1);printf("pipe round trip %.1f us\n",((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/n/1e3);
clock_gettime(CLOCK_MONOTONIC,&t0);n=5000;
for(int i=0;i<n;i++){kill(p,SIGCONT);write(a[1],"x",1);read(b[0],&c,1);kill(p,SIGSTOP);}
clock_gettime(CLOCK_MONOTONIC,&t1);printf("with stop/cont %.1f us\n",((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/n/1e3);
kill(p,SIGKILL);return 0;}
