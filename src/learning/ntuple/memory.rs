//! Memory for the weights: zeroed allocations (on huge pages where the system has them, for
//! training), and prefetching a weight before it is read.

/// `count` zeros (weights, or coherence sums, for training), in memory backed by huge pages
/// where the system offers them: training reads and writes at random all over hundreds of
/// MiB, and with 4 KiB pages nearly every access also misses the TLB (2.44 M moves a second
/// against 3.00 M, measured). The memory comes zeroed from the system and is
/// not written here, so a region never written (a stage's boards never seen, their sums never
/// moved) costs no memory and no time.
pub(super) fn zeroed<T: bytemuck::Zeroable>(count: usize) -> Box<[T]> {
    let mut cells: Box<[T]> = zeroed_small(count);
    advise_huge_pages(cells.as_mut_ptr().cast(), count * size_of::<T>());
    cells
}

/// `count` zeros in the system's ordinary pages (4 KiB): for the tables of a network read to
/// play. Its weights are mostly zero, in runs a page long or more (the indices of tiles its
/// stage never holds), and a page never written costs nothing; huge pages would hold 2 MiB for
/// each weight written. Measured on the shipped network: a fifth less memory at the same speed
/// (measurements/learned.md).
pub(super) fn zeroed_small<T: bytemuck::Zeroable>(count: usize) -> Box<[T]> {
    bytemuck::allocation::try_zeroed_slice_box::<T>(count).unwrap_or_else(|()| {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<T>(count).unwrap_or(std::alloc::Layout::new::<T>()),
        )
    })
}

/// `count` cells taken from `values` (zeros, or [`Default`]s, past its end), in memory backed
/// by huge pages as for [`zeroed`]: written once, as a file is read into a network. The pages
/// are asked for before the first write, so that they are huge from the start, and a vector
/// pushed to its capacity becomes a boxed slice without a copy.
pub(super) fn filled<T: Default>(count: usize, values: impl Iterator<Item = T>) -> Box<[T]> {
    let mut cells: Vec<T> = Vec::with_capacity(count);
    advise_huge_pages(cells.as_mut_ptr().cast(), count * size_of::<T>());
    cells.extend(values.take(count));
    cells.resize_with(count, T::default);
    cells.into_boxed_slice()
}

/// Asks Linux to back the whole pages of `len` bytes at `start` with huge pages (transparent
/// huge pages in `madvise` mode, the common default). A hint: if it is refused, nothing changes
/// but speed.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    const PAGE: usize = 4096;
    let first = (start as usize).next_multiple_of(PAGE);
    let end = (start as usize + len) / PAGE * PAGE;
    if end > first {
        // SAFETY: the range lies within one allocation this function's caller owns, and
        // MADV_HUGEPAGE only changes how its pages are backed, never their contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: *mut u8, _: usize) {}

/// A hint to bring the cache line of `address` into the cache.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn prefetch(address: *const u8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: SSE is part of every x86_64 CPU, and a prefetch reads nothing the program sees:
    // it only warms the cache (an address outside the process is ignored, not faulted).
    unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn prefetch(_: *const u8) {}
