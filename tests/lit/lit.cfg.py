# lit configuration for Ph: every .ph, .mlir and .test file under tests/lit is a test.
import os
import shutil
import lit.formats

config.name = "Ph"
config.test_format = lit.formats.ShTest(not lit_config.useValgrind)
config.suffixes = [".ph", ".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ph_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.ph_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PH_STD_DIR"] = os.path.join(config.ph_src_root, "std")
# `ph build` caches compiled variants in $XDG_CACHE_HOME/ph (docs/compile.md). The suite gets
# an empty cache of its own per run, never the user's; tests of the cache use their own %t.
_cache_home = os.path.join(config.test_exec_root, "xdg-cache")
shutil.rmtree(_cache_home, ignore_errors=True)
config.environment["XDG_CACHE_HOME"] = _cache_home
config.environment.pop("PH_CACHE_DIR", None)
config.environment.pop("PH_CACHE_MAX_SIZE", None)
config.substitutions.append(("%std", os.path.join(config.ph_src_root, "std")))
config.substitutions.append(("%examples", os.path.join(config.ph_src_root, "examples")))
config.substitutions.append(("%FileCheck", "FileCheck --enable-var-scope"))
if config.ph_enable_mlir:
    config.available_features.add("mlir")
if shutil.which("nvidia-smi") and os.path.exists("/dev/nvidia0"):
    config.available_features.add("gpu")
