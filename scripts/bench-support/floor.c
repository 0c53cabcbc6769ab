/* The floor for `scripts/bench`: read every file named on stdin and run libyaml's event parser over it,
 * nothing else. Tagwarden's audit is measured against this. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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
        yaml_parser_t p;
        yaml_event_t e;
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, buf, n);
        for (;;) {
            if (!yaml_parser_parse(&p, &e)) { errors++; break; }
            int done = e.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&e);
            events++;
            if (done) break;
        }
        yaml_parser_delete(&p);
        files++;
    }
    printf("%ld files, %ld events, %ld errors\n", files, events, errors);
    return 0;
}
