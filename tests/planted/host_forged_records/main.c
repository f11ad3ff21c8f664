/* Planted cheat: C computed on the CPU, and on fd 3 (the grader's channel, whose record format
 * exercise/protocol.h documents) a full set of forged records: the layer's greeting, a program
 * built from exactly the bytes of kernel.cl (its length and FNV-1a hash, computed here), the
 * kernel mmul created from it, and a launch at the exercise's geometry. The nonce is tried first
 * from the channel itself (nothing there: the layer took it before main) and is otherwise
 * guessed. The records must not count: the host points are lost. */
#include "clu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static void forge(const char *nonce, const char *record) {
    char message[400];
    snprintf(message, sizeof message, "%s %s", nonce, record);
    send(3, message, strlen(message), MSG_DONTWAIT | MSG_NOSIGNAL);
}

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, "C on the CPU, launches forged");
    size_t n = (size_t)opt.n, count = n * n;
    char nonce[33] = "00000000000000000000000000000000", path[4200], record[200];
    if (recv(3, nonce, 32, MSG_DONTWAIT) != 32)
        memset(nonce, '0', 32);
    snprintf(path, sizeof path, "%s/kernel.cl", clu_exe_dir());
    size_t length = 0;
    char *text = clu_read_file(path, &length);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; text && i < length; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    forge(nonce, "H");
    snprintf(record, sizeof record, "P 0 %zu %016llx", length, (unsigned long long)h);
    forge(nonce, record);
    forge(nonce, "B 0 0");
    forge(nonce, "K 0 0 mmul");
    snprintf(record, sizeof record, "E 0 0 1 1 0 0 0 %zu 0 0 %zu 0 0", n,
             clu_divisor_at_most(n, 64));
    forge(nonce, record);
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    float *c = malloc(count * sizeof *c);
    double *ref = malloc(count * sizeof *ref);
    if (!a || !b || !c || !ref)
        return 2;
    clu_random_fill(a, count, opt.seed, 0);
    clu_random_fill(b, count, opt.seed, 1);
    clu_ref_gemm(opt.n, opt.n, opt.n, a, b, ref, NULL);
    for (size_t i = 0; i < count; i++)
        c[i] = (float)ref[i];
    return opt.output && clu_save_result(opt.output, c, count) != 0 ? 2 : 0;
}
