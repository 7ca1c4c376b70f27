//! "Continue in…" from a bundle: the bundle's session handed to an agent (its own or another)
//! in a directory the user chose, without restoring anything (SPEC §7, M6).
//!
//! This is what a share-safe bundle is for (it holds no records of the agent's own), and the
//! other choice beside Restore for a complete one. The handoff document is written from the
//! bundle's unified transcript (`transcript.json`, the `agent-sessions.export.v1` document the
//! bundle was made with) by the same rules as a handoff from a store
//! ([`crate::actions::handoff`]): the bundle's text is quoted like any transcript text. The
//! session keeps the directory it was recorded in for the document (its paths are relative to
//! it), which names the chosen one too when it differs; the agent starts in the chosen one.
//! Nothing is written but the launch's prompt file.
//!
//! The transcript is read as a stream, twice: its session first, then its messages one at a
//! time (in whichever order the document has them), each a tree within
//! [`RECORD_BYTES`] (a handoff keeps only what it can show): a small bundle whose transcript
//! unpacks to a gigabyte costs no more memory than one message.

use std::fmt;
use std::io::BufRead;
use std::path::Path;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::manifest::{Manifest, TRANSCRIPT};
use super::reader::Bundle;
use super::records::{Bounded, Budget, RECORD_BYTES};
use super::restore::checked_folder;
use super::BundleError;
use crate::actions::handoff::{Budget as Chars, Gathering, Handoff};
use crate::error::Error;
use crate::model::{Message, ProviderKind, SessionMeta};

/// A bundle's session ready to continue in `target`.
#[derive(Debug, Clone)]
pub struct Continued {
    /// The bundle's session with `cwd` set to the chosen directory (the launch starts there).
    pub session: SessionMeta,
    pub handoff: Handoff,
}

/// The handoff of `bundle`'s session to `target`, to continue in `dir` (an existing folder).
pub fn handoff(
    bundle: &Bundle,
    dir: &Path,
    target: ProviderKind,
    budget: Chars,
) -> Result<Continued, Error> {
    let dir = checked_folder(dir, "directory", super::restore::CREATE_IT)?;
    let manifest = &bundle.manifest;
    let session = bundle.stream(TRANSCRIPT, |r| read(r, manifest, None))?;
    let gathering = bundle.stream(TRANSCRIPT, |r| read(r, manifest, session))?;
    let gathering =
        gathering.ok_or_else(|| BundleError::Invalid(format!("{TRANSCRIPT} holds no session")))?;
    let starts_in = dir.to_string_lossy().into_owned();
    let (mut session, doc) = gathering.finish(target, Some(&starts_in), budget);
    session.cwd = Some(starts_in);
    Ok(Continued {
        session,
        handoff: doc,
    })
}

/// Reads `transcript.json` from `r`: without `gathering`, its session (which must be the
/// manifest's) into a new one; with it, each of its messages into it, one at a time. What is
/// not read is skipped unparsed.
fn read(
    r: &mut dyn BufRead,
    manifest: &Manifest,
    gathering: Option<Gathering>,
) -> Result<Option<Gathering>, BundleError> {
    let mut read = Transcript {
        manifest,
        messages: gathering.is_some(),
        gathering,
        refused: None,
        budget: Budget::new(RECORD_BYTES),
    };
    let mut de = serde_json::Deserializer::from_reader(r);
    let parsed = (&mut read).deserialize(&mut de).and_then(|()| de.end());
    if let Some(refused) = read.refused.take() {
        return Err(refused);
    }
    parsed.map_err(|e| {
        read.budget
            .error(TRANSCRIPT, "a transcript this version reads", &e)
    })?;
    Ok(read.gathering)
}

/// The state of reading `transcript.json`; `refused` is why it stopped when that was not the
/// JSON's fault.
struct Transcript<'m> {
    manifest: &'m Manifest,
    /// Reading the messages (the session was read before).
    messages: bool,
    gathering: Option<Gathering>,
    refused: Option<BundleError>,
    /// Of the record being read (each starts with a full one).
    budget: Budget,
}

impl Transcript<'_> {
    /// The next record as a `T`, parsed as a tree within the budget first.
    fn record<'de, T, A>(&mut self, map: &mut A) -> Result<T, A::Error>
    where
        T: serde::de::DeserializeOwned,
        A: MapAccess<'de>,
    {
        self.budget = Budget::new(RECORD_BYTES);
        let value = map.next_value_seed(Bounded(&self.budget))?;
        serde_json::from_value(value).map_err(de::Error::custom)
    }

    /// Keeps the session if it is the one the manifest names.
    fn session(&mut self, session: SessionMeta) -> Result<(), BundleError> {
        let listed = self.manifest;
        if session.id != listed.session.id || session.provider != listed.source.provider {
            return Err(BundleError::Invalid(format!(
                "{TRANSCRIPT} holds {} session {}, but the manifest names {} session {}",
                session.provider, session.id, listed.source.provider, listed.session.id
            )));
        }
        self.gathering = Some(Gathering::new(session));
        Ok(())
    }

    fn stop<E: de::Error>(&mut self, refused: BundleError) -> E {
        let e = E::custom(refused.to_string());
        self.refused = Some(refused);
        e
    }
}

impl<'de> DeserializeSeed<'de> for &mut Transcript<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Transcript<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an agent-sessions.export.v1 document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "session" if !self.messages => {
                    let session = self.record(&mut map)?;
                    if let Err(refused) = self.session(session) {
                        return Err(self.stop(refused));
                    }
                }
                "messages" if self.messages => map.next_value_seed(Messages(self))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `messages` array, each handed to the handoff as it is read.
struct Messages<'t, 'm>(&'t mut Transcript<'m>);

impl<'de> DeserializeSeed<'de> for Messages<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Messages<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let read = self.0;
        loop {
            read.budget = Budget::new(RECORD_BYTES);
            let Some(value) = seq.next_element_seed(Bounded(&read.budget))? else {
                return Ok(());
            };
            let message: Message = serde_json::from_value(value).map_err(de::Error::custom)?;
            if let Some(g) = read.gathering.as_mut() {
                g.push(&message);
            }
        }
    }
}
