// mimalloc rather than glibc's malloc: a document answer builds and frees a few hundred
// small `serde_json` values (its `_meta` outline), and pipelined reads ran 1.3 times faster
// with it (docs/benchmarks.md). Built without transparent huge pages (`no_thp`): with them
// it backs its first arena with 2 MiB pages and idle RSS grows by 6 MiB.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    skillpack::cli::main()
}
