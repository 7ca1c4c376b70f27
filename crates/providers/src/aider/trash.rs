//! Aider's runs for the trash engine (`capability::trash`): none yet. A run is a part of the
//! repository's `.aider.chat.history.md`, which holds its other runs too; taking one out needs
//! a step the engine does not have (rewrite the file without the run's bytes, keep the run as a
//! file of its own in the OS trash), so both modes say why, and the CLI and app offer neither.

use crate::capability::trash::Trash;
use crate::capability::Capability;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Lacks(
        "an Aider run is a part of its repository's .aider.chat.history.md, which holds the \
         other runs too; taking one run out of it is not supported yet",
    ),
    permanent: Capability::Lacks(
        "an Aider run is a part of its repository's .aider.chat.history.md, which holds the \
         other runs too; deleting one run from it is not supported",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};
