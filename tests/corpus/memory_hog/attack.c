#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* four processes, each allocating and touching 64 MB blocks until it is stopped */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    for (int i = 0; i < 3; i++)
        if (fork() == 0)
            break;
    for (;;) {
        char *block = malloc(64 << 20);
        if (block)
            memset(block, 1, 64 << 20);
        else
            sleep(1); /* keep what it has */
    }
    return 1;
}
