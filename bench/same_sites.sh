#!/usr/bin/env bash
# Builds the four configs (and the every-kind config again with --live) that a refactoring must leave byte for byte as they were, each cold (an empty cache)
# and again from the cache, with --model random, into DIR/<config>-<cold|cached>/; then prints one SHA-256 per
# site. Run it before and after a change and compare with `diff -r BEFORE AFTER` (or the printed sums):
#
#     bash bench/same_sites.sh /tmp/before     # on the old commit
#     bash bench/same_sites.sh /tmp/after      # on the new one
#     diff -r /tmp/before /tmp/after && echo identical
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: bench/same_sites.sh DIR}
mkdir -p "$DIR"
for build in chapter.toml tests/every_kind.toml bench/long_text.toml tests/site_table.toml "tests/every_kind.toml --live"; do
    read -r config live <<<"$build"
    name=$(basename "$config" .toml)${live:+-live}
    cache=$(mktemp -d)
    for pass in cold cached; do
        rm -rf "$DIR/$name-$pass"
        python build.py --model random --config "$config" --out "$DIR/$name-$pass" --cache "$cache" --quiet $live
    done
    rm -rf "$cache"
done
for site in "$DIR"/*/; do
    printf '%s  %s\n' "$(cd "$site" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)" "$(basename "$site")"
done
