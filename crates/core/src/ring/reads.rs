//! Reading the ring: a read planned from an absolute offset, as a view of its own bytes, by the consumer (which
//! moves its cursor) or an observer (which never does).

use std::convert::Infallible;

use super::{ReadMeta, Ring, RingRead, RingReadInto};
use crate::error::Error;
use crate::ring_view::{Plan, RingView};
use crate::utf8;

impl Ring {
    /// Plans a read of at most `max` bytes from `requested`. With `fit`, the read never passes `max` (a
    /// caller's buffer cannot grow): a character that does not fit is left for the next read.
    fn plan(&self, requested: u64, max: usize, fit: bool) -> Plan {
        let earliest = self.earliest();
        let lossy = requested < earliest;
        let start = requested.max(earliest).min(self.total);
        let first = self.chunks.partition_point(|c| c.end() <= start);
        // Chunks are contiguous from `earliest`, so the first chunk ending after `start` holds it.
        let head = self
            .chunks
            .get(first)
            .map_or(0, |c| (start - c.offset) as usize);
        let (mut count, mut end, mut taken, mut pos) = (0, 0, 0usize, head);
        for chunk in self.chunks.range(first..) {
            let room = max - taken;
            if room == 0 {
                break;
            }
            let bytes = &chunk.data[pos..];
            if bytes.len() <= room {
                count += 1;
                end = chunk.data.len();
                taken += bytes.len();
                pos = 0;
                continue;
            }
            let cut = utf8::boundary_cut(bytes, room);
            if !(fit && cut > room) {
                count += 1;
                end = pos + cut;
                taken += cut;
            }
            break;
        }
        let meta = ReadMeta {
            from: start,
            to: start + taken as u64,
            lossy,
            total: self.total,
            earliest,
            settled: self.settled,
        };
        Plan {
            first,
            count,
            head,
            end,
            meta,
        }
    }

    fn view(&self, plan: Plan) -> RingView<'_> {
        RingView::new(&self.chunks, plan)
    }

    /// An observer read as a view of the ring's own bytes, changing nothing.
    pub fn observe_view(&self, from: u64, max: usize) -> RingView<'_> {
        self.view(self.plan(from, max, false))
    }

    /// An observer read: bytes from `from`, changing nothing.
    pub fn observe(&self, from: u64, max: usize) -> RingRead {
        self.observe_view(from, max).to_read()
    }

    /// A consumer read of at most `max` bytes (more only when not one character fits), handed to `f` as a
    /// view before anything moves. The cursor moves to the read's end only when `f` returns `Ok`, so a
    /// caller that cannot take the bytes (its output could not be allocated) leaves them for the next read.
    ///
    /// # Errors
    ///
    /// Whatever `f` returns.
    pub fn read_with<T, E>(
        &mut self,
        max: usize,
        f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let plan = self.plan(self.consumer, max, false);
        let out = f(&self.view(plan))?;
        self.consumed(plan.meta.to);
        Ok(out)
    }

    /// A consumer read of at most `max` bytes: moves the cursor.
    pub fn read(&mut self, max: usize) -> RingRead {
        match self.read_with(max, |view| Ok::<_, Infallible>(view.to_read())) {
            Ok(read) => read,
            Err(never) => match never {},
        }
    }

    /// A consumer read that never passes `max` (the length of the caller's buffer): a character that does
    /// not fit stays for the next read, so this may take fewer bytes than [`Ring::read`] with the same
    /// `max` would. Like [`Ring::read_with`], the cursor moves only when `f` returns `Ok`; the outer
    /// result is the ring's own verdict, the inner one `f`'s.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `max` cannot hold even the next character; `f` is not called and the
    /// cursor stays.
    pub fn read_fitting_with<T, E>(
        &mut self,
        max: usize,
        f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
    ) -> Result<Result<T, E>, Error> {
        let plan = self.plan(self.consumer, max, true);
        if plan.count == 0 && plan.meta.from < self.total && max > 0 {
            let chunk = &self.chunks[plan.first];
            let pos = (plan.meta.from - chunk.offset) as usize;
            let needed = utf8::boundary_cut(&chunk.data[pos..], max);
            return Err(Error::BufferTooSmall {
                needed,
                available: max,
            });
        }
        let out = f(&self.view(plan));
        if out.is_ok() {
            self.consumed(plan.meta.to);
        }
        Ok(out)
    }

    /// A consumer read into `buf`, which bounds it (see [`Ring::read_fitting_with`]).
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `buf` cannot hold even the next character; the cursor stays.
    pub fn read_into(&mut self, buf: &mut [u8]) -> Result<RingReadInto, Error> {
        let read = self.read_fitting_with(buf.len(), |view| {
            Ok::<_, Infallible>(RingReadInto {
                bytes: view.copy_to(buf),
                segments: view.segment_lengths(),
                meta: view.meta(),
            })
        })?;
        match read {
            Ok(read) => Ok(read),
            Err(never) => match never {},
        }
    }

    fn consumed(&mut self, to: u64) {
        self.consumer = to;
        if self.settled && to == self.total && !self.terminal_read {
            self.terminal_read = true;
            self.evict();
        }
    }
}
