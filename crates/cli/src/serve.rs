//! `serve --stdio`: the remote server (crates/remote) on standard input and output, for a
//! client that started this process through ssh or wsl.exe. It reads the roots this machine's
//! commands read (flags, the agents' variables, config.toml, the defaults) and exits when its
//! input closes: no daemon, no listening socket.

use std::path::PathBuf;

use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::paths::{process_env, resolve};
use agent_sessions_core::{Error, Roots};
use agent_sessions_remote::server::{self, Options};

use crate::envelope::Envelope;

pub fn run(explicit: &Roots, config: &ConfigFile) -> Result<Envelope, Error> {
    let roots = resolve(explicit, &process_env, config)?.roots();
    let config = config.clone();
    let options = Options {
        roots,
        cache_dir: default_cache_dir(),
        // Roots a client names are resolved as this machine's flags would be.
        resolve: Box::new(move |named| Ok(resolve(named, &process_env, &config)?.roots())),
    };
    server::serve(std::io::stdin(), std::io::stdout(), options)
        .map_err(|e| Error::io(PathBuf::from("standard input/output"), e))?;
    Ok(Envelope::silent())
}
