/* writes through a null pointer */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    volatile int *nowhere = 0;
    *nowhere = 1;
    return 1;
}
