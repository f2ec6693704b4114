# Sourced by the scripts in this folder.

# release_dir TARGET_DIR: where cargo puts release binaries inside TARGET_DIR. The
# workspace's .cargo/config.toml names the build's target (static release binaries, see
# its comments), so that is TARGET_DIR/<triple>/release rather than TARGET_DIR/release;
# CARGO_BUILD_TARGET in the environment overrides the configured triple, as it does for
# cargo.
release_dir() {
    local triple=${CARGO_BUILD_TARGET:-}
    if [ -z "$triple" ]; then
        triple=$(sed -n 's/^target *= *"\([^"]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../.cargo/config.toml" | head -n1)
    fi
    if [ -n "$triple" ]; then
        echo "$1/$triple/release"
    else
        echo "$1/release"
    fi
}

# generator_docs_root QUESTIONS: the docs root a generator tree's questions file names in its
# first line ("docs root `content/en`"), relative to the tree in ../shared/corpora/generators.
generator_docs_root() {
    head -1 "$1" | sed -n 's/.*docs root `\([^`]*\)`.*/\1/p'
}
