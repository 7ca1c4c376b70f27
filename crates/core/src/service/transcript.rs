//! The last loaded transcript, kept so that paging through a 40 MB session (a page at a time,
//! then finding a message, then translating one) reads it once, not once per page.
//!
//! It is loaded again when the session the caller names differs from the one held, or its
//! listing changed (`updated_at`), or its source file's size or mtime moved since the load: a
//! live agent appending makes the next page read the new lines.

use std::sync::Mutex;

use crate::error::Error;
use crate::library::Library;
use crate::model::{SessionMeta, Transcript};
use crate::provider::files::stat;

use super::lock;

/// A transcript and its source file's (size, mtime) when it was read.
type Held = (Transcript, Option<(u64, i64)>);

#[derive(Default)]
pub(crate) struct TranscriptCache {
    last: Mutex<Option<Held>>,
}

impl TranscriptCache {
    /// Runs `f` on `meta`'s transcript, loading it through `library` only when the one held is
    /// not that session as it is now.
    pub(crate) fn with<T>(
        &self,
        library: &Mutex<Library>,
        meta: &SessionMeta,
        f: impl FnOnce(&Transcript) -> T,
    ) -> Result<T, Error> {
        let mut cached = lock(&self.last);
        let stamp = stat(&meta.source_path).ok();
        let fresh = cached.as_ref().is_some_and(|(t, s)| {
            let m = &t.session;
            m.provider == meta.provider
                && m.id == meta.id
                && m.source_path == meta.source_path
                && m.updated_at == meta.updated_at
                && *s == stamp
        });
        let entry = match cached.take() {
            Some(entry) if fresh => entry,
            _ => (lock(library).load(meta)?, stamp),
        };
        Ok(f(&cached.insert(entry).0))
    }

    /// Forgets the transcript held (the roots changed).
    pub(crate) fn clear(&self) {
        *lock(&self.last) = None;
    }
}
