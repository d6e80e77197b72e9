# Shared by every test that records through tracefs (record_hackbench, record_exec_failure,
# record_syscalls_channels, interrupt_outputs, fidelity_record). Source it after `cd` into the
# work directory. Exit 77 means skipped (ctest SKIP_RETURN_CODE); a skip always prints its reason.
#
#   tracefs_skip REASON...    print "SKIP: REASON" and exit 77
#   tracefs_find              return 0 with TRACEFS set to the mount point (the directory
#                             holding instances/), mounting tracefs where it is not mounted (as
#                             `schedsim record` itself does); else return 1 with the reason in
#                             TRACEFS_UNUSABLE (not root, cannot be mounted)
#   tracefs_require           tracefs_find, or skip with its reason
#   tracefs_record NAME SCHEDSIM RECORD-ARGS...
#                             run `SCHEDSIM record RECORD-ARGS...` with stdout in NAME.out and
#                             stderr in NAME.err; skip when the message says this machine cannot
#                             trace (not root, no tracefs, no instances); on any other failure
#                             print both and exit 1; on success print NAME.err (the summary)

tracefs_skip() {
  echo "SKIP: $*"
  exit 77
}

tracefs_find() {
  TRACEFS=""
  TRACEFS_UNUSABLE=""
  if [ "$(id -u)" -ne 0 ]; then
    TRACEFS_UNUSABLE="not root (tracefs needs root)"
    return 1
  fi
  local p
  for p in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    [ -d "$p/instances" ] && TRACEFS=$p && return 0
  done
  if [ -d /sys/kernel/tracing ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
    [ -d /sys/kernel/tracing/instances ]; then
    TRACEFS=/sys/kernel/tracing
    return 0
  fi
  TRACEFS_UNUSABLE="tracefs is not mounted and cannot be mounted at /sys/kernel/tracing (a kernel without CONFIG_TRACING, or a container without the right to mount)"
  return 1
}

tracefs_require() {
  tracefs_find || tracefs_skip "$TRACEFS_UNUSABLE"
}

tracefs_record() {
  local name=$1 schedsim=$2
  shift 2
  if ! "$schedsim" record "$@" >"$name.out" 2>"$name.err"; then
    if grep -qE 'needs root|tracefs is unavailable|cannot create a tracefs instance' "$name.err"; then
      tracefs_skip "$(head -1 "$name.err")"
    fi
    cat "$name.out" "$name.err"
    echo "FAIL: schedsim record $* failed"
    exit 1
  fi
  cat "$name.err"
}
