/// C entry points Swift cannot call directly: typed wrappers around C varargs
/// functions (curl_easy_setopt, MHD_start_daemon, ...), accessors for unions,
/// and re-exports of Linux headers Glibc's Swift module lacks.
#ifndef CGQLGATE_SHIMS_H
#define CGQLGATE_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <curl/curl.h>
#include <microhttpd.h>

// MARK: - libcurl

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
CURLcode gqlgate_curl_easy_getinfo_socket(CURL *handle, curl_socket_t *value);

CURLMcode gqlgate_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode gqlgate_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value);
CURLMcode gqlgate_curl_multi_setopt_socket_function(CURLM *multi, gqlgate_curl_socket_cb callback);
CURLMcode gqlgate_curl_multi_setopt_timer_function(CURLM *multi, gqlgate_curl_timer_cb callback);

/// `CURLMsg.data.result` (a union member).
CURLcode gqlgate_curl_msg_result(const CURLMsg *message);

extern const long gqlgate_curl_http_version_2tls;
extern const long gqlgate_curl_pipe_multiplex;
extern const int gqlgate_curl_socket_timeout;
extern const int gqlgate_curl_poll_in;
extern const int gqlgate_curl_poll_out;
extern const int gqlgate_curl_poll_remove;
extern const int gqlgate_curl_csel_in;
extern const int gqlgate_curl_csel_out;
extern const int gqlgate_curl_csel_err;

// MARK: - libmicrohttpd

/// Options for `gqlgate_mhd_start`; `host` must be a numeric address or a name.
struct gqlgate_mhd_start_options {
    unsigned int flags;
    const char *host;
    uint16_t port;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    unsigned int listen_backlog;
    size_t connection_memory_limit;
    MHD_AccessHandlerCallback access_handler;
    void *access_handler_cls;
    MHD_RequestCompletedCallback completed_handler;
    void *completed_handler_cls;
};

/// Starts a daemon bound to exactly `options->host:port` (MHD binds 0.0.0.0
/// when given only a port). On failure returns NULL and writes a message.
struct MHD_Daemon *gqlgate_mhd_start(const struct gqlgate_mhd_start_options *options, char *error, size_t error_size);
/// The port the daemon listens on (useful after binding port 0).
uint16_t gqlgate_mhd_bound_port(struct MHD_Daemon *daemon);
/// The number of open connections.
unsigned int gqlgate_mhd_current_connections(struct MHD_Daemon *daemon);
/// `MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)`.
enum MHD_Result gqlgate_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh);
/// `MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds)`:
/// the connection closes after `seconds` without reading or writing (0: never).
/// Call on the connection's server thread, never while libmicrohttpd cleans it up.
enum MHD_Result gqlgate_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds);
/// The connection's socket (`MHD_CONNECTION_INFO_CONNECTION_FD`), or -1.
int gqlgate_mhd_connection_fd(struct MHD_Connection *connection);
/// The request's header block as received: request line, header lines and the
/// empty line (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`), or 0.
size_t gqlgate_mhd_request_header_size(struct MHD_Connection *connection);

// MARK: - Linux

/// Names the calling thread (at most 15 bytes are kept), for `top -H` and `perf`.
void gqlgate_set_thread_name(const char *name);
/// Sets TCP_NODELAY on a socket; returns 0 or -1 (errno set).
int gqlgate_set_tcp_nodelay(int fd);
extern const uint32_t gqlgate_epollin;
extern const uint32_t gqlgate_epollout;
extern const uint32_t gqlgate_epollerr;
extern const uint32_t gqlgate_epollhup;
extern const uint32_t gqlgate_epollrdhup;

#endif
