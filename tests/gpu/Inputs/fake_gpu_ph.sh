#!/bin/sh
# A stand-in `ph` that answers `run` and `bench` as on an H200 (the documents' shapes of
# docs/output.md) and passes everything else to the real driver ($PH_REAL). With
# PH_LSP_GPU="NVIDIA H200,sm_90" it rehearses tests/gpu/editor_gpu_lsp.py --expect gpu here
# (ctest editors.gpu_client_fake_gpu): the client's GPU checks and the server's GPU path.
case $1 in
run) echo '{"format":"ph-output","version":1,"command":"run","ok":true,"diagnostics":[],"kernel":"flash_attention","config":"D=64,BR=64,BC=32","target":"gpu","device":"NVIDIA H200","grid":[16,1,1],"threads":128,"sizes":{"Nk":1024,"Nq":1024},"scalars":{"scale":0.125},"seed":0,"analyze_ms":1,"compile_ms":900,"time_ms":0.85,"outputs":[],"check":{"passed":true,"reference":"interp","reference_ms":280,"outputs":[{"name":"O","dtype":"f16","max_abs_err":6e-05,"rel_err":3e-05,"tolerance":0.003,"nan_count":0,"agreed_non_finite":0,"passed":true,"worst":1,"reference":"interp"}]}}' ;;
bench) echo '{"format":"ph-output","version":1,"command":"bench","ok":true,"diagnostics":[],"kernel":"flash_attention","device":{"name":"NVIDIA H200","arch":"sm_90a","sms":132,"peakBandwidthGBs":4800,"peakFp32TFlops":60,"peakTensorF16TFlops":990},"rows":[{"config":"D=64,BR=64,BC=32","ms":0.03,"tflops":9.0,"gbps":100,"pctPeak":1,"computeBound":true,"registers":96,"sharedBytes":24576,"spills":0,"check":"ok 3.1e-07"}],"best":"D=64,BR=64,BC=32"}' ;;
*) exec "$PH_REAL" "$@" ;;
esac
