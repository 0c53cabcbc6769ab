/* A second reference point for `scripts/bench`: what the mandated design costs before any Tagwarden logic.
 * libgit2 is initialised and the repository's index read (as `tagwarden audit` must, to tell tracked from
 * untracked files), the working tree is walked for *.yaml / *.yml with openat/readdir (no .git), and every
 * file found is read and run through libyaml's event parser, one thread. Run it in the repository root.
 * `treefloor 2`: the same files parsed by two threads, each taking every other file, as a design that uses both
 * cores for wall time must: its CPU time is what the mandated work alone costs such a design. */
#include <dirent.h>
#include <fcntl.h>
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "yamlparse.h"

static long files, events, errors;
static size_t cap = 1 << 16;
static unsigned char *buf;

static int wanted(const char *name) {
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* the two-thread mode: paths collected by the walk, parsed afterwards */
static int threaded;
static char **paths;
static size_t npaths, pathcap;
static char prefix[4096];

struct worker { size_t first; long events, errors; };

/* reads `fd` whole into *b (capacity *c) and parses it */
static void parse_fd(int fd, unsigned char **b, size_t *c, long *ev, long *er) {
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, *b + n, *c - n)) > 0) {
        n += (size_t)r;
        if (n == *c) { *c *= 2; *b = realloc(*b, *c); }
    }
    close(fd);
    parse_events(*b, n, ev, er);
}

static void *work(void *arg) {
    struct worker *w = arg;
    size_t c = 1 << 16;
    unsigned char *b = malloc(c);
    for (size_t i = w->first; i < npaths; i += 2) {
        int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd >= 0) parse_fd(fd, &b, &c, &w->events, &w->errors);
    }
    free(b);
    return NULL;
}

static void parse(int dir, const char *name) {
    if (threaded) {
        if (npaths == pathcap) { pathcap = pathcap ? pathcap * 2 : 1024; paths = realloc(paths, pathcap * sizeof *paths); }
        size_t n = strlen(prefix) + strlen(name) + 2;
        paths[npaths] = malloc(n);
        snprintf(paths[npaths++], n, "%s/%s", prefix, name);
        files++;
        return;
    }
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    parse_fd(fd, &buf, &cap, &events, &errors);
    files++;
}

static void walk(int fd) {
    DIR *d = fdopendir(fd);
    if (!d) { close(fd); return; }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, ".git") == 0) continue;
        if (e->d_type == DT_DIR) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            size_t at = strlen(prefix);
            snprintf(prefix + at, sizeof prefix - at, "/%s", e->d_name);
            if (sub >= 0) walk(sub);
            prefix[at] = 0;
        } else if (e->d_type == DT_REG && wanted(e->d_name)) {
            parse(dirfd(d), e->d_name);
        }
    }
    closedir(d);
}

int main(int argc, char **argv) {
    threaded = argc > 1 && strcmp(argv[1], "2") == 0;
    strcpy(prefix, ".");
    buf = malloc(cap);
    git_libgit2_init();
    git_repository *repo;
    git_index *index;
    if (git_repository_open_ext(&repo, ".", 0, NULL) != 0 || git_repository_index(&index, repo) != 0) return 2;
    size_t tracked = git_index_entrycount(index);
    walk(open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (threaded) {
        struct worker w[2] = {{0, 0, 0}, {1, 0, 0}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, &w[i]);
        for (int i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
            events += w[i].events;
            errors += w[i].errors;
        }
    }
    printf("%zu tracked, %ld files, %ld events, %ld errors\n", tracked, files, events, errors);
    return 0;
}
