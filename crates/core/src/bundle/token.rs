//! The restore token: what a preview hands out and a restore requires, so a restore does
//! exactly what the user saw previewed. It is an HMAC-SHA256, under a key that lives only in
//! this process, of the bundle's SHA-256, the target (agent, store root, directory, copy or
//! not) and an expiry a few minutes ahead: a bundle changed since, another target, or a token
//! from another process or from too long ago is refused. The key holder (the app's state, or
//! the CLI for its one-step import) keeps one [`Tokens`].

use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::BundleError;
use crate::model::ProviderKind;

/// How long a preview's token is good for.
pub const TTL: Duration = Duration::from_secs(5 * 60);

/// What a token binds.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    pub bundle_sha256: &'a str,
    pub provider: ProviderKind,
    pub root: &'a std::path::Path,
    pub dir: &'a std::path::Path,
    pub as_copy: bool,
    /// What the target holds that the restore was planned on (the length of the file an
    /// append goes to), empty when nothing: a target that changed since the preview is not
    /// what was consented to.
    pub state: &'a str,
}

/// Issues and checks tokens under one random key.
pub struct Tokens {
    key: [u8; 32],
    ttl: Duration,
}

impl Default for Tokens {
    fn default() -> Self {
        Tokens::new()
    }
}

impl Tokens {
    /// A fresh random key (from the operating system) and the default lifetime.
    pub fn new() -> Tokens {
        let mut key = [0u8; 32];
        // Without OS randomness there is no secret key; a fixed one would let any process
        // forge tokens, so this is one of the few failures that must stop the program.
        getrandom::fill(&mut key).expect("the operating system gives no random bytes");
        Tokens { key, ttl: TTL }
    }

    /// Tokens that expire after `ttl`.
    pub fn with_ttl(mut self, ttl: Duration) -> Tokens {
        self.ttl = ttl;
        self
    }

    fn mac(&self, binding: &Binding, expires_ms: i64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key");
        for part in [
            "agent-sessions.restore.v1",
            &expires_ms.to_string(),
            binding.bundle_sha256,
            binding.provider.as_str(),
            &binding.root.to_string_lossy(),
            &binding.dir.to_string_lossy(),
            if binding.as_copy { "copy" } else { "same-id" },
            binding.state,
        ] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        super::reader::hex(&mac.finalize().into_bytes())
    }

    /// A token for `binding`, good until `now` + the lifetime; and that time.
    pub fn issue(&self, binding: &Binding, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let expires = now + chrono::Duration::from_std(self.ttl).unwrap_or_default();
        let ms = expires.timestamp_millis();
        (format!("v1.{ms}.{}", self.mac(binding, ms)), expires)
    }

    /// Whether `token` was issued by this key for exactly `binding` and has not expired.
    pub fn check(
        &self,
        token: &str,
        binding: &Binding,
        now: DateTime<Utc>,
    ) -> Result<(), BundleError> {
        let refused = |why: &str| Err(BundleError::Token(why.to_owned()));
        let mut parts = token.splitn(3, '.');
        let (Some("v1"), Some(ms), Some(mac)) = (parts.next(), parts.next(), parts.next()) else {
            return refused("it is not a restore token");
        };
        let Ok(ms) = ms.parse::<i64>() else {
            return refused("it is not a restore token");
        };
        let expected = self.mac(binding, ms);
        // Compared in constant time: how long a comparison takes says nothing of the MAC.
        let same = expected.len() == mac.len()
            && expected
                .bytes()
                .zip(mac.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return refused(
                "it was given for another bundle or target (or the target changed since), or by another run of the program; preview the restore again",
            );
        }
        if now.timestamp_millis() > ms {
            return refused("it has expired; preview the restore again");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn binding<'a>(sha: &'a str, dir: &'a Path, as_copy: bool) -> Binding<'a> {
        Binding {
            bundle_sha256: sha,
            provider: ProviderKind::Claude,
            root: Path::new("/r"),
            dir,
            as_copy,
            state: "",
        }
    }

    #[test]
    fn a_token_binds_the_bundle_the_target_and_the_time() {
        let t = Tokens::new();
        let now = Utc::now();
        let b = binding("aa", Path::new("/d"), false);
        let (token, expires) = t.issue(&b, now);
        assert!(t.check(&token, &b, now).is_ok());
        assert!(t.check(&token, &b, expires).is_ok());
        let later = expires + chrono::Duration::milliseconds(1);
        assert!(t
            .check(&token, &b, later)
            .unwrap_err()
            .to_string()
            .contains("expired"));
        for other in [
            binding("ab", Path::new("/d"), false),
            binding("aa", Path::new("/e"), false),
            binding("aa", Path::new("/d"), true),
        ] {
            assert!(t.check(&token, &other, now).is_err());
        }
        // Another key (another process) does not accept it; nor does a forged expiry.
        assert!(Tokens::new().check(&token, &b, now).is_err());
        let (_, rest) = token.split_at(3);
        let forged = format!("v1.{}{}", i64::MAX, &rest[rest.find('.').unwrap()..]);
        assert!(t.check(&forged, &b, now).is_err());
        assert!(t.check("garbage", &b, now).is_err());
    }
}
