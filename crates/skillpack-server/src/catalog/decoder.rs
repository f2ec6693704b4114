//! One thread's zstd decoder for a catalog's text frames, with the dictionary as the
//! prefix of its output buffer.
//!
//! zstd reads a dictionary's content as bytes that come before the frame. Given a
//! dictionary somewhere else in memory, the decoder copies every match that reaches into
//! it with a call to `memmove` of its own (a few dozen bytes each, hundreds per document);
//! when the output buffer starts right where the dictionary's bytes end, those matches are
//! ordinary back-references and take the decoder's inline copy loop. The buffer also has
//! room beyond the largest frame, so the decoder never takes its careful path near the end
//! of the output and keeps a block's literals in the buffer. Every frame decoded in
//! process and uncached (`examples/read_latency --frames`), this decodes 27–45% more bytes
//! a second than a separate dictionary and an output of the frame's exact length did:
//! synth-10000's frames at p50 in 4.2–4.3 µs rather than 5.6–6.0 µs
//! (docs/design/compact-archive.md, "A tenth look").
//!
//! Written against zstd's C API by hand because no zstd crate owns a buffer that a
//! digested dictionary borrows while the same buffer receives output (a self-referential
//! value), and `zstd_safe`'s by-reference dictionary panics where zstd refuses a damaged
//! one; here that is `None`, and the read answers `content_damaged`.
//!
//! A decoder is made once per thread and catalog and lives as long as its thread: zstd
//! allocates with the C library's `malloc`, and a `free` of that much memory in a worker
//! thread's arena makes glibc read `/proc/sys/vm/overcommit_memory` the first time it
//! trims, a file touched while serving (`tests/zero_io.rs`).

use std::ffi::c_void;
use std::ptr::NonNull;

use zstd::zstd_safe::zstd_sys as sys;

/// Room beyond a frame's output: zstd places a block's literals after the block's output
/// when there is room for them (a block is at most 128 KiB), and reads and writes up to 32
/// bytes past a copy (`WILDCOPY_OVERLENGTH`).
const SLACK: usize = 128 * 1024 + 64;

/// A thread's decoder for one catalog's dictionary: a buffer holding the dictionary's bytes
/// and then room for the catalog's largest frame, the dictionary digested in place, and a
/// decoding context.
pub(super) struct PrefixDecoder {
    /// Which catalog's dictionary this holds ([`super::content::Dictionary`]'s identity).
    catalog: u64,
    context: NonNull<sys::ZSTD_DCtx>,
    /// Digested from the buffer's first `prefix` bytes, which it keeps pointing to.
    digested: NonNull<sys::ZSTD_DDict>,
    /// The buffer, allocated as a `Box<[u8]>` of `capacity` bytes and owned by this value.
    buffer: NonNull<u8>,
    capacity: usize,
    prefix: usize,
}

impl PrefixDecoder {
    /// A decoder holding `dictionary` for the catalog `catalog`, with room for frames of up
    /// to `largest_frame` bytes. `None` when zstd refuses the dictionary (a damaged
    /// binary) or cannot allocate.
    pub(super) fn new(catalog: u64, dictionary: &[u8], largest_frame: usize) -> Option<Self> {
        let capacity = dictionary.len() + largest_frame + SLACK;
        let mut buffer = vec![0u8; capacity].into_boxed_slice();
        buffer[..dictionary.len()].copy_from_slice(dictionary);
        let buffer = NonNull::from(Box::leak(buffer)).cast::<u8>();
        let free_buffer = || {
            let slice = std::ptr::slice_from_raw_parts_mut(buffer.as_ptr(), capacity);
            // SAFETY: the `Box<[u8]>` of `capacity` bytes leaked above, not yet owned by a
            // decoder, freed once.
            drop(unsafe { Box::from_raw(slice) });
        };
        // SAFETY: plain constructors; a null answer is handled.
        let Some(context) = NonNull::new(unsafe { sys::ZSTD_createDCtx() }) else {
            free_buffer();
            return None;
        };
        // SAFETY: the buffer's first `dictionary.len()` bytes, which are never written
        // again and outlive the digested dictionary (freed first in `Drop`).
        let digested = unsafe {
            sys::ZSTD_createDDict_byReference(buffer.as_ptr() as *const c_void, dictionary.len())
        };
        let Some(digested) = NonNull::new(digested) else {
            // SAFETY: the context made above, used by nothing else.
            unsafe { sys::ZSTD_freeDCtx(context.as_ptr()) };
            free_buffer();
            return None;
        };
        Some(PrefixDecoder {
            catalog,
            context,
            digested,
            buffer,
            capacity,
            prefix: dictionary.len(),
        })
    }

    /// Whether this holds `catalog`'s dictionary.
    pub(super) fn holds(&self, catalog: u64) -> bool {
        self.catalog == catalog
    }

    /// Decode `stored` (a frame compressed with this dictionary) and return its bytes, or
    /// zstd's reason for refusing it. Output beyond the room made for the catalog's largest
    /// frame is refused too (only a damaged frame claims more).
    pub(super) fn decode(&mut self, stored: &[u8]) -> Result<&[u8], &'static str> {
        let room = self.capacity - self.prefix;
        // SAFETY: the buffer's bytes after the dictionary's, which nothing else refers to
        // (the digested dictionary points at the first `prefix` bytes only, and the slice
        // handed out by the previous call borrowed `self` mutably and has ended).
        let output: &mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(self.buffer.as_ptr().add(self.prefix), room) };
        // SAFETY: the context and dictionary this value owns; `output` and `stored` are
        // valid for the lengths given, and zstd writes within `room` bytes of `output`.
        let written = unsafe {
            sys::ZSTD_decompress_usingDDict(
                self.context.as_ptr(),
                output.as_mut_ptr() as *mut c_void,
                room,
                stored.as_ptr() as *const c_void,
                stored.len(),
                self.digested.as_ptr(),
            )
        };
        // SAFETY: `ZSTD_isError` and `ZSTD_getErrorName` take any result code.
        if unsafe { sys::ZSTD_isError(written) } != 0 {
            return Err(zstd::zstd_safe::get_error_name(written));
        }
        output.get(..written).ok_or("more bytes than its room")
    }
}

impl Drop for PrefixDecoder {
    fn drop(&mut self) {
        // SAFETY: the dictionary, then the context, then the buffer the dictionary points
        // into, each made in `new` and freed once.
        unsafe {
            sys::ZSTD_freeDDict(self.digested.as_ptr());
            sys::ZSTD_freeDCtx(self.context.as_ptr());
            let slice = std::ptr::slice_from_raw_parts_mut(self.buffer.as_ptr(), self.capacity);
            drop(Box::from_raw(slice));
        }
    }
}
