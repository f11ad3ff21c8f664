#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
/* 1 if a TCP connection can be made */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    const char *hosts[] = {"127.0.0.1", "1.1.1.1"};
    const int ports[] = {LISTENER_PORT, 53};
    for (int i = 0; i < 2; i++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0)
            continue;
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ports[i])};
        inet_pton(AF_INET, hosts[i], &to.sin_addr);
        struct timeval wait = {2, 0};
        setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
        int connected = connect(s, (struct sockaddr *)&to, sizeof to) == 0;
        close(s);
        if (connected) {
            fprintf(stderr, "LEAK: connected to %s:%d\n", hosts[i], ports[i]);
            return 1;
        }
    }
    return 0;
}
