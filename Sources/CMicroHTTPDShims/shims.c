#define _GNU_SOURCE  // dup3
#include "CMicroHTTPDShims.h"
#include "tls_daemon.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct MHD_Daemon *gqlgate_mhd_start(const struct gqlgate_mhd_start_options *o, char *error, size_t error_size) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char port[8];
    snprintf(port, sizeof(port), "%u", (unsigned)o->port);
    struct addrinfo *found = NULL;
    int rc = getaddrinfo(o->host, port, &hints, &found);
    if (rc != 0 || found == NULL) {
        snprintf(error, error_size, "cannot resolve listen address '%s': %s", o->host, gai_strerror(rc));
        return NULL;
    }
    unsigned int flags = o->flags;
    if (found->ai_family == AF_INET6) {
        flags |= MHD_USE_IPv6;
    }
    struct MHD_OptionItem options[16];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, found->ai_addr };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)o->completed_handler, o->completed_handler_cls };
    if (o->thread_pool_size > 1) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size, NULL };
    }
    if (o->connection_limit > 0) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, o->connection_limit, NULL };
    }
    if (o->connection_timeout_seconds > 0) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds, NULL };
    }
    if (o->listen_backlog > 0) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, o->listen_backlog, NULL };
    }
    if (o->connection_memory_limit > 0) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)o->connection_memory_limit, NULL };
    }
    if (o->tls_store != NULL) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            freeaddrinfo(found);
            snprintf(error, error_size, "this libmicrohttpd was built without TLS");
            return NULL;
        }
        flags |= MHD_USE_TLS;
        // The TLS store tells the connection handler itself, after its own bookkeeping.
        n += gqlgate_tls_daemon_options(o->tls_store, options + n, o->connection_handler, o->connection_handler_cls);
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)o->tls_priorities };
    } else if (o->connection_handler != NULL) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)o->connection_handler, o->connection_handler_cls };
    }
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, 0, o->accept_policy, o->accept_policy_cls, o->access_handler, o->access_handler_cls,
                                                 MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    freeaddrinfo(found);
    if (daemon == NULL) {
        snprintf(error, error_size, "cannot listen on %s:%u (address in use, or not an address of this host%s)", o->host, (unsigned)o->port,
                 o->tls_store != NULL ? ", or TLS that does not start" : "");
    }
    return daemon;
}

uint16_t gqlgate_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int gqlgate_mhd_close_listen_socket(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    if (info == NULL || info->listen_fd < 0) { errno = EBADF; return -1; }
    int placeholder = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (placeholder < 0) return -1;
    /* Stop listening first: a server thread inside accept() holds the socket
       open past dup3, and until it lets go the kernel would still take
       connections into its backlog. A shut-down listening socket refuses
       them at once, whoever holds it. */
    (void)shutdown(info->listen_fd, SHUT_RDWR);
    int rc = dup3(placeholder, info->listen_fd, O_CLOEXEC);
    close(placeholder);
    return rc < 0 ? -1 : 0;
}

enum MHD_Result gqlgate_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh) {
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

enum MHD_Result gqlgate_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

int gqlgate_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

size_t gqlgate_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

int gqlgate_socket_receipt(int fd, unsigned int *last_receive_ms, int *peer_closed) {
    struct tcp_info info;
    socklen_t size = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) {
        return -1;
    }
    *last_receive_ms = info.tcpi_last_data_recv;
    *peer_closed = info.tcpi_state == TCP_CLOSE_WAIT || info.tcpi_state == TCP_CLOSE;
    return 0;
}

/// Writes `value` (0-255) in decimal at `out`; returns the end.
static char *put_octet(char *out, unsigned value) {
    if (value >= 100) {
        *out++ = (char)('0' + value / 100);
        value %= 100;
        *out++ = (char)('0' + value / 10);
    } else if (value >= 10) {
        *out++ = (char)('0' + value / 10);
    }
    *out++ = (char)('0' + value % 10);
    return out;
}

/// An IPv4 address's dotted text (what inet_ntop writes, without its sprintf).
static size_t put_ipv4(const unsigned char *bytes, char *buffer) {
    char *out = buffer;
    for (int i = 0; i < 4; i++) {
        if (i > 0) {
            *out++ = '.';
        }
        out = put_octet(out, bytes[i]);
    }
    *out = '\0';
    return (size_t)(out - buffer);
}

size_t gqlgate_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size < INET6_ADDRSTRLEN) {
        return 0;
    }
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        return put_ipv4((const unsigned char *)&((const struct sockaddr_in *)address)->sin_addr, buffer);
    }
    if (address->sa_family != AF_INET6) {
        return 0;
    }
    const struct in6_addr *ipv6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(ipv6)) {
        return put_ipv4(ipv6->s6_addr + 12, buffer);
    }
    return inet_ntop(AF_INET6, ipv6, buffer, (socklen_t)size) == NULL ? 0 : strlen(buffer);
}
