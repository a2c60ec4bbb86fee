#include "tls_daemon.h"
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The longest certificate chain accepted, from gqlgate's files or from a client.
#define LONGEST_CHAIN 16

/// A certificate chain and its key, shared by the store and by every
/// connection whose handshake picked them; freed with the last reference.
struct tls_keys {
    atomic_uint references;
    gnutls_pcert_st chain[LONGEST_CHAIN];
    unsigned int chain_length;
    gnutls_privkey_t key;
};

/// The CA certificates client certificates are checked against, shared like the keys.
struct tls_authority {
    atomic_uint references;
    gnutls_x509_trust_list_t list;
};

struct gqlgate_tls_store {
    pthread_mutex_t lock;
    struct tls_keys *keys;
    struct tls_authority *authority;
    int request_client_certificates;
    /// The daemon's own connection notification, called after the store's.
    MHD_NotifyConnectionCallback next_notify;
    void *next_notify_cls;
};

/// A TLS connection's own state (libmicrohttpd's socket context): the keys
/// its handshake got, and the verdict on its client certificate.
struct tls_connection {
    struct gqlgate_tls_store *store;
    struct tls_keys *keys;
    /// The keys of the selection before `keys` (a handshake that selected
    /// twice, after a HelloRetryRequest say): GnuTLS drops its pointers to
    /// them only after the callback returns, so they are released one selection later.
    struct tls_keys *replaced_keys;
    /// 0: not checked yet, 1: verified, -1: refused.
    int verdict;
    char *subject;
    size_t subject_length;
};

static void keys_release(struct tls_keys *keys) {
    if (atomic_fetch_sub(&keys->references, 1) != 1) {
        return;
    }
    for (unsigned int i = 0; i < keys->chain_length; i++) {
        gnutls_pcert_deinit(&keys->chain[i]);
    }
    if (keys->key != NULL) {
        gnutls_privkey_deinit(keys->key);
    }
    free(keys);
}

static void authority_release(struct tls_authority *authority) {
    if (atomic_fetch_sub(&authority->references, 1) != 1) {
        return;
    }
    gnutls_x509_trust_list_deinit(authority->list, 1);
    free(authority);
}

/// The store's keys, with a reference for the caller; NULL when none.
static struct tls_keys *keys_current(struct gqlgate_tls_store *store) {
    pthread_mutex_lock(&store->lock);
    struct tls_keys *keys = store->keys;
    if (keys != NULL) {
        atomic_fetch_add(&keys->references, 1);
    }
    pthread_mutex_unlock(&store->lock);
    return keys;
}

static struct tls_authority *authority_current(struct gqlgate_tls_store *store) {
    pthread_mutex_lock(&store->lock);
    struct tls_authority *authority = store->authority;
    if (authority != NULL) {
        atomic_fetch_add(&authority->references, 1);
    }
    pthread_mutex_unlock(&store->lock);
    return authority;
}

struct gqlgate_tls_store *gqlgate_tls_store_create(int request_client_certificates) {
    struct gqlgate_tls_store *store = calloc(1, sizeof(*store));
    if (store == NULL) {
        return NULL;
    }
    pthread_mutex_init(&store->lock, NULL);
    store->request_client_certificates = request_client_certificates;
    return store;
}

void gqlgate_tls_store_destroy(struct gqlgate_tls_store *store) {
    if (store->keys != NULL) {
        keys_release(store->keys);
    }
    if (store->authority != NULL) {
        authority_release(store->authority);
    }
    pthread_mutex_destroy(&store->lock);
    free(store);
}

/// Whether the certificate's public key is the private key's.
static int key_matches(gnutls_pubkey_t certified, gnutls_privkey_t key) {
    gnutls_pubkey_t derived;
    if (gnutls_pubkey_init(&derived) < 0) {
        return 0;
    }
    unsigned char a[64], b[64];
    size_t a_size = sizeof(a), b_size = sizeof(b);
    int matches = gnutls_pubkey_import_privkey(derived, key, 0, 0) >= 0 &&
                  gnutls_pubkey_get_key_id(derived, GNUTLS_KEYID_USE_SHA256, a, &a_size) >= 0 &&
                  gnutls_pubkey_get_key_id(certified, GNUTLS_KEYID_USE_SHA256, b, &b_size) >= 0 && a_size == b_size &&
                  memcmp(a, b, a_size) == 0;
    gnutls_pubkey_deinit(derived);
    return matches;
}

