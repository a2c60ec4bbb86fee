/// GnuTLS calls the Redis client's TLS streams make that Swift cannot make
/// directly: `gnutls_init` flags and `gnutls_transport_set_int` are macros,
/// and the verification status text is memory GnuTLS allocates and
/// `gnutls_free` (a macro too) releases.
#ifndef CGNUTLS_SHIMS_H
#define CGNUTLS_SHIMS_H

#include <stddef.h>
#include <gnutls/gnutls.h>

/// A non-blocking client session on the connected socket `fd` with the
/// system's default priorities and `credentials`, whose handshake verifies
/// the server's certificate chain and that it is for `verify_name` (a DNS
/// name or an IP address), which must stay valid as long as the session:
/// GnuTLS keeps the pointer. `sni_name` (a DNS name, copied) is sent as the
/// server name, NULL: none. Never raises SIGPIPE. Returns 0 and sets
/// `*session`, or a negative GnuTLS error (nothing to free).
int gqlgate_gnutls_client_session(gnutls_session_t *session, gnutls_certificate_credentials_t credentials, int fd,
                                  const char *verify_name, const char *sni_name);

/// Why the server's certificate failed the verification of the handshake
/// (e.g. "The certificate is NOT trusted. The certificate issuer is
/// unknown."), written NUL-terminated into `buffer`. Returns its length, 0
/// when the session has no verification failure to tell.
size_t gqlgate_gnutls_verification_failure(gnutls_session_t session, char *buffer, size_t size);

#endif
