//! `translate <id> <message-id>`: one message's text translated by the endpoint set up in
//! config.toml's `[translate]` (the work is `agent_sessions_core::actions::translate`; this is
//! arguments and output). Message ids are in `show --json` (`messages[].id`) and search hits.

use agent_sessions_core::actions::translate::{self, Limits};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::{Error, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Args)]
pub struct Args {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    id: String,
    /// The message's id, as `show --json` lists it (`messages[].id`).
    message_id: String,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

pub fn run(roots: &Roots, args: Args, config: &ConfigFile) -> Result<Envelope, Error> {
    let settings = config.settings().translate;
    // Checked before anything is read: an endpoint that is not set up gets nothing.
    translate::Endpoint::of(&settings)?;
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let done = translate::translate_message(
        lib.catalog(),
        &session,
        &args.message_id,
        &settings,
        &Limits::default(),
    )?;
    let mut text = done.text.clone();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if done.truncated {
        text.push_str("(the endpoint stopped at its length limit: the translation is cut)\n");
    }
    let mut out = Envelope::ok(
        json!({ "session_id": session.id, "translation": done }),
        text,
    );
    out.warn(lib.warnings());
    Ok(out)
}
