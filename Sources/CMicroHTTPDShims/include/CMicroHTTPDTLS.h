/// The TLS side of the HTTPS daemon, through GnuTLS: the certificate and key
/// each new handshake gets (swapped whole while the daemon runs), and the
/// check of client certificates against a CA list of gqlgate's own.
#ifndef CMICROHTTPD_TLS_H
#define CMICROHTTPD_TLS_H

#include <stddef.h>
#include <microhttpd.h>

/// The certificate chain, key and client CA list new handshakes use now.
/// Thread-safe: handshakes read it on the server threads while a reload
/// swaps its contents on another thread. A certificate and key replaced
/// stay alive until the last connection that got them in its handshake closes.
struct gqlgate_tls_store;

/// A new store; `request_client_certificates`: every handshake asks the
/// client for a certificate (checked by `gqlgate_tls_client_subject`).
struct gqlgate_tls_store *gqlgate_tls_store_create(int request_client_certificates);
/// Frees the store. Only once no daemon uses it any more (after `MHD_stop_daemon`).
void gqlgate_tls_store_destroy(struct gqlgate_tls_store *store);

/// Loads a PEM certificate chain and its PEM private key and makes them the
/// ones new handshakes get. Returns 0, or with a message in `error` -1 (no
/// certificate chain read) or -2 (no key read, or one that does not match the
/// certificate): the previous pair stays.
int gqlgate_tls_store_set_keys(struct gqlgate_tls_store *store, const char *certificate_pem, size_t certificate_size,
                               const char *key_pem, size_t key_size, char *error, size_t error_size);
/// Loads the PEM CA certificates client certificates are checked against
/// from now on. Returns 0, or -1 with a message in `error` (the previous list stays).
int gqlgate_tls_store_set_client_authority(struct gqlgate_tls_store *store, const char *pem, size_t size, char *error,
                                           size_t error_size);
/// The current certificate's subject (RFC 4514), serial number (hex) and
/// end of validity (seconds since 1970), written into the buffers. Returns 0, or -1.
int gqlgate_tls_store_describe(struct gqlgate_tls_store *store, char *subject, size_t subject_size, char *serial,
                               size_t serial_size, long long *not_after);

/// The subject (RFC 4514, e.g. `CN=client,O=Example`) of the client
/// certificate the connection presented, once it was checked against the
/// store's client CA list: its signature chain, its validity period, and a
/// key purpose that allows TLS clients when it lists any. Sets `subject`
/// (valid while the connection is open) and returns 1; returns 0 when the
/// client presented none or one that fails the check. Checked once per
/// connection: later requests get the same verdict. Call on the server thread.
int gqlgate_tls_client_subject(struct MHD_Connection *connection, const char **subject, size_t *length);

#endif