int gqlgate_tls_store_set_keys(struct gqlgate_tls_store *store, const char *certificate_pem, size_t certificate_size,
                               const char *key_pem, size_t key_size, char *error, size_t error_size) {
    struct tls_keys *keys = calloc(1, sizeof(*keys));
    if (keys == NULL) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    atomic_init(&keys->references, 1);
    keys->chain_length = LONGEST_CHAIN;
    gnutls_datum_t certificate = {(unsigned char *)certificate_pem, (unsigned int)certificate_size};
    int rc = gnutls_pcert_list_import_x509_raw(keys->chain, &keys->chain_length, &certificate, GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0 || keys->chain_length == 0) {
        keys->chain_length = 0;
        keys_release(keys);
        snprintf(error, error_size, "the certificate file holds no usable PEM certificate chain (%s)", gnutls_strerror(rc));
        return -1;
    }
    gnutls_datum_t key = {(unsigned char *)key_pem, (unsigned int)key_size};
    if ((rc = gnutls_privkey_init(&keys->key)) < 0 || (rc = gnutls_privkey_import_x509_raw(keys->key, &key, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
        keys_release(keys);
        snprintf(error, error_size, "the key file holds no usable unencrypted PEM private key (%s)", gnutls_strerror(rc));
        return -2;
    }
    if (!key_matches(keys->chain[0].pubkey, keys->key)) {
        keys_release(keys);
        snprintf(error, error_size, "the private key does not match the certificate");
        return -2;
    }
    pthread_mutex_lock(&store->lock);
    struct tls_keys *previous = store->keys;
    store->keys = keys;
    pthread_mutex_unlock(&store->lock);
    if (previous != NULL) {
        keys_release(previous);
    }
    return 0;
}

int gqlgate_tls_store_set_client_authority(struct gqlgate_tls_store *store, const char *pem, size_t size, char *error,
                                           size_t error_size) {
    struct tls_authority *authority = calloc(1, sizeof(*authority));
    if (authority == NULL || gnutls_x509_trust_list_init(&authority->list, 0) < 0) {
        free(authority);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    atomic_init(&authority->references, 1);
    gnutls_datum_t data = {(unsigned char *)pem, (unsigned int)size};
    int added = gnutls_x509_trust_list_add_trust_mem(authority->list, &data, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
    if (added <= 0) {
        authority_release(authority);
        snprintf(error, error_size, "the client CA file holds no PEM certificate (%s)", added < 0 ? gnutls_strerror(added) : "none found");
        return -1;
    }
    pthread_mutex_lock(&store->lock);
    struct tls_authority *previous = store->authority;
    store->authority = authority;
    pthread_mutex_unlock(&store->lock);
    if (previous != NULL) {
        authority_release(previous);
    }
    return 0;
}

int gqlgate_tls_store_describe(struct gqlgate_tls_store *store, char *subject, size_t subject_size, char *serial,
                               size_t serial_size, long long *not_after) {
    struct tls_keys *keys = keys_current(store);
    if (keys == NULL) {
        return -1;
    }
    gnutls_x509_crt_t certificate;
    int rc = gnutls_x509_crt_init(&certificate);
    if (rc >= 0 && (rc = gnutls_x509_crt_import(certificate, &keys->chain[0].cert, GNUTLS_X509_FMT_DER)) >= 0) {
        gnutls_datum_t dn = {NULL, 0};
        unsigned char number[64];
        size_t number_size = sizeof(number);
        if ((rc = gnutls_x509_crt_get_dn3(certificate, &dn, 0)) >= 0 &&
            (rc = gnutls_x509_crt_get_serial(certificate, number, &number_size)) >= 0 && serial_size > number_size * 2) {
            snprintf(subject, subject_size, "%.*s", (int)dn.size, (const char *)dn.data);
            for (size_t i = 0; i < number_size; i++) {
                snprintf(serial + 2 * i, 3, "%02x", number[i]);
            }
            serial[2 * number_size] = '\0';
            *not_after = (long long)gnutls_x509_crt_get_expiration_time(certificate);
        } else {
            rc = -1;
        }
        gnutls_free(dn.data);
        gnutls_x509_crt_deinit(certificate);
    }
    keys_release(keys);
    return rc < 0 ? -1 : 0;
}

/// The connection's own state, or NULL.
static struct tls_connection *connection_state(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// GnuTLS asks, during a handshake, which certificate and key to answer
/// with: the store's current ones, which the connection keeps until it closes.
static int select_certificate(gnutls_session_t session, const gnutls_datum_t *requested_authorities, int authority_count,
                              const gnutls_pk_algorithm_t *algorithms, int algorithm_count, gnutls_pcert_st **chain,
                              unsigned int *chain_length, gnutls_privkey_t *key) {
    (void)requested_authorities, (void)authority_count, (void)algorithms, (void)algorithm_count;
    struct MHD_Connection *connection = gnutls_session_get_ptr(session);  // set by libmicrohttpd
    struct tls_connection *state = connection == NULL ? NULL : connection_state(connection);
    struct tls_keys *keys = state == NULL ? NULL : keys_current(state->store);
    if (keys == NULL) {
        return -1;
    }
    if (state->replaced_keys != NULL) {
        keys_release(state->replaced_keys);
    }
    state->replaced_keys = state->keys;
    state->keys = keys;
    *chain = keys->chain;
    *chain_length = keys->chain_length;
    *key = keys->key;
    return 0;
}

/// A new connection's state, and the request for a client certificate.
static void start_connection(struct gqlgate_tls_store *store, struct MHD_Connection *connection, void **socket_context) {
    struct tls_connection *state = calloc(1, sizeof(*state));
    if (state == NULL) {
        return;  // its handshake finds no certificate and fails
    }
    state->store = store;
    *socket_context = state;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (store->request_client_certificates && info != NULL) {
        gnutls_certificate_server_set_request(info->tls_session, GNUTLS_CERT_REQUEST);
    }
}

/// A closed connection's keys released, its state freed.
static void end_connection(void **socket_context) {
    struct tls_connection *state = *socket_context;
    if (state == NULL) {
        return;
    }
    *socket_context = NULL;
    if (state->keys != NULL) {
        keys_release(state->keys);
    }
    if (state->replaced_keys != NULL) {
        keys_release(state->replaced_keys);
    }
    free(state->subject);
    free(state);
}

/// Connection start: its state, and the request for a client certificate;
/// connection end (after libmicrohttpd freed its TLS session): its keys released.
/// Either way the store's next notification is told afterwards.
static void connection_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    struct gqlgate_tls_store *store = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        start_connection(store, connection, socket_context);
    } else {
        end_connection(socket_context);
    }
    if (store->next_notify != NULL) {
        store->next_notify(store->next_notify_cls, connection, socket_context, code);
    }
}

int gqlgate_tls_daemon_options(struct gqlgate_tls_store *store, struct MHD_OptionItem *options,
                               MHD_NotifyConnectionCallback next, void *next_cls) {
    store->next_notify = next;
    store->next_notify_cls = next_cls;
    options[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)select_certificate};
    options[1] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_notify, store};
    return 2;
}

/// Whether the connection's client certificate chain is signed by the store's
/// client CAs, valid now, and usable for TLS clients; its subject kept when it is.
static int check_client(struct MHD_Connection *connection, struct tls_connection *state) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    unsigned int count = 0;
    const gnutls_datum_t *presented = info == NULL ? NULL : gnutls_certificate_get_peers(info->tls_session, &count);
    if (presented == NULL || count == 0 || count > LONGEST_CHAIN) {
        return 0;
    }
    gnutls_x509_crt_t chain[LONGEST_CHAIN];
    unsigned int imported = 0;
    int verified = 0;
    for (; imported < count; imported++) {
        if (gnutls_x509_crt_init(&chain[imported]) < 0) {
            break;
        }
        if (gnutls_x509_crt_import(chain[imported], &presented[imported], GNUTLS_X509_FMT_DER) < 0) {
            gnutls_x509_crt_deinit(chain[imported]);
            break;
        }
    }
    struct tls_authority *authority = imported == count ? authority_current(state->store) : NULL;
    if (authority != NULL) {
        gnutls_typed_vdata_st purpose = {GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0};
        unsigned int status = 0;
        int rc = gnutls_x509_trust_list_verify_crt2(authority->list, chain, count, &purpose, 1, 0, &status, NULL);
        authority_release(authority);
        gnutls_datum_t dn = {NULL, 0};
        if (rc >= 0 && status == 0 && gnutls_x509_crt_get_dn3(chain[0], &dn, 0) >= 0 && (state->subject = malloc(dn.size + 1)) != NULL) {
            memcpy(state->subject, dn.data, dn.size);
            state->subject[dn.size] = '\0';
            state->subject_length = dn.size;
            verified = 1;
        }
        gnutls_free(dn.data);
    }
    for (unsigned int i = 0; i < imported; i++) {
        gnutls_x509_crt_deinit(chain[i]);
    }
    return verified;
}

int gqlgate_tls_client_subject(struct MHD_Connection *connection, const char **subject, size_t *length) {
    struct tls_connection *state = connection_state(connection);
    if (state == NULL) {
        return 0;
    }
    if (state->verdict == 0) {
        state->verdict = check_client(connection, state) ? 1 : -1;
    }
    if (state->verdict < 0) {
        return 0;
    }
    *subject = state->subject;
    *length = state->subject_length;
    return 1;
}
