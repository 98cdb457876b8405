# pool.sh (sourced): commands in the background, as many at a time as there
# are cores (WB_POOL_JOBS: another number). tests/run.sh, the conformance
# suites and the fuzz harnesses run their jobs this way.
#   pool_start COMMAND...  start COMMAND once fewer than that many run
#   pool_wait              wait for all; pool_failed is 1 if one exited non-zero
# POOL_REAPED, when set, names a function called each time one has ended.
pool_size=${WB_POOL_JOBS:-$(nproc)} pool_running=0 pool_failed=0
pool_reap() {
  wait -n || pool_failed=1
  pool_running=$((pool_running - 1))
  if [ -n "${POOL_REAPED:-}" ]; then "$POOL_REAPED"; fi
}
pool_start() {
  if [ "$pool_running" -ge "$pool_size" ]; then pool_reap; fi
  "$@" &
  pool_running=$((pool_running + 1))
}
pool_wait() {
  while [ "$pool_running" -gt 0 ]; do pool_reap; done
}
