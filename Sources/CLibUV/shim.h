// The libuv headers, and the casts between its handle types that Swift cannot express.
#include <uv.h>

/// Has the loop count the time it waits for I/O (`uv_metrics_idle_time`): a variadic call,
/// which Swift cannot make.
static inline int cuv_measure_idle_time(uv_loop_t *loop) {
  return uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
}

static inline uv_stream_t *cuv_stream(uv_tcp_t *tcp) { return (uv_stream_t *)tcp; }
static inline uv_handle_t *cuv_handle(void *handle) { return (uv_handle_t *)handle; }
