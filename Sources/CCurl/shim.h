#include <curl/curl.h>

/* Swift cannot call variadic C functions: curl_easy_setopt and curl_easy_getinfo, typed. */
static inline CURLcode tw_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_setopt_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*tw_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode tw_curl_setopt_callback(CURL *curl, CURLoption option, tw_curl_data_callback value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode tw_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}
