/* The floor for `scripts/bench`: read every file named on stdin and run libyaml's event parser over it,
 * nothing else. Tagwarden's audit is measured against this. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "yamlparse.h"

int main(void) {
    char path[4096];
    long events = 0, files = 0, errors = 0;
    size_t cap = 1 << 16;
    unsigned char *buf = malloc(cap);
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = 0;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t n = 0, r;
        while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
            n += r;
            if (n == cap) { cap *= 2; buf = realloc(buf, cap); }
        }
        fclose(f);
        parse_events(buf, n, &events, &errors);
        files++;
    }
    printf("%ld files, %ld events, %ld errors\n", files, events, errors);
    return 0;
}
