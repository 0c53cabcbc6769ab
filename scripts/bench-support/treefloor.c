/* A second reference point for `scripts/bench`: what the mandated design costs before any Tagwarden logic.
 * libgit2 is initialised and the repository's index read (as `tagwarden audit` must, to tell tracked from
 * untracked files), the working tree is walked for *.yaml / *.yml with openat/readdir (no .git), and every
 * file found is read and run through libyaml's event parser, one thread. Run it in the repository root. */
#include <dirent.h>
#include <fcntl.h>
#include <git2.h>
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

static void parse(int dir, const char *name) {
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, buf + n, cap - n)) > 0) {
        n += (size_t)r;
        if (n == cap) { cap *= 2; buf = realloc(buf, cap); }
    }
    close(fd);
    parse_events(buf, n, &events, &errors);
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
            if (sub >= 0) walk(sub);
        } else if (e->d_type == DT_REG && wanted(e->d_name)) {
            parse(dirfd(d), e->d_name);
        }
    }
    closedir(d);
}

int main(void) {
    buf = malloc(cap);
    git_libgit2_init();
    git_repository *repo;
    git_index *index;
    if (git_repository_open_ext(&repo, ".", 0, NULL) != 0 || git_repository_index(&index, repo) != 0) return 2;
    size_t tracked = git_index_entrycount(index);
    walk(open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    printf("%zu tracked, %ld files, %ld events, %ld errors\n", tracked, files, events, errors);
    return 0;
}
