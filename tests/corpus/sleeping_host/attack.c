#include <unistd.h>
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    sleep(100000);
    return 1;
}
