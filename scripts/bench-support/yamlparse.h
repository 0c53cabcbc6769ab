/* Shared by floor.c and treefloor.c: run libyaml's event parser over a buffer, nothing else. */
#include <yaml.h>

static void parse_events(const unsigned char *buf, size_t n, long *events, long *errors) {
    yaml_parser_t p;
    yaml_event_t e;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, buf, n);
    for (;;) {
        if (!yaml_parser_parse(&p, &e)) { (*errors)++; break; }
        int done = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
        (*events)++;
        if (done) break;
    }
    yaml_parser_delete(&p);
}
