#include "CGnuTLSShims.h"
#include <string.h>

int gqlgate_gnutls_client_session(gnutls_session_t *session, gnutls_certificate_credentials_t credentials, int fd,
                                  const char *verify_name, const char *sni_name) {
    int rc = gnutls_init(session, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL);
    if (rc < 0) {
        return rc;
    }
    if ((rc = gnutls_set_default_priority(*session)) < 0 ||
        (rc = gnutls_credentials_set(*session, GNUTLS_CRD_CERTIFICATE, credentials)) < 0 ||
        (sni_name != NULL && (rc = gnutls_server_name_set(*session, GNUTLS_NAME_DNS, sni_name, strlen(sni_name))) < 0)) {
        gnutls_deinit(*session);
        *session = NULL;
        return rc;
    }
    gnutls_session_set_verify_cert(*session, verify_name, 0);
    gnutls_transport_set_int(*session, fd);
    return 0;
}

size_t gqlgate_gnutls_verification_failure(gnutls_session_t session, char *buffer, size_t size) {
    unsigned int status = gnutls_session_get_verify_cert_status(session);
    gnutls_datum_t text = {NULL, 0};
    if (status == 0 || size == 0 || gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) < 0) {
        return 0;
    }
    size_t length = text.size < size - 1 ? text.size : size - 1;
    memcpy(buffer, text.data, length);
    buffer[length] = '\0';
    gnutls_free(text.data);
    return length;
}
