//! How an agent's program is found and started: where installers put it, the argv that
//! resumes a session, opens the agent in a directory or hands it a prompt, and what its live
//! process looks like.
