//! Bytes in and out of the network's files: little-endian reads off the front of a slice
//! ([`Reader`]), and a stream that keeps the CRC-32 of what passes through it ([`Hashing`]).

use std::io::{self, BufRead, Read, Write};

/// A reader or writer that keeps the CRC-32 of the bytes that pass through it (for a reader,
/// of the bytes consumed: a zstd decoder reads its frame through it and leaves what follows).
pub(super) struct Hashing<T> {
    pub(super) inner: T,
    pub(super) hasher: crc32fast::Hasher,
}

impl<T> Hashing<T> {
    pub(super) fn new(inner: T) -> Hashing<T> {
        Hashing {
            inner,
            hasher: crc32fast::Hasher::new(),
        }
    }
}

impl<T: Write> Write for Hashing<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<T: BufRead> Read for Hashing<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

impl<T: BufRead> BufRead for Hashing<T> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        // The bytes `fill_buf` returned are still buffered: asking again reads nothing.
        if let Ok(buffered) = self.inner.fill_buf() {
            self.hasher.update(&buffered[..n.min(buffered.len())]);
        }
        self.inner.consume(n);
    }
}

/// Little-endian reads off the front of a byte slice.
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    pub(super) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
}
