#include <git2.h>

/* Swift cannot call variadic C functions: wrap the options we use. */
static inline int tw_git_disable_strict_hash_verification(void) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}
static inline int tw_git_enable_caching(int on) {
    return git_libgit2_opts(GIT_OPT_ENABLE_CACHING, on);
}
static inline int tw_git_set_search_path_none(int level) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, "");
}
static inline int tw_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

/* zlib, for the loose objects Tagwarden checks before libgit2 reads them (libgit2 1.5 loops forever on a
   truncated one): inflateInit is a macro. libgit2-dev depends on zlib1g-dev. */
#include <zlib.h>
static inline int tw_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}
