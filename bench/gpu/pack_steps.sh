# pack_steps.sh - sourced by the device packs (defaults_device.sh, compile_opts_device.sh,
# gemm_occ_device.sh): what each pack's `build` ends with and its `run` starts with, and a step
# under its own time limit. Each pack copies this file beside itself.

finish_pack() { # PH OUT FILE...: the PTX dropped, FILE... and ph-run (stripped) copied into OUT
  ph=$1 out=$2; shift 2
  find "$out" -name '*.ptx' -delete
  cp "$@" "$(dirname "$0")/pack_steps.sh" "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
}

start_pack() { # DIR [LOGS]: sets T, logs, R, t0, fails; exits 77 without a GPU
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  t0=$(date +%s) fails=0
}

step() { # LABEL LIMIT COMMAND: one step, its output in LOGS/LABEL.log, a line of verdict
  s=$(date +%s)
  timeout "$2" sh -c "$3" > "$logs/$1.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || fails=$((fails+1))
  echo "== $1: exit $rc after $(( $(date +%s) - s )) s (at $(( $(date +%s) - t0 )) s)"
}

build_into() { # LOG COMMAND...: COMMAND's output into LOG; if it fails, its tail, and the build stops
  log=$1; shift
  "$@" > "$log" 2>&1 || { echo "FAIL build: $*"; tail -5 "$log"; exit 1; }
}
