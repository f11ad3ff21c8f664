#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* an honest host program that forks 60 short-lived helpers (8 ms of CPU each), waits for each
 * and checks it ended well, then does its work */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    for (int i = 0; i < 60; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            while (clock() < CLOCKS_PER_SEC / 125) /* its own CPU time (ISO C: main.c is C11) */
                ;
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return 1;
    }
    return 0;
}
