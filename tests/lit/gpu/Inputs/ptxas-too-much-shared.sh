#!/bin/sh
# Stands in for ptxas (PH_PTXAS) in tests/lit/gpu/lowering/ptxas-error.ph: prints what
# ptxas 13.0 prints for a kernel over the shared-memory limit (its exact words, measured
# with a 300000-byte .shared array for sm_90) and exits with its status.
echo "ptxas error   : Entry function '$PH_FAKE_PTXAS_KERNEL' uses too much shared data (0x493e0 bytes, 0xc000 max)"
echo "ptxas info    : 0 bytes gmem"
echo "ptxas info    : Compiling entry function '$PH_FAKE_PTXAS_KERNEL' for 'sm_90'"
exit 255
