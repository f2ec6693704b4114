//! The run-time sandbox: once the transport is set up, the server process gives up its
//! filesystem access (and the right to open TCP connections or bind new ports), so that
//! "no filesystem IO at run time" holds even if a bug or a hostile request tried otherwise.
//!
//! On Linux this is Landlock: a ruleset that handles every filesystem right and grants
//! none, restricts TCP bind/connect and scopes abstract UNIX sockets and signals to the
//! process. It is best effort: a kernel without Landlock (or with an older ABI) runs the
//! server unrestricted or partly restricted, and [`Status`] says which, for the log and
//! `skillpack info`. Elsewhere there is no sandbox and the status says so.
//!
//! Ordering matters, and is the caller's job:
//! - restrict **after** everything the process will ever open is open: rmcp's
//!   `stdio_pipes()` reopens `/proc/self/fd/N`, and the HTTP transport binds its listener;
//!   descriptors opened before keep working (Landlock checks at open time);
//! - restrict **before** other threads start: until Landlock ABI 8 (`TSYNC`) the kernel
//!   restricts only the calling thread and the threads it spawns afterwards. The status
//!   reports when other threads were already running.
//!
//! [`restrict`] also gets the C library's one lazy file read out of the way first (see
//! [`settle_allocator`]), so that serving really makes no file syscall, not even a refused
//! one.

use serde_json::{Value, json};

/// What the sandbox achieved in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// `landlock`, or `none` where the platform has no sandbox we use.
    pub mechanism: &'static str,
    /// The Landlock ABI the kernel offers (0: none).
    pub abi: i32,
    pub level: Level,
    /// Whether every thread of the process is covered (ABI 8 `TSYNC`, or the only thread).
    pub all_threads: bool,
    /// Why the sandbox is weaker than intended, if it is.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// No file can be opened from here on.
    Enforced,
    /// Enforced, but with fewer rights handled than requested (older kernel ABI).
    Partial,
    /// The kernel (or platform) does not support it: nothing is enforced.
    Unavailable,
    /// Landlock is there but restricting failed.
    Failed,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Enforced => "enforced",
            Level::Partial => "partial",
            Level::Unavailable => "unavailable",
            Level::Failed => "failed",
        }
    }
}

impl Status {
    pub fn is_enforced(&self) -> bool {
        matches!(self.level, Level::Enforced | Level::Partial)
    }

    /// One line for the log and `skillpack info`.
    pub fn describe(&self) -> String {
        match self.level {
            Level::Enforced => format!(
                "{} (ABI {}) enforced {}: no file can be opened, no TCP connection made",
                self.mechanism,
                self.abi,
                if self.all_threads {
                    "on every thread".to_owned()
                } else {
                    format!(
                        "on this thread and those it starts, not on others ({})",
                        self.detail
                    )
                }
            ),
            Level::Partial => format!(
                "{} (ABI {}) partly enforced: {}",
                self.mechanism, self.abi, self.detail
            ),
            Level::Unavailable => format!(
                "unavailable ({}); skillpack still does no filesystem IO at run time, but the kernel does not enforce it",
                self.detail
            ),
            Level::Failed => format!("failed ({})", self.detail),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "mechanism": self.mechanism,
            "abi": self.abi,
            "status": self.level.as_str(),
            "all_threads": self.all_threads,
            "detail": self.detail,
        })
    }

    /// Log the status once, at the level it deserves.
    pub fn log(&self) {
        match self.level {
            Level::Enforced if self.all_threads => {
                tracing::info!(
                    sandbox = self.level.as_str(),
                    abi = self.abi,
                    "sandbox: {}",
                    self.describe()
                )
            }
            _ => tracing::warn!(
                sandbox = self.level.as_str(),
                abi = self.abi,
                "sandbox: {}",
                self.describe()
            ),
        }
    }
}

/// Restrict the calling thread (and every thread it spawns from now on) for good.
pub fn restrict() -> Status {
    settle_allocator();
    #[cfg(target_os = "linux")]
    let alone = threads::alone();
    #[cfg(not(target_os = "linux"))]
    let alone = None;
    restrict_with(alone)
}

/// `alone`: whether the calling thread is the process's only thread right now, if known.
#[cfg(target_os = "linux")]
fn restrict_with(alone: Option<bool>) -> Status {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus,
        RestrictSelfAttr, Ruleset, RulesetAttr, RulesetStatus, Scope,
    };

    // The newest ABI whose rights this code was tested with; newer kernels enforce this
    // set (the crate never enables rights the code did not ask for).
    const TARGET: ABI = ABI::V7;
    let result = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .and_then(|r| r.handle_access(AccessNet::from_all(TARGET)))
        .and_then(|r| r.scope(Scope::from_all(TARGET)))
        .and_then(|r| r.create())
        // ABI 8 restricts every thread at once; older kernels drop the flag (best effort)
        // and we rely on restricting before any other thread exists.
        .and_then(|r| r.all_threads(true))
        .and_then(|r| r.restrict_self());
    match result {
        Ok(restriction) => {
            let abi = match restriction.landlock {
                LandlockStatus::Available {
                    effective_abi,
                    kernel_abi,
                } => kernel_abi.unwrap_or(effective_abi as i32),
                _ => 0,
            };
            let all_threads = restriction.all_threads || alone == Some(true);
            let (level, detail) = match restriction.ruleset {
                // All of TARGET's rights are handled even when only TSYNC (ABI 8) is
                // missing, which the crate reports as partial: judge by the ABI instead.
                RulesetStatus::FullyEnforced => (Level::Enforced, String::new()),
                RulesetStatus::PartiallyEnforced if abi >= TARGET as i32 => {
                    (Level::Enforced, String::new())
                }
                RulesetStatus::PartiallyEnforced => (
                    Level::Partial,
                    format!(
                        "the kernel's Landlock ABI {abi} lacks some rights of ABI {} (e.g. TCP restrictions need ABI 4, truncate ABI 3)",
                        TARGET as i32
                    ),
                ),
                RulesetStatus::NotEnforced => (
                    Level::Unavailable,
                    match restriction.landlock {
                        LandlockStatus::NotEnabled => {
                            "the kernel has Landlock but it is not enabled (add `landlock` to the lsm= boot parameter)".to_owned()
                        }
                        _ => "the kernel has no Landlock support (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)".to_owned(),
                    },
                ),
            };
            let detail = if !all_threads && level != Level::Unavailable {
                let others = match alone {
                    Some(_) => "other threads were running before the restriction",
                    None => "whether other threads were running could not be told",
                };
                format!(
                    "{detail}{}{others}",
                    if detail.is_empty() { "" } else { "; " }
                )
            } else {
                detail
            };
            Status {
                mechanism: "landlock",
                abi,
                level,
                all_threads,
                detail,
            }
        }
        Err(error) => Status {
            mechanism: "landlock",
            abi: 0,
            level: Level::Failed,
            all_threads: false,
            detail: error.to_string(),
        },
    }
}

