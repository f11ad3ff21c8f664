#include <stdlib.h>
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    abort();
}
