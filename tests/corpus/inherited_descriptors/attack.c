#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
/* looks for any descriptor the grader left open (a lock, a log, a results file) and writes to
 * it; fails on purpose if it finds one. The one descriptor a run is given on purpose is the
 * channel of the grader's OpenCL layer (fd 3, a Unix SEQPACKET socket made for this run alone,
 * grader/child/launch_layer.c): it is written to as well, and must cost nothing (the grader
 * believes only records that carry the nonce the layer took before main) */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    int found = 0;
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1) {
            int type = 0;
            socklen_t size = sizeof type;
            int channel = fd == 3 && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 &&
                          type == SOCK_SEQPACKET;
            if (!channel)
                fprintf(stderr, "LEAK: descriptor %d is open\n", fd);
            if (write(fd, "spoiled\n", 8) < 0) {
                /* read-only or a directory: it still reached something of the grader's */
            }
            found |= !channel;
        }
    return found;
}
