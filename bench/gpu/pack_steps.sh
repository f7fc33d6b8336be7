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

# The attention packs' shared steps (overlap_device.sh, tma_attention_device.sh). They read T, R,
# logs and MHA (mha.ph's kernels) from the pack.

build_vs_mha() { # PH ROOT OUT: mha.ph for shared/tools/ph_vs_torch.py, with cp.async rings (the tool
  # passes no TMA maps; docs/abi.md, "TMA descriptors"), and the tool, if the checkout has it beside
  build_into "$3/vs-mha.log" env PH_TILEGPU_TMA=0 "$1" build "$2/examples/mha.ph" --target sm_90a --no-cache -o "$3/vs/mha"
  [ -f "$2/../shared/tools/ph_vs_torch.py" ] && cp "$2/../shared/tools/ph_vs_torch.py" "$3/"
}

mha_checks() { # VARIANTS: mha.ph's four kernels at its seven configurations against the interpreter
  for v in $1; do for k in $MHA; do
    for c in D=64,BR=64,BC=64 D=64,BR=64,BC=128 D=64,BR=128,BC=64 D=64,BR=128,BC=128 D=128,BR=64,BC=32 D=128,BR=128,BC=32 D=128,BR=128,BC=128; do
      step "check-mha-$v-$k-$c" 30 "'$R' '$T/mha/$v/$k' --kernel $k --config $c --size B=1 --size H=2 --size N=384 --seed 4 --check"
    done
  done; done
}

check_summary() { # [GLOB]: how many of the check logs (default check-*) failed, and which
  g=${1:-check-*}
  echo "checks: $(grep -l -i 'mismatch\|fail' "$logs"/$g.log 2>/dev/null | wc -l) failing of $(ls "$logs"/$g.log | wc -l)"
  grep -l -i "mismatch\|fail" "$logs"/$g.log 2>/dev/null | head
}

attention_bench() { # ROUNDS VARIANTS DS [SUB]: `ph-run --bench` of attn_w8 and causal_w8 in turns,
  # [4, 16, 4096, D], from $T/SUB/VARIANT (SUB: "wide" for attention_wide.ph's builds; default the
  # variants' own folders). AB_CONFIG=",BC=128" narrows each run to those configurations.
  for round in $1; do for v in $2; do for k in attn_w8 causal_w8; do for d in $3; do
    s=bench-$round-${4:+$4-}$v-$k-D$d
    step "$s" 60 "'$R' '$T/${4:+$4/}$v/$k' --kernel $k --config D=$d${AB_CONFIG:-} --size B=4 --size H=16 --size N=4096 --bench --iters 30"
    grep -E '^ *D=' "$logs/$s.log" | sed "s/^/   $round ${4:+$4 }$v $k /"
  done; done; done; done
}

onehead_bench() { # VARIANTS DS: `ph-run --bench` of attention_tc's four kernels on one head, [1, 1, 16384, D]
  # (the shape whose 128 query blocks of 128 rows leave a CTA alone on its SM)
  for v in $1; do for k in attn_w4 attn_w8 causal_w4 causal_w8; do for d in $2; do
    [ -d "$T/$v/$k" ] || { echo "   onehead: $v/$k not built"; continue; }
    step "onehead-$v-$k-D$d" 60 "'$R' '$T/$v/$k' --kernel $k --config D=$d --size B=1 --size H=1 --size N=16384 --bench --iters 30"
    grep -E '^ *D=' "$logs/onehead-$v-$k-D$d.log" | sed "s/^/   $v $k /"
  done; done; done
}

prefill_runs() { # VARIANTS: mha.ph's builds through bench_prefill.py, in that order, on the quick
  # subset (f16, [4, 16, 4096, D], no FlexAttention) unless PF_ARGS says otherwise (PF_ARGS= : all)
  i=0
  for v in $1; do
    i=$((i + 1))
    step "prefill-$i-$v" "${PF_LIMIT:-90}" "cd '$T' && python3 bench_prefill.py '$R' '$T/mha/$v' --iters 20 \
      ${PF_ARGS---shapes 4x16x4096 --dtypes f16 --no-flex}"
    grep -E '^mha_' "$logs/prefill-$i-$v.log" | sed "s/^/   $v /"
  done
}

prefill_table() { # VARIANT: issue 15's whole table (both shapes, f16 and bf16, FlexAttention, the matmul rate)
  step "table-$1" 420 "cd '$T' && python3 bench_prefill.py '$R' '$T/mha/$1' --iters 20 --out '$logs/table-$1.jsonl'"
  sed -n '/^prefill attention/,$p' "$logs/table-$1.log"
  grep -q '^prefill attention' "$logs/table-$1.log" || tail -5 "$logs/table-$1.log"  # cut short: its last words
}

vs_prefill() { # shared/tools/ph_vs_torch.py --only prefill on build_vs_mha's build, if the pack has the tool
  [ -f "$T/ph_vs_torch.py" ] || return 0
  step vs-prefill 240 "cd '$T' && python3 ph_vs_torch.py '$T/vs' --only prefill --out '$logs/ph_vs_torch.jsonl'"
  grep -E 'prefill|FAILED' "$logs/vs-prefill.log" | tail -12
}
