//! Field deserializers that never fail a record over one field of an unexpected type.
//!
//! Agents change their formats between versions; a field that turns from a string into an
//! object must not cost us the whole record. Each function here yields `None` for a value of
//! another type (consuming it) instead of an error.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Visitor methods that turn every scalar into `None` (for the object and array visitors).
macro_rules! scalars_are_none {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
}

/// Any JSON value, with the scalars kept and the rest skipped unread.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Num(f64),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(v)))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Scalar::Num(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A string, borrowed from the input where it has no escapes; anything else is `None`.
pub fn str<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Str(s) => Some(s),
        _ => None,
    })
}

/// [`str`] as an owned `String`.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(str(d)?.map(Cow::into_owned))
}

/// A boolean; anything else is `None`.
pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Bool(b) => Some(b),
        _ => None,
    })
}

/// A number as f64; anything else is `None`.
pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Num(n) => Some(n),
        _ => None,
    })
}

/// A non-negative integer; anything else (including negatives) is `None`.
pub fn u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(f64(d)?
        .filter(|v| *v >= 0.0 && v.is_finite())
        .map(|v| v as u64))
}

/// An object deserialized as `T`; a value of any other JSON type is `None`.
pub fn object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    container(d, Container::Object)
}

/// An array deserialized as `T`; a value of any other JSON type is `None`.
pub fn array<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    container(d, Container::Array)
}

/// The JSON container a field must be.
#[derive(Clone, Copy, PartialEq)]
enum Container {
    Object,
    Array,
}

/// `T` from a value that is the `wanted` container; any other value is skipped and `None`.
fn container<'de, D, T>(d: D, wanted: Container) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(Container, PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(match self.0 {
                Container::Object => "an object",
                Container::Array => "an array",
            })
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            if self.0 == Container::Object {
                return T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some);
            }
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            if self.0 == Container::Array {
                return T::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Some);
            }
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        scalars_are_none!();
    }
    d.deserialize_any(V(wanted, PhantomData))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use std::borrow::Cow;

    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(default, borrow, deserialize_with = "super::str")]
        s: Option<Cow<'a, str>>,
        #[serde(default, deserialize_with = "super::bool")]
        b: Option<bool>,
        #[serde(default, deserialize_with = "super::u64")]
        n: Option<u64>,
        #[serde(default, deserialize_with = "super::object")]
        o: Option<Inner>,
    }

    #[derive(Deserialize)]
    struct Inner {
        k: Option<u32>,
    }

    #[test]
    fn values_of_other_types_become_none() {
        let p: Probe =
            serde_json::from_str(r#"{"s":{"x":[1]},"b":"yes","n":-3,"o":"str"}"#).unwrap();
        assert!(p.s.is_none() && p.b.is_none() && p.n.is_none() && p.o.is_none());
        let p: Probe = serde_json::from_str(r#"{"s":"a\"b","b":true,"n":7,"o":{"k":2}}"#).unwrap();
        assert_eq!(p.s.as_deref(), Some("a\"b"));
        assert_eq!(
            (p.b, p.n, p.o.and_then(|o| o.k)),
            (Some(true), Some(7), Some(2))
        );
    }
}
