#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
/* looks for any descriptor the grader left open (a lock, a log, a results file) and writes to
 * it; fails on purpose if it finds one */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    int found = 0;
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1) {
            fprintf(stderr, "LEAK: descriptor %d is open\n", fd);
            if (write(fd, "spoiled\n", 8) < 0) {
                /* read-only or a directory: it still reached something of the grader's */
            }
            found = 1;
        }
    return found;
}
