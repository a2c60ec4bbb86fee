/// libmicrohttpd entry points Swift cannot call directly: the varargs
/// MHD_start_daemon (through MHD_OPTION_ARRAY), daemon and connection
/// information (unions), and varargs actions and options.
#ifndef CMICROHTTPD_SHIMS_H
#define CMICROHTTPD_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "CMicroHTTPDTLS.h"

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
    /// Told when each connection starts and closes (after the TLS store's own bookkeeping); NULL: not told.
    MHD_NotifyConnectionCallback connection_handler;
    void *connection_handler_cls;
    /// Asked for each accepted connection before anything is read from it; MHD_NO closes it at once. NULL: all are let in.
    MHD_AcceptPolicyCallback accept_policy;
    void *accept_policy_cls;
    /// HTTPS (and WSS) with the certificate and key this store holds at each handshake; NULL: plain HTTP.
    struct gqlgate_tls_store *tls_store;
    /// GnuTLS priority string for the TLS daemon.
    const char *tls_priorities;
};

/// Starts a daemon bound to exactly `options->host:port` (MHD binds 0.0.0.0
/// when given only a port). On failure returns NULL and writes a message.
struct MHD_Daemon *gqlgate_mhd_start(const struct gqlgate_mhd_start_options *options, char *error, size_t error_size);
/// The port the daemon listens on (useful after binding port 0).
uint16_t gqlgate_mhd_bound_port(struct MHD_Daemon *daemon);
/// Closes the daemon's listening socket while its descriptor stays valid:
/// a placeholder socket takes the descriptor (`dup3`), so new connections
/// are refused and the daemon's threads, which still hold the number, never
/// see it closed or reused before `MHD_stop_daemon` closes it. 0, or -1 with `errno`.
int gqlgate_mhd_close_listen_socket(struct MHD_Daemon *daemon);
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
/// From the kernel's `TCP_INFO` for the socket: how long ago, in milliseconds,
/// it last received data (`tcpi_last_data_recv`, counted in kernel ticks), and
/// whether the peer closed its side (the socket is in CLOSE_WAIT, or closed).
/// Returns 0, or -1 when the socket says nothing (not TCP, closed).
int gqlgate_socket_receipt(int fd, unsigned int *last_receive_ms, int *peer_closed);
/// The client's IP address as text in `buffer` (IPv4 dotted, an IPv4-mapped
/// IPv6 address as IPv4, other IPv6 as `inet_ntop` writes it); its length, or 0
/// when unknown (not IPv4 or IPv6, or `buffer` under INET6_ADDRSTRLEN bytes).
/// Call on the connection's server thread.
size_t gqlgate_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

#endif
