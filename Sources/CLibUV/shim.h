// The libuv headers, the casts between its handle types that Swift cannot express, and what
// libuv 1.44 lacks for its worker threads.
#include <uv.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__APPLE__)
#include <pthread/qos.h>
#endif

/// Has the loop count the time it waits for I/O (`uv_metrics_idle_time`): a variadic call,
/// which Swift cannot make.
static inline int cuv_measure_idle_time(uv_loop_t *loop) {
  return uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
}

static inline uv_stream_t *cuv_stream(uv_tcp_t *tcp) { return (uv_stream_t *)tcp; }
static inline uv_handle_t *cuv_handle(void *handle) { return (uv_handle_t *)handle; }

/// Makes the calling thread yield to the loop's, once per thread: on Linux its nice value
/// becomes 10 (the loop's stays 0); on Apple platforms its quality of service becomes utility,
/// below the loop's. Elsewhere it does nothing.
static inline void cuv_yield_thread_to_loop(void) {
#if defined(__linux__) || defined(__APPLE__)
  static __thread int yielded = 0;
  if (!yielded) {
#if defined(__linux__)
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#else
    pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
#endif
    yielded = 1;
  }
#endif
}
