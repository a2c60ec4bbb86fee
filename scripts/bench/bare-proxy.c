/*
 * bare-proxy: the cheapest proxy the gqlgate stack can make, for the benchmark (B).
 *
 * One libmicrohttpd epoll thread and one libcurl multi thread, exactly gqlgate's
 * thread shape, with none of gqlgate's work: no GraphQL decoding or analysis, no
 * pipeline, no Swift. Requests are suspended, handed to the curl thread through a
 * mutex-guarded queue and curl_multi_wakeup, sent upstream with kept-alive
 * connections, and resumed with the answer, handed to libmicrohttpd without a copy.
 * gqlgate / B is then the cost of everything gqlgate adds, on this machine.
 *
 * usage: bare-proxy LISTEN_PORT UPSTREAM_URL   (listens on 127.0.0.1)
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct request {
    struct MHD_Connection *connection;
    struct request *next;
    char *body;
    size_t body_len, body_cap;
    char *answer;
    size_t answer_len, answer_cap;
    long status;
    int dispatched;
};

static const char *upstream_url;
static CURLM *multi;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct request *queue_head;
static CURL *idle_handles[1024];
static int idle_count;
static struct curl_slist *upstream_headers;

static int append(char **buffer, size_t *len, size_t *cap, const char *data, size_t size) {
    if (*len + size > *cap) {
        size_t wanted = (*len + size) * 2 < 512 ? 512 : (*len + size) * 2;
        char *grown = realloc(*buffer, wanted);
        if (grown == NULL) return 0;
        *buffer = grown;
        *cap = wanted;
    }
    memcpy(*buffer + *len, data, size);
    *len += size;
    return 1;
}

static size_t on_upstream_data(char *data, size_t size, size_t count, void *userdata) {
    struct request *r = userdata;
    return append(&r->answer, &r->answer_len, &r->answer_cap, data, size * count) ? size * count : 0;
}

static void start_transfer(struct request *r) {
    CURL *easy = idle_count > 0 ? idle_handles[--idle_count] : curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_URL, upstream_url);
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r->body ? r->body : "");
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, upstream_headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_upstream_data);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, r);
    curl_multi_add_handle(multi, easy);
}

static void *curl_thread(void *unused) {
    (void)unused;
    for (;;) {
        int running = 0, pending = 0;
        curl_multi_poll(multi, NULL, 0, 1000, NULL);
        pthread_mutex_lock(&queue_lock);
        struct request *taken = queue_head;
        queue_head = NULL;
        pthread_mutex_unlock(&queue_lock);
        for (struct request *r = taken, *next; r != NULL; r = next) {
            next = r->next;
            start_transfer(r);
        }
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &pending)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            struct request *r;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&r);
            r->status = 502;
            if (message->data.result == CURLE_OK) curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
            curl_multi_remove_handle(multi, easy);
            if (idle_count < 1024) idle_handles[idle_count++] = easy; else curl_easy_cleanup(easy);
            MHD_resume_connection(r->connection);
        }
    }
    return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **slot) {
    (void)cls; (void)url; (void)method; (void)version;
    struct request *r = *slot;
    if (r == NULL) {
        r = calloc(1, sizeof(*r));
        r->connection = connection;
        *slot = r;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        append(&r->body, &r->body_len, &r->body_cap, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (!r->dispatched) {
        r->dispatched = 1;
        MHD_suspend_connection(connection);
        pthread_mutex_lock(&queue_lock);
        r->next = queue_head;
        queue_head = r;
        pthread_mutex_unlock(&queue_lock);
        curl_multi_wakeup(multi);
        return MHD_YES;
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer_with_free_callback(r->answer_len, r->answer, free);
    r->answer = NULL;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, (unsigned)r->status, response);
    MHD_destroy_response(response);
    return queued;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **slot, enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    struct request *r = *slot;
    if (r == NULL) return;
    free(r->body);
    free(r->answer);
    free(r);
    *slot = NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s LISTEN_PORT UPSTREAM_URL\n", argv[0]);
        return 2;
    }
    upstream_url = argv[2];
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 256L);
    upstream_headers = curl_slist_append(NULL, "Content-Type: application/json");
    upstream_headers = curl_slist_append(upstream_headers, "Expect:");

    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "bare-proxy: cannot listen on 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, curl_thread, NULL);
    int received;
    sigwait(&signals, &received);
    _exit(0);
}
