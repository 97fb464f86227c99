// The ceiling: the least a libuv HTTP server can do. Every request (each "\r\n\r\n" seen) gets
// the same 100-byte JSON response over keep-alive. No parsing, no limits, no timeouts, so its
// throughput bounds what any libuv server can reach on this machine.
//
// With BODY-BYTES it answers with a JSON body of that size instead (`{"padding":"xx…"}`): the
// same work for the kernel as a server whose responses are that large, which is what a POST of
// lifecycled costs below user space (Benchmarks/httpbench).
//
// Build: cc -O2 -o ceiling ceiling.c -luv     Run: ceiling PORT [BODY-BYTES]

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define BODY "{\"status\":\"ok\",\"version\":\"0.1.0\",\"uptimeSeconds\":1.0,\"requests\":1,\"padding\":\"xxxxxxxxxxxxxxxxxxxxx\"}"
#define HEAD "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"

static const char *response =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" BODY;
static size_t response_length;

// The response with a body of `size` bytes (at least 16): `{"padding":"…"}`.
static char *padded_response(int size) {
  static const char open[] = "{\"padding\":\"", close[] = "\"}";
  int head = snprintf(NULL, 0, HEAD, size);
  char *text = malloc(head + size + 1);
  sprintf(text, HEAD, size);
  memcpy(text + head, open, sizeof open - 1);
  memset(text + head + sizeof open - 1, 'x', size - (sizeof open - 1) - (sizeof close - 1));
  memcpy(text + head + size - (sizeof close - 1), close, sizeof close);
  return text;
}

typedef struct {
  uv_tcp_t handle;
  int matched;  // how much of "\r\n\r\n" the last bytes matched
} client_t;

typedef struct {
  uv_write_t request;
  char *bytes;
} write_t;

static void allocate(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer) {
  static char storage[65536];
  (void)handle;
  (void)suggested;
  *buffer = uv_buf_init(storage, sizeof storage);
}

static void closed(uv_handle_t *handle) { free(handle); }

static void written(uv_write_t *request, int status) {
  write_t *write = (write_t *)request;
  (void)status;
  free(write->bytes);
  free(write);
}

static void respond(client_t *client, int count) {
  size_t length = response_length;
  write_t *write = malloc(sizeof *write);
  write->bytes = malloc(length * count);
  for (int i = 0; i < count; i++) memcpy(write->bytes + i * length, response, length);
  uv_buf_t buffer = uv_buf_init(write->bytes, length * count);
  uv_write(&write->request, (uv_stream_t *)&client->handle, &buffer, 1, written);
}

static void received(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer) {
  client_t *client = (client_t *)stream;
  if (count < 0) {
    uv_close((uv_handle_t *)stream, closed);
    return;
  }
  static const char end[] = "\r\n\r\n";
  int requests = 0;
  for (ssize_t i = 0; i < count; i++) {
    client->matched = buffer->base[i] == end[client->matched] ? client->matched + 1
                      : buffer->base[i] == '\r'              ? 1
                                                             : 0;
    if (client->matched == 4) {
      requests++;
      client->matched = 0;
    }
  }
  if (requests > 0) respond(client, requests);
}

static void connected(uv_stream_t *server, int status) {
  if (status < 0) return;
  client_t *client = calloc(1, sizeof *client);
  uv_tcp_init(server->loop, &client->handle);
  if (uv_accept(server, (uv_stream_t *)&client->handle) != 0) {
    uv_close((uv_handle_t *)&client->handle, closed);
    return;
  }
  uv_tcp_nodelay(&client->handle, 1);
  uv_read_start((uv_stream_t *)&client->handle, allocate, received);
}

int main(int argc, char **argv) {
  uv_loop_t *loop = uv_default_loop();
  uv_tcp_t server;
  struct sockaddr_in address;
  uv_tcp_init(loop, &server);
  uv_ip4_addr("127.0.0.1", argc > 1 ? atoi(argv[1]) : 8081, &address);
  if (argc > 2) {
    int size = atoi(argv[2]);
    if (size < 16) return 2;
    response = padded_response(size);
  }
  response_length = strlen(response);
  if (uv_tcp_bind(&server, (const struct sockaddr *)&address, 0) != 0) return 1;
  if (uv_listen((uv_stream_t *)&server, 511, connected) != 0) return 1;
  return uv_run(loop, UV_RUN_DEFAULT);
}
