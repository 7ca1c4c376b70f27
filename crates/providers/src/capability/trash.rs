//! What makes up one session in an agent's store (files, folders, rows, the agent's own
//! archive/delete command) for the trash and delete engine (`agent_sessions_core::actions::trash`).
