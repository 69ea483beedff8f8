/* Answers each key; a segmentation fault (SIGSEGV) on the key "r". */
#include <stdio.h>
#include <string.h>

int main(void) {
    char line[256];
    puts("menu");
    while (fgets(line, sizeof line, stdin)) {
        if (strcmp(line, "r\n") == 0) {
            volatile int *nowhere = NULL;
            *nowhere = 1;
        }
        printf("key %s", line);
    }
    return 0;
}
