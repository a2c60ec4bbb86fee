/// libcurl entry points Swift cannot call directly: typed wrappers around the
/// varargs curl_easy_setopt/getinfo and curl_multi_setopt, the CURLMsg union,
/// and macros as constants.
#ifndef CCURL_SHIMS_H
#define CCURL_SHIMS_H

#include <stddef.h>
#include <curl/curl.h>

typedef size_t (*gqlgate_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*gqlgate_curl_socket_cb)(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp);
typedef int (*gqlgate_curl_timer_cb)(CURLM *multi, long timeout_ms, void *userp);

CURLcode gqlgate_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode gqlgate_curl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value);
CURLcode gqlgate_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode gqlgate_curl_easy_setopt_write_function(CURL *handle, gqlgate_curl_data_cb callback);
CURLcode gqlgate_curl_easy_setopt_header_function(CURL *handle, gqlgate_curl_data_cb callback);
CURLcode gqlgate_curl_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback callback);
CURLcode gqlgate_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode gqlgate_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value);
CURLcode gqlgate_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode gqlgate_curl_easy_getinfo_socket(CURL *handle, curl_socket_t *value);

CURLMcode gqlgate_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode gqlgate_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value);
CURLMcode gqlgate_curl_multi_setopt_socket_function(CURLM *multi, gqlgate_curl_socket_cb callback);
CURLMcode gqlgate_curl_multi_setopt_timer_function(CURLM *multi, gqlgate_curl_timer_cb callback);

/// `CURLMsg.data.result` (a union member).
CURLcode gqlgate_curl_msg_result(const CURLMsg *message);

extern const long gqlgate_curl_http_version_2tls;
extern const CURLversion gqlgate_curl_version_now;
extern const long gqlgate_curl_pipe_multiplex;
extern const int gqlgate_curl_socket_timeout;
extern const int gqlgate_curl_poll_in;
extern const int gqlgate_curl_poll_out;
extern const int gqlgate_curl_poll_remove;
extern const int gqlgate_curl_csel_in;
extern const int gqlgate_curl_csel_out;
extern const int gqlgate_curl_csel_err;
/// What a write callback returns to pause the transfer (it gets the same bytes again once resumed).
extern const size_t gqlgate_curl_writefunc_pause;
/// `curl_easy_pause`'s bitmask that resumes a paused transfer.
extern const int gqlgate_curl_pause_cont;

#endif
