/// How `gqlgate_mhd_start` hands a TLS store to the daemon (not for Swift).
#ifndef GQLGATE_TLS_DAEMON_H
#define GQLGATE_TLS_DAEMON_H

#include "CMicroHTTPDTLS.h"

/// Writes the daemon options that make handshakes use `store` (the
/// certificate callback, the connection notification that keeps each
/// connection's certificate alive) at `options`; returns how many. The
/// notification is passed on to `next` (when not NULL) with `next_cls`.
int gqlgate_tls_daemon_options(struct gqlgate_tls_store *store, struct MHD_OptionItem *options,
                               MHD_NotifyConnectionCallback next, void *next_cls);

#endif
