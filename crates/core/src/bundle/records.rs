//! Reading the records of a bundle with bounded memory, whatever the bundle holds. A bundle's
//! files may each unpack to a gigabyte, and JSON parsed into a tree can take sixteen times its
//! text (`[0,0,…]`: two bytes of text, a 32-byte value each), so no file is ever held whole:
//! JSON Lines are read a line at a time, and a JSON record becomes a tree only within a budget
//! of the memory that tree takes ([`Bounded`]); a longer line or a larger record is refused
//! with `bundle_too_large`.

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, Read};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::BundleError;

/// The longest line of a JSON Lines record file a restore reads (the store's own readers skip
/// longer ones: `agent_sessions_providers::jsonl::MAX_LINE`).
pub(crate) const LINE_BYTES: usize = 64 << 20;

/// What one record parsed into a tree may take in memory (an estimate on the high side). What
/// reads it may copy its text once or twice more (a handoff joins a message's texts; its
/// parser's buffer holds the longest string), so four times this stays far within 256 MiB.
pub(crate) const RECORD_BYTES: usize = 32 << 20;

/// Each line of `r` (with its `\n`, the last one maybe without) handed to `each`, one buffer
/// reused; a line longer than [`LINE_BYTES`] is refused.
pub(crate) fn each_line(
    r: &mut dyn BufRead,
    name: &str,
    each: &mut dyn FnMut(&[u8]) -> Result<(), BundleError>,
) -> Result<(), BundleError> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let got = (&mut *r)
            .take(LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| BundleError::Invalid(format!("{name} cannot be read ({e})")))?;
        if got == 0 {
            return Ok(());
        }
        if line.len() > LINE_BYTES {
            return Err(too_long(name));
        }
        each(&line)?;
    }
}

fn too_long(name: &str) -> BundleError {
    BundleError::TooLarge(format!(
        "{name} has a line longer than {} MiB, more than a record may be; nothing was written",
        LINE_BYTES >> 20
    ))
}

/// What a tree may still take in memory, and whether one went over.
pub(crate) struct Budget {
    left: Cell<usize>,
    over: Cell<bool>,
}

impl Budget {
    pub fn new(bytes: usize) -> Budget {
        Budget {
            left: Cell::new(bytes),
            over: Cell::new(false),
        }
    }

    /// What a parse error means: the budget ran out (`bundle_too_large`), or `name` is not
    /// the JSON it should be (`what`).
    pub fn error(&self, name: &str, what: &str, e: &dyn fmt::Display) -> BundleError {
        if self.over.get() {
            BundleError::TooLarge(format!(
                "{name} holds a record that takes more than {} MiB in memory, more than a record \
                 may; nothing was written",
                RECORD_BYTES >> 20
            ))
        } else {
            BundleError::Invalid(format!("{name} is not {what} ({e})"))
        }
    }
}

/// Builds a [`Value`] while counting what it takes in memory against a [`Budget`], failing
/// once it would take more: a record of a bundle becomes a tree only this way. Keys, strings,
/// numbers and containers are counted with their allocations' usual overhead.
#[derive(Clone, Copy)]
pub(crate) struct Bounded<'a>(pub &'a Budget);

/// The memory of a value slot, with the slack of a growing vector.
const SLOT: usize = 64;
/// A heap allocation's overhead (a string's, a key's).
const ALLOC: usize = 32;
/// A map's first node (a B-tree leaf of 11 keys and values) …
const MAP: usize = 640;
/// … and each entry's share of the nodes, beyond its key's text.
const ENTRY: usize = 96;

impl Bounded<'_> {
    fn scalar<E: de::Error>(&self, v: Value) -> Result<Value, E> {
        self.charge(SLOT)?;
        Ok(v)
    }

    fn charge<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.0.left.get().checked_sub(bytes) {
            Some(rest) => {
                self.0.left.set(rest);
                Ok(())
            }
            None => {
                self.0.over.set(true);
                Err(E::custom("a record takes more memory than a record may"))
            }
        }
    }
}

/// The record `text` (of the file `name`) as a tree within [`RECORD_BYTES`].
pub(crate) fn parse(text: &[u8], name: &str) -> Result<Value, BundleError> {
    tree(
        serde_json::Deserializer::from_slice(text),
        name,
        RECORD_BYTES,
    )
}

/// The JSON document `name` read from `r` as a tree within `bytes` of memory.
pub(crate) fn parse_reader(
    r: &mut dyn Read,
    name: &str,
    bytes: usize,
) -> Result<Value, BundleError> {
    tree(serde_json::Deserializer::from_reader(r), name, bytes)
}

fn tree<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    name: &str,
    bytes: usize,
) -> Result<Value, BundleError> {
    let budget = Budget::new(bytes);
    Bounded(&budget)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| budget.error(name, "JSON", &e))
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.scalar(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.charge(SLOT + ALLOC + v.len())?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.charge(SLOT + ALLOC + v.len())?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.charge(SLOT)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.charge(SLOT + MAP)?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.charge(ENTRY + ALLOC + key.len())?;
            let value = map.next_value_seed(self)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_built_within_their_budget() {
        let ok = br#"{"a":[1,2.5,"x",null,true,{"b":-3}]}"#;
        assert_eq!(
            parse(ok, "f").unwrap(),
            serde_json::from_slice::<Value>(ok).unwrap()
        );
        // 2 MiB of `0,` would be 32 MiB of values: over a 16 MiB budget.
        let zeros = format!("[{}0]", "0,".repeat(1 << 20));
        let err = parse_reader(&mut zeros.as_bytes(), "f", 16 << 20).unwrap_err();
        assert_eq!(err.code(), "bundle_too_large", "{err}");
        assert!(parse_reader(&mut zeros.as_bytes(), "f", 256 << 20).is_ok());
        // Nesting deeper than serde_json's limit is refused, not a stack overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            parse(deep.as_bytes(), "f").unwrap_err().code(),
            "bundle_invalid"
        );
        assert_eq!(parse(b"{} x", "f").unwrap_err().code(), "bundle_invalid");
    }

    #[test]
    fn lines_longer_than_the_limit_are_refused() {
        let mut text: &[u8] = b"{\"a\":1}\n{\"b\":2}";
        let mut seen = Vec::new();
        each_line(&mut text, "f", &mut |l| {
            seen.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [b"{\"a\":1}\n".to_vec(), b"{\"b\":2}".to_vec()]);
        let long = vec![b'x'; LINE_BYTES + 1];
        let err = each_line(&mut long.as_slice(), "f", &mut |_| Ok(())).unwrap_err();
        assert_eq!(err.code(), "bundle_too_large");
        let exact = vec![b'x'; LINE_BYTES];
        each_line(&mut exact.as_slice(), "f", &mut |l| {
            assert_eq!(l.len(), LINE_BYTES);
            Ok(())
        })
        .unwrap();
    }
}