#[cfg(not(target_os = "linux"))]
fn restrict_with(_alone: Option<bool>) -> Status {
    Status {
        mechanism: "none",
        abi: 0,
        level: Level::Unavailable,
        all_threads: false,
        detail: "only Linux (Landlock) is sandboxed".to_owned(),
    }
}

/// glibc's malloc opens `/proc/sys/vm/overcommit_memory` the first time it hands memory of
/// a thread's arena back to the kernel (`shrink_heap`), and remembers the answer for the
/// life of the process. In a multi-threaded server that first time comes at some request
/// long after start-up: a file syscall in the middle of serving (refused by Landlock, and
/// glibc then falls back to `MADV_DONTNEED`, so harmless, but a file syscall all the same).
/// Make it happen now, while files may still be opened: a short-lived thread, which gets
/// an arena of its own, grows that arena's heap past the trim threshold (128 KiB) with
/// blocks below the mmap threshold, and frees them. It is gone before [`threads::alone`]
/// looks. With another C library this is a few allocations and nothing else.
fn settle_allocator() {
    #[cfg(target_os = "linux")]
    let alone_before = threads::alone() == Some(true);
    let warm_up = std::thread::Builder::new()
        .name("malloc-settle".to_owned())
        .spawn(|| {
            let blocks: Vec<Vec<u8>> = (0..8).map(|_| Vec::with_capacity(96 * 1024)).collect();
            drop(std::hint::black_box(blocks));
        });
    if let Ok(thread) = warm_up {
        let _ = thread.join();
    }
    // `join` returns when the thread has stopped running, a moment before the kernel
    // drops it from the thread group; wait for that (briefly), or the restriction would
    // be reported as not covering every thread.
    #[cfg(target_os = "linux")]
    if alone_before {
        for _ in 0..200 {
            if threads::alone() != Some(false) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(500));
        }
    }
}

/// Is the calling thread the process's only one? Asked before the restriction, because
/// the first way is a file read.
#[cfg(target_os = "linux")]
mod threads {
    /// `/proc/self/task` where `/proc` is mounted; otherwise (an empty root, a container
    /// without `/proc`) the kernel's own check in `unshare(2)`, which no crate wraps:
    /// unsharing `CLONE_THREAD` is a no-op that succeeds when the thread group has no other
    /// member and fails with `EINVAL` when it has one. It changes nothing either way and
    /// needs no privilege; a seccomp filter that refuses `unshare` (Docker's default does,
    /// without `CAP_SYS_ADMIN`) leaves the answer unknown.
    pub(super) fn alone() -> Option<bool> {
        if let Ok(entries) = std::fs::read_dir("/proc/self/task") {
            return Some(entries.count() == 1);
        }
        // SAFETY: with only CLONE_THREAD, unshare(2) takes no pointer and unshares nothing
        // (kernel/fork.c: check_unshare_flags, then no namespace or table is copied).
        match unsafe { libc::unshare(libc::CLONE_THREAD) } {
            0 => Some(true),
            _ if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) => {
                Some(false)
            }
            _ => None,
        }
    }
}

/// Restrict a throwaway thread exactly as `serve` restricts itself, then try to open this
/// binary and list `/`: what `skillpack info` reports, with `Some(true)` when both were
/// refused. Landlock restricts the calling thread only (before ABI 8), so the rest of the
/// process is unaffected; with ABI 8 `TSYNC` the whole process is restricted, which is
/// harmless for `info` (it reads nothing afterwards and stdout is already open).
pub fn probe() -> (Status, Option<bool>) {
    let exe = std::env::current_exe().ok();
    std::thread::spawn(move || {
        // `serve` restricts while it is the only thread; report what it gets.
        let status = restrict_with(Some(true));
        let verified = status.is_enforced().then(|| {
            let file_denied = exe
                .as_ref()
                .is_none_or(|exe| std::fs::File::open(exe).is_err());
            let dir_denied = std::fs::read_dir("/").is_err();
            file_denied && dir_denied
        });
        (status, verified)
    })
    .join()
    .unwrap_or_else(|_| {
        (
            Status {
                mechanism: "landlock",
                abi: 0,
                level: Level::Failed,
                all_threads: false,
                detail: "the probe thread panicked".to_owned(),
            },
            None,
        )
    })
}
