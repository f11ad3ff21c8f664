#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* forks children that each spin 8 ms of CPU and exit, one after the other, for ever; the kernel
 * reaps them (SIGCHLD ignored), so their CPU time is counted nowhere a watch of the live processes
 * could see: the run looks as if it wanted a CPU and got none */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    signal(SIGCHLD, SIG_IGN);
    for (;;) {
        if (fork() == 0) {
            while (clock() < CLOCKS_PER_SEC / 125) /* its own CPU time (ISO C: main.c is C11) */
                ;
            _exit(0);
        }
        wait(NULL); /* returns when the child is gone (ECHILD: the kernel reaped it) */
    }
    return 1;
}
