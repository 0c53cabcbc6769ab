#include <curl/curl.h>
#include <dlfcn.h>

/* libcurl is loaded when Tagwarden first talks to a registry, not when it starts: linked, it and the twenty libraries
 * it needs (TLS, HTTP/2, LDAP, Kerberos, IDN) were loaded and relocated by every run, an audit or a pre-commit check
 * that never sends a request included (ten million instructions of the dynamic loader's). The functions Tagwarden
 * calls, found in the system's libcurl. */
struct tw_curl {
    void *library;
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *curl);
    void (*easy_reset)(CURL *curl);
    CURLcode (*easy_perform)(CURL *curl);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
};

/* Fills `api` from libcurl.so.4 (Debian's libcurl4, the ABI the headers describe): 0, or -1 with `dlerror()` saying why. */
static inline int tw_curl_load(struct tw_curl *api) {
    api->library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!api->library) return -1;
#define TW_CURL_SYMBOL(field, name) if (!(*(void **)&api->field = dlsym(api->library, name))) return -1;
    TW_CURL_SYMBOL(global_init, "curl_global_init")
    TW_CURL_SYMBOL(easy_init, "curl_easy_init")
    TW_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    TW_CURL_SYMBOL(easy_reset, "curl_easy_reset")
    TW_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    TW_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    TW_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    TW_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    TW_CURL_SYMBOL(slist_append, "curl_slist_append")
    TW_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef TW_CURL_SYMBOL
    return 0;
}

/* The calls, through `api` (Swift cannot call a variadic C function: curl_easy_setopt and curl_easy_getinfo, typed). */
static inline CURLcode tw_curl_global_init(struct tw_curl api, long flags) { return api.global_init(flags); }
static inline CURL *tw_curl_easy_init(struct tw_curl api) { return api.easy_init(); }
static inline void tw_curl_easy_cleanup(struct tw_curl api, CURL *curl) { api.easy_cleanup(curl); }
static inline void tw_curl_easy_reset(struct tw_curl api, CURL *curl) { api.easy_reset(curl); }
static inline CURLcode tw_curl_easy_perform(struct tw_curl api, CURL *curl) { return api.easy_perform(curl); }
static inline const char *tw_curl_easy_strerror(struct tw_curl api, CURLcode code) { return api.easy_strerror(code); }
static inline struct curl_slist *tw_curl_slist_append(struct tw_curl api, struct curl_slist *list, const char *text) {
    return api.slist_append(list, text);
}
static inline void tw_curl_slist_free_all(struct tw_curl api, struct curl_slist *list) { api.slist_free_all(list); }
static inline CURLcode tw_curl_setopt_long(struct tw_curl api, CURL *curl, CURLoption option, long value) {
    return api.easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_string(struct tw_curl api, CURL *curl, CURLoption option, const char *value) {
    return api.easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_pointer(struct tw_curl api, CURL *curl, CURLoption option, void *value) {
    return api.easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_list(struct tw_curl api, CURL *curl, CURLoption option, struct curl_slist *value) {
    return api.easy_setopt(curl, option, value);
}
typedef size_t (*tw_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode tw_curl_setopt_callback(struct tw_curl api, CURL *curl, CURLoption option, tw_curl_data_callback value) {
    return api.easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_getinfo_long(struct tw_curl api, CURL *curl, CURLINFO info, long *value) {
    return api.easy_getinfo(curl, info, value);
}
