#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* memory held in memfds of 200 MB each (under RLIMIT_FSIZE), written, never mapped: neither
 * RLIMIT_DATA nor the resident size sees it; 2 GB in all, then it keeps what it has */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    static char chunk[1 << 20];
    memset(chunk, 3, sizeof chunk);
    for (int file = 0; file < 10; file++) {
        int fd = memfd_create("hoard", 0);
        for (int mb = 0; fd >= 0 && mb < 200; mb++)
            if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
                break;
    }
    printf("held 2 GB in memfds\n");
    fflush(stdout);
    sleep(60);
    return 1;
}
