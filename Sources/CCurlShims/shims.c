#include "CCurlShims.h"

CURLcode gqlgate_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode gqlgate_curl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode gqlgate_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode gqlgate_curl_easy_setopt_write_function(CURL *handle, gqlgate_curl_data_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
CURLcode gqlgate_curl_easy_setopt_header_function(CURL *handle, gqlgate_curl_data_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
CURLcode gqlgate_curl_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
}
CURLcode gqlgate_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode gqlgate_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode gqlgate_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode gqlgate_curl_easy_getinfo_socket(CURL *handle, curl_socket_t *value) {
    return curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, value);
}
CURLMcode gqlgate_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
CURLMcode gqlgate_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}
CURLMcode gqlgate_curl_multi_setopt_socket_function(CURLM *multi, gqlgate_curl_socket_cb callback) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
}
CURLMcode gqlgate_curl_multi_setopt_timer_function(CURLM *multi, gqlgate_curl_timer_cb callback) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
}
CURLcode gqlgate_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

const long gqlgate_curl_http_version_2tls = CURL_HTTP_VERSION_2TLS;
const CURLversion gqlgate_curl_version_now = CURLVERSION_NOW;
const long gqlgate_curl_pipe_multiplex = CURLPIPE_MULTIPLEX;
const int gqlgate_curl_socket_timeout = CURL_SOCKET_TIMEOUT;
const int gqlgate_curl_poll_in = CURL_POLL_IN;
const int gqlgate_curl_poll_out = CURL_POLL_OUT;
const int gqlgate_curl_poll_remove = CURL_POLL_REMOVE;
const int gqlgate_curl_csel_in = CURL_CSELECT_IN;
const int gqlgate_curl_csel_out = CURL_CSELECT_OUT;
const int gqlgate_curl_csel_err = CURL_CSELECT_ERR;
const size_t gqlgate_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
const int gqlgate_curl_pause_cont = CURLPAUSE_CONT;
