/* Asks for N MiB (the argument), fills them, and says whether it got them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    size_t n = (size_t)atol(argc > 1 ? argv[1] : "3072") << 20;
    char *p = malloc(n);
    if (!p) {
        puts("refused");
        return 0;
    }
    memset(p, 1, n);
    printf("granted %zu (last byte %d)\n", n, p[n - 1]);
    return 0;
}
