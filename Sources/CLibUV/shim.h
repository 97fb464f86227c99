// The libuv headers, and the casts between its handle types that Swift cannot express.
#include <uv.h>

static inline uv_stream_t *cuv_stream(uv_tcp_t *tcp) { return (uv_stream_t *)tcp; }
static inline uv_handle_t *cuv_handle(void *handle) { return (uv_handle_t *)handle; }
