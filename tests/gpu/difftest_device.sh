#!/bin/sh
# Differential tests on the GPU (issue 17) in one device call: random valid Ph programs
# (tests/differential/phgen.py), each built here for sm_80 (SIMT and mma.sync; its PTX runs
# through the driver's JIT on an H200) and sm_90a (the wgmma policy for GEMM-shaped @tensorcore
# kernels, SIMT and mma.sync for the rest), run there with ph-run and compared with the fp64
# interpreter within each output's bound; failures shrunk over their sizes on the device and
# written out as reproducers; compute-sanitizer memcheck + racecheck on a sample.
# docs/reliability.md, "Differential testing".
#
#   difftest_device.sh build PH OUT [COUNT] [SEED]   here (the compiler; no GPU): OUT.tar.xz
#   difftest_device.sh run PACK.tar.xz [LOGS]        there (ph-run, python3; no compiler):
#                                                    LOGS/results.json, LOGS/run.log
#   then, here: difftest.py gpu-cases --ph PH LOGS/results.json --save-dir tests/differential/cases
set -u
mode=$1; shift
case $mode in
build)
  ph=$1 out=$2 count=${3:-2000} seed=${4:-200000}
  root=$(cd "$(dirname "$0")/../.." && pwd)
  PH_STD_DIR=$root/std /usr/bin/python3 "$root/tests/differential/difftest.py" gpu-prepare --ph "$ph" \
      --ph-run "$(dirname "$ph")/ph-run" --out "$out" --count "$count" --seed "$seed" -j "${PH_DIFFTEST_JOBS:-2}" \
      --gpu-targets sm_80,sm_90a
  rc=$?
  # A refused build or check is reported above and in OUT/prepare.json; the pack holds the rest.
  [ -f "$out.tar.xz" ] || exit 1
  echo "built $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1)); prepare exit $rc"
  ;;
run)
  pack=$1 logs=${2:-/tmp/phdiff-logs}
  mkdir -p "$logs" /tmp/phdiff
  tar xJf "$pack" -C /tmp/phdiff || exit 1
  dir=$(ls -d /tmp/phdiff/*/ | head -1)
  python3 "$dir/gpu.py" --ph-run "$dir/ph-run" --dir "$dir" -j 16 --sanitize 40 --budget 360 \
      --log "$logs" 2>&1 | tee "$logs/run.log"
  exit "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(1 if d["failures"] or any(r["status"] != "ok" for r in d["sanitizer"]) else 0)' "$logs/results.json" 2>/dev/null || echo 77)"
  ;;
*)
  echo "usage: difftest_device.sh build PH OUT [COUNT] [SEED] | run PACK.tar.xz [LOGS]" >&2
  exit 2
  ;;
esac
