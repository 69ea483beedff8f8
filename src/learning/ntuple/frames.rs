//! The zstd frames of a weight file (format 3: each says what it holds; format 2: one frame),
//! listed and checked before anything is decompressed, then decompressed on every core; and
//! [`in_parallel`], which spreads such work (here the frames' decompression, in the weight
//! file's writer their compression) over scoped threads, up to 8, as many as the machine has:
//! every thread it starts has ended when it returns.

use super::format::MAX_FRAMES;
use std::sync::atomic::Ordering;

/// The one zstd frame of a format-2 file (nothing after it), decompressed: at most `most` bytes.
pub(super) fn decompress_one_frame(frame: &[u8], most: usize) -> Result<Vec<u8>, String> {
    let size = zstd::zstd_safe::find_frame_compressed_size(frame)
        .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
    if size != frame.len() {
        return Err("bytes after its weights".to_string());
    }
    // Room for every value a frame of these stages may hold; only what is written is touched.
    let mut decoded = Vec::with_capacity(most);
    zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(frame, &mut decoded))
        .map_err(|e| e.to_string())?;
    Ok(decoded)
}

/// The zstd frames of a format-3 file, each saying how much it holds, decompressed on every
/// core into one buffer, in order: at most `most` bytes in all.
pub(super) fn decompress_frames(rest: &[u8], most: usize) -> Result<Vec<u8>, String> {
    decompress_listed(&frames_of(rest, most)?)
}

/// The zstd frames of a format-3 file, each with the bytes it says it holds, checked before
/// anything is decompressed: at most `most` bytes in all.
pub(super) fn frames_of(mut rest: &[u8], most: usize) -> Result<Vec<(&[u8], usize)>, String> {
    let mut frames: Vec<(&[u8], usize)> = Vec::new();
    let mut total = 0usize;
    while !rest.is_empty() {
        if frames.len() == MAX_FRAMES {
            return Err(format!("more than {MAX_FRAMES} frames"));
        }
        let size = zstd::zstd_safe::find_frame_compressed_size(rest)
            .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
        let (frame, after) = rest.split_at(size);
        let holds = match zstd::zstd_safe::get_frame_content_size(frame) {
            Ok(Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
            _ => return Err("a frame that does not say its size".to_string()),
        };
        total = total.saturating_add(holds);
        if total > most {
            return Err("more values than its stages hold".to_string());
        }
        frames.push((frame, holds));
        rest = after;
    }
    if frames.is_empty() {
        return Err("no frame".to_string());
    }
    Ok(frames)
}

/// The frames [`frames_of`] listed, decompressed on every core into one buffer, in order.
pub(super) fn decompress_listed(frames: &[(&[u8], usize)]) -> Result<Vec<u8>, String> {
    let total = frames.iter().map(|&(_, holds)| holds).sum();
    let mut decoded = vec![0u8; total];
    let mut jobs: Vec<(&[u8], &mut [u8])> = Vec::with_capacity(frames.len());
    let mut room = decoded.as_mut_slice();
    for &(frame, holds) in frames {
        let (part, after) = std::mem::take(&mut room).split_at_mut(holds);
        jobs.push((frame, part));
        room = after;
    }
    let jobs: Vec<std::sync::Mutex<(&[u8], &mut [u8])>> =
        jobs.into_iter().map(std::sync::Mutex::new).collect();
    let results = in_parallel(&jobs, |job| {
        let mut job = job
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (frame, part) = &mut *job;
        let wanted = part.len();
        match zstd::bulk::Decompressor::new().and_then(|mut d| d.decompress_to_buffer(frame, *part))
        {
            Ok(n) if n == wanted => Ok(()),
            Ok(_) => Err("a frame that holds less than it says".to_string()),
            Err(e) => Err(e.to_string()),
        }
    });
    results.into_iter().collect::<Result<(), String>>()?;
    Ok(decoded)
}

/// How many threads [`in_parallel`] runs `jobs` jobs on: up to 8, as many as the machine has.
pub(super) fn workers(jobs: usize) -> usize {
    crate::learning::cores().clamp(1, 8).min(jobs.max(1))
}

/// `work` done on each of `jobs` by up to 8 threads (as many as the machine has), the results
/// in the jobs' order: frames are compressed and decompressed on every core.
pub(super) fn in_parallel<J: Sync, T: Send>(jobs: &[J], work: impl Fn(&J) -> T + Sync) -> Vec<T> {
    let threads = workers(jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(i) else {
                return done;
            };
            done.push((i, work(job)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, run).ok())
            .collect();
        // This thread works too, and finishes whatever no other thread could be had for.
        let mut done = run();
        for other in others {
            done.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, result)| result).collect()
}
