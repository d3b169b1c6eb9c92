# Sourced by the device check scripts (full_check.sh, attention_check.sh,
# compile_check.sh): `run NAME LOG CMD...` runs CMD with its output in $LOG_DIR/LOG
# ($OUT unless set) and adds a line (name, exit code, seconds) to the `summary` array,
# which the script prints last; it returns CMD's exit code.
# STEP_LIMIT: seconds a step may take (0, the default: no limit).
summary=()
run() {
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  timeout "${STEP_LIMIT:-0}" "$@" >"${LOG_DIR:-$OUT}/$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-26s rc=%-3s %4ss' "$name" "$rc" $((SECONDS - t0)))")
  return $rc
}
