//! What an agent's session is inside a bundle and what restoring one into its store writes
//! (files, rows, or the agent's own import command), for the bundle engine
//! (`agent_sessions_core::bundle`).
